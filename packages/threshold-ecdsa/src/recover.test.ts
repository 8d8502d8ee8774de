import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { proveShareKnowledge, recoverShareSecret, verifyShareKnowledge, type Participant } from './recover.ts';

const n = secp256k1.Point.CURVE().n;
const toBytes = (x: bigint) => new Uint8Array(Buffer.from(x.toString(16).padStart(64, '0'), 'hex'));
const random = () => BigInt(`0x${randomBytes(32).toString('hex')}`) % n;

function sharing() {
  const [sk, a] = [random(), random()];
  const p = (k: number) => (sk + a * BigInt(k)) % n;
  const shares = [1, 2, 3].map((k) => toBytes(p(k)));
  const ys = shares.map((s) => secp256k1.getPublicKey(s, true)) as [Uint8Array, Uint8Array, Uint8Array];
  return { shares, ys };
}

describe('recovery of a lost share of the degree-1 sharing', () => {
  it('rebuilds each participant from the two others, checked against the verifying shares', () => {
    for (let round = 0; round < 20; round++) {
      const { shares, ys } = sharing();
      for (const target of [1, 2, 3] as Participant[]) {
        const [a, b] = ([1, 2, 3] as Participant[]).filter((k) => k !== target) as [Participant, Participant];
        const rebuilt = recoverShareSecret(target, [{ id: a, share: shares[a - 1]! }, { id: b, share: shares[b - 1]! }], ys);
        expect(Buffer.from(rebuilt).equals(Buffer.from(shares[target - 1]!))).toBe(true);
      }
    }
  });

  it('refuses a share that does not match its verifying share, and the target among the helpers', () => {
    const { shares, ys } = sharing();
    const other = sharing();
    expect(() => recoverShareSecret(2, [{ id: 1, share: shares[0]! }, { id: 3, share: other.shares[2]! }], ys)).toThrow(/participant 3's share does not match/);
    expect(() => recoverShareSecret(2, [{ id: 2, share: shares[1]! }, { id: 3, share: shares[2]! }], ys)).toThrow(/two other participants/);
  });

  it('a proof of knowledge of a share verifies under its context only, and not for another verifying share', () => {
    const { shares, ys } = sharing();
    const context = new TextEncoder().encode('wallet w, epoch 3');
    const proof = proveShareKnowledge(shares[2]!, ys[2], context);
    expect(verifyShareKnowledge(ys[2], proof, context)).toBe(true);
    expect(verifyShareKnowledge(ys[2], proof, new TextEncoder().encode('wallet w, epoch 4'))).toBe(false);
    expect(verifyShareKnowledge(ys[1], proof, context)).toBe(false);
    expect(verifyShareKnowledge(ys[2], proveShareKnowledge(shares[1]!, ys[2], context), context)).toBe(false);
    expect(verifyShareKnowledge(ys[2], { R: proof.R, z: new Uint8Array(32) }, context)).toBe(false);
  });
});
