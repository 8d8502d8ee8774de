import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { finishBoth, runPresign, setup } from './test-helpers.ts';

/**
 * Random keys × random digests, each signature checked by @noble/curves (verify, low-S, recovery of the
 * public key from the recovery id). Sized for `npm test` (3 keys × 6 digests here); `npm run bench --
 * --signatures 2000` runs the same checks on thousands.
 */
const KEYS = Number(process.env.THRESHOLD_ECDSA_PROPERTY_KEYS ?? 3);
const DIGESTS = Number(process.env.THRESHOLD_ECDSA_PROPERTY_DIGESTS ?? 6);
const n = secp256k1.Point.CURVE().n;
const edgeDigests = [new Uint8Array(32), new Uint8Array(32).fill(0xff), Buffer.from(n.toString(16), 'hex'), Buffer.from((n + 1n).toString(16), 'hex')];

describe('property: every signature over random keys and digests verifies', () => {
  for (let k = 0; k < KEYS; k++) {
    it(`key ${k + 1}: ${DIGESTS} digests${k === 0 ? " (0, 2^256-1, n and n+1 among them)" : ""}`, () => {
      const [s1, s2] = setup();
      const recoveries = new Set<number>();
      for (let i = 0; i < DIGESTS; i++) {
        const digest = i < edgeDigests.length && k === 0 ? edgeDigests[i]! : randomBytes(32);
        const [p1, p2] = runPresign(s1, s2);
        const [a, b] = finishBoth(p1, p2, digest);
        expect(Buffer.from(a.compact).equals(Buffer.from(b.compact))).toBe(true);
        expect(secp256k1.verify(a.compact, digest, s1.publicKey, { prehash: false, lowS: true })).toBe(true);
        const pub = secp256k1.Signature.fromBytes(a.compact, 'compact').addRecoveryBit(a.recovery).recoverPublicKey(digest).toBytes(true);
        expect(Buffer.from(pub).equals(Buffer.from(s1.publicKey))).toBe(true);
        recoveries.add(a.recovery);
      }
      expect([...recoveries].every((r) => r === 0 || r === 1)).toBe(true);
    });
  }
});
