import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { bigToBytes, bytesToBig, inv, mod, mul, N } from './curve.ts';
import { dealKeyShares } from './import.ts';
import { KeyShare } from './keyshare.ts';
import { otSetupParty, presignParty, type Party } from './parties.ts';

/** Participant 1 initiates; participant 2 answers each batch at once, as the service's RPC does. */
function run<A, B>(p1: Party<A>, p2: Party<B>): void {
  let outbox = [p1.first()];
  let p2Started = false;
  for (;;) {
    const answers: Uint8Array[] = [];
    if (!p2Started) {
      answers.push(p2.first());
      p2Started = true;
    }
    for (const m of outbox) {
      const out = p2.step(m);
      if (out) answers.push(out);
    }
    outbox = [];
    for (const m of answers) {
      const out = p1.step(m);
      if (out) outbox.push(out);
    }
    if (p1.done && p2.done) return;
    if (outbox.length === 0) throw new Error('stalled');
  }
}

/** p(i) from a share's encoding (magic, version, id, then the 32-byte share). */
const secretOf = (share: KeyShare) => bytesToBig(share.encode().subarray(3, 35));
/** Lagrange interpolation at 0 from (i, p(i)) and (j, p(j)). */
const interpolate = (i: bigint, pi: bigint, j: bigint, pj: bigint) => mod(mul(mod(j * pi - i * pj), inv(mod(j - i))));

describe('dealKeyShares: an existing secp256k1 key split for DKLs23', () => {
  const secretKey = secp256k1.utils.randomSecretKey();
  const publicKey = secp256k1.getPublicKey(secretKey, true);

  it('deals shares that sign, after an OT setup, under the original public key (verified by @noble/curves)', () => {
    const dealt = dealKeyShares(secretKey, publicKey);
    expect(Buffer.from(dealt.publicKey).equals(Buffer.from(publicKey))).toBe(true);
    const [s1, s2] = dealt.shares;
    expect([s1.partyId, s2.partyId, s1.otStatusValue]).toEqual([1, 2, 'absent']);
    // Each share passes the strict decoding (Y's of degree 1, p(i)·G = Y_i, pk).
    for (const s of [s1, s2]) expect(Buffer.from(KeyShare.decode(s.encode()).verifyingShares[2]).equals(Buffer.from(dealt.offline.verifyingShare))).toBe(true);
    run(otSetupParty(s1), otSetupParty(s2));
    expect(s1.otSetupId).toBe(s2.otSetupId);
    for (const text of ['imported', 'twice']) {
      const a = presignParty(s1);
      const b = presignParty(s2);
      run(a, b);
      const digest = createHash('sha256').update(text).digest();
      const f1 = a.result().prepareFinalMessage(digest);
      const f2 = b.result().prepareFinalMessage(digest);
      const signature = f1.finish(f2.message);
      expect(f2.finish(f1.message).compact).toEqual(signature.compact);
      expect(secp256k1.verify(signature.compact, digest, publicKey, { prehash: false, lowS: true })).toBe(true);
      expect(secp256k1.verify(signature.compact, digest, secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true), { prehash: false })).toBe(false);
    }
  });

  it("participant 3's p(3) with either online share interpolates to the key; the two online shares do too", () => {
    const dealt = dealKeyShares(secretKey);
    const sk = bytesToBig(secretKey);
    const [p1, p2] = dealt.shares.map(secretOf) as [bigint, bigint];
    const p3 = bytesToBig(dealt.offline.share);
    expect(Buffer.from(secp256k1.getPublicKey(dealt.offline.share, true)).equals(Buffer.from(dealt.offline.verifyingShare))).toBe(true);
    expect(interpolate(1n, p1, 3n, p3)).toBe(sk);
    expect(interpolate(2n, p2, 3n, p3)).toBe(sk);
    expect(interpolate(1n, p1, 2n, p2)).toBe(sk);
    // The sharing is random: a second deal of the same key gives other shares.
    expect(secretOf(dealKeyShares(secretKey).shares[0])).not.toBe(p1);
    // A wrong p(3) does not interpolate to the key (the check can fail).
    expect(interpolate(1n, p1, 3n, mod(p3 + 1n))).not.toBe(sk);
  });

  it('refuses a key that does not give the expected public key, zero, n and a wrong length', () => {
    const other = secp256k1.getPublicKey(secp256k1.utils.randomSecretKey(), true);
    expect(() => dealKeyShares(secretKey, other)).toThrow(/does not give the expected public key/);
    expect(() => dealKeyShares(new Uint8Array(32))).toThrow(/not a scalar/);
    expect(() => dealKeyShares(bigToBytes(N))).toThrow(/not a scalar/);
    expect(() => dealKeyShares(new Uint8Array(31))).toThrow(/32 bytes/);
  });
});
