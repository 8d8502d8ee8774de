import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { keygenParty, otSetupParty, presignParty, type Party } from './parties.ts';

/** Participant 1 initiates; participant 2 answers each batch at once, as the service's RPC does. Counts exchanges. */
function run<A, B>(p1: Party<A>, p2: Party<B>, tamper: (exchange: number, m: Uint8Array) => Uint8Array = (_e, m) => m): number {
  let outbox = [p1.first()];
  let exchanges = 0;
  let p2Started = false;
  for (;;) {
    exchanges++;
    const answers: Uint8Array[] = [];
    if (!p2Started) {
      answers.push(p2.first());
      p2Started = true;
    }
    for (const m of outbox) {
      const out = p2.step(tamper(exchanges, m));
      if (out) answers.push(out);
    }
    outbox = [];
    for (const m of answers) {
      const out = p1.step(m);
      if (out) outbox.push(out);
    }
    if (p1.done && p2.done) return exchanges;
    if (outbox.length === 0) throw new Error('stalled');
  }
}

describe('parties over batched exchanges', () => {
  const context = new Uint8Array(Buffer.from('wallet-1'));

  it('key generation (DKG + OT setup) takes 5 exchanges, presigning 2, and the signature verifies under @noble/curves', () => {
    const a = keygenParty(1, context);
    const b = keygenParty(2, context);
    expect(run(a, b)).toBe(5);
    const s1 = a.result().share;
    const s2 = b.result().share;
    expect(Buffer.from(s1.publicKey).equals(Buffer.from(s2.publicKey))).toBe(true);
    expect(s1.otStatusValue).toBe('ready');
    expect(s1.otSetupId).toBe(s2.otSetupId);

    const pa = presignParty(s1);
    const pb = presignParty(s2);
    expect(run(pa, pb)).toBe(2);
    const digest = createHash('sha256').update('hello').digest();
    const f1 = pa.result().prepareFinalMessage(digest);
    const f2 = pb.result().prepareFinalMessage(digest);
    expect(f1.presignatureId).toBe(f2.presignatureId);
    const sig = f1.finish(f2.message);
    expect(f2.finish(f1.message).compact).toEqual(sig.compact);
    expect(secp256k1.verify(sig.compact, digest, s1.publicKey, { prehash: false, lowS: true })).toBe(true);
  });

  it('a fresh OT setup takes 4 exchanges and changes the setup id; a tampered message aborts it', () => {
    const a = keygenParty(1, context);
    const b = keygenParty(2, context);
    run(a, b);
    const [s1, s2] = [a.result().share, b.result().share];
    const before = s1.otSetupId;
    expect(run(otSetupParty(s1), otSetupParty(s2))).toBe(4);
    expect(s1.otSetupId).not.toBe(before);
    expect(s1.otSetupId).toBe(s2.otSetupId);
    const flip = (exchange: number, m: Uint8Array) => {
      if (exchange !== 3) return m;
      const copy = Uint8Array.from(m);
      copy[copy.length - 1]! ^= 1;
      return copy;
    };
    expect(() => run(otSetupParty(s1), otSetupParty(s2), flip)).toThrow(/session aborted/);
  });

  it('refuses a second first message, a step before the first, a step after the end and a result before it', () => {
    const a = keygenParty(1, context);
    expect(() => a.step(new Uint8Array(36))).toThrow(/no step expects/);
    a.first();
    expect(() => a.first()).toThrow(/already made/);
    expect(() => a.result()).toThrow(/not finished/);
    const b = keygenParty(2, context);
    run(keygenParty(1, context), b);
    expect(() => b.step(new Uint8Array(36))).toThrow(/no step expects/);
  });
});
