import { createHash, createPublicKey, createVerify, randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { KeyShare } from './keyshare.ts';
import { ThresholdEcdsaError } from './errors.ts';
import { Presignature, SignSession } from './sign.ts';
import { finishBoth, runPresign, setup } from './test-helpers.ts';

function nodeVerify(pk: Uint8Array, message: Uint8Array, compact: Uint8Array): boolean {
  const P = secp256k1.Point.fromBytes(pk).toAffine();
  const b64 = (x: bigint) => Buffer.from(x.toString(16).padStart(64, '0'), 'hex').toString('base64url');
  const key = createPublicKey({ key: { kty: 'EC', crv: 'secp256k1', x: b64(P.x), y: b64(P.y) }, format: 'jwk' });
  const der = secp256k1.Signature.fromBytes(compact, 'compact').toBytes('der');
  return createVerify('sha256').update(message).verify(key, der);
}

describe('DKG, OT setup and signing, end to end', () => {
  const [s1, s2] = setup();

  it('gives both parties the same public key, the sum of the public shares', () => {
    expect(Buffer.from(s1.publicKey).equals(Buffer.from(s2.publicKey))).toBe(true);
    const sum = secp256k1.Point.fromBytes(s1.publicShares[1]).add(secp256k1.Point.fromBytes(s1.publicShares[2]));
    expect(Buffer.from(sum.toBytes(true)).equals(Buffer.from(s1.publicKey))).toBe(true);
    expect(s1.otStatusValue).toBe('ready');
    expect(s2.otStatusValue).toBe('ready');
  });

  it('signs: verified by @noble/curves and node:crypto, low-S, recovery id recovers the key', () => {
    const message = Buffer.from('threshold ECDSA, DKLs23, 2-of-2');
    const digest = createHash('sha256').update(message).digest();
    const [p1, p2] = runPresign(s1, s2);
    expect(p1.id).toBe(p2.id);
    const [sig1, sig2] = finishBoth(p1, p2, digest);
    expect(Buffer.from(sig1.compact).equals(Buffer.from(sig2.compact))).toBe(true);
    expect(secp256k1.verify(sig1.compact, digest, s1.publicKey, { prehash: false, lowS: true })).toBe(true);
    expect(nodeVerify(s1.publicKey, message, sig1.compact)).toBe(true);
    const recovered = secp256k1.Signature.fromBytes(sig1.compact, 'compact').addRecoveryBit(sig1.recovery).recoverPublicKey(digest);
    expect(Buffer.from(recovered.toBytes(true)).equals(Buffer.from(s1.publicKey))).toBe(true);
    const s = BigInt('0x' + Buffer.from(sig1.s).toString('hex'));
    expect(s <= secp256k1.Point.CURVE().n / 2n).toBe(true);
  });

  it('a signature under one digest does not verify under another', () => {
    const d = randomBytes(32);
    const [p1, p2] = runPresign(s1, s2);
    const [sig] = finishBoth(p1, p2, d);
    const other = Uint8Array.from(d);
    other[0]! ^= 1;
    expect(secp256k1.verify(sig.compact, other, s1.publicKey, { prehash: false })).toBe(false);
  });

  it('a presignature is consumed by its first digest: a second use throws and releases nothing', () => {
    const [p1, p2] = runPresign(s1, s2);
    const pending = p1.prepareFinalMessage(randomBytes(32));
    expect(pending.presignatureId).toBe(p1.id);
    expect(p1.used).toBe(true);
    expect(() => p1.prepareFinalMessage(randomBytes(32))).toThrow(expect.objectContaining({ code: 'PRESIGNATURE_CONSUMED' }));
    // the same digest again is refused too: the id is what the caller records before sending
    p2.discard();
    expect(() => p2.prepareFinalMessage(randomBytes(32))).toThrow(ThresholdEcdsaError);
  });

  it('the key share round-trips through bytes with its OT correlations and still signs', () => {
    const bytes1 = s1.encode();
    const bytes2 = s2.encode();
    expect(bytes1.length).toBe(3 + 32 + 4 * 33 + 1 + 64 + 3 * 256 * 32);
    const t1 = KeyShare.decode(bytes1);
    const t2 = KeyShare.decode(bytes2);
    const d = randomBytes(32);
    const [p1, p2] = runPresign(t1, t2);
    const [sig] = finishBoth(p1, p2, d);
    expect(secp256k1.verify(sig.compact, d, s1.publicKey, { prehash: false })).toBe(true);
  });

  it('key share decoding is strict', () => {
    const bytes = s1.encode();
    expect(() => KeyShare.decode(bytes.subarray(0, bytes.length - 1))).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => KeyShare.decode(Buffer.concat([bytes, Uint8Array.of(0)]))).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    const wrongSecret = Uint8Array.from(bytes);
    wrongSecret[3 + 31]! ^= 1; // x_1 no longer matches X_1
    expect(() => KeyShare.decode(wrongSecret)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
  });

  it('persists the unusable status, and an unusable share refuses to start signing', () => {
    const copy = KeyShare.decode(s1.encode());
    copy.markOtUnusable();
    const again = KeyShare.decode(copy.encode());
    expect(again.otStatusValue).toBe('unusable');
    expect(() => new SignSession(again)).toThrow(expect.objectContaining({ code: 'OT_UNUSABLE' }));
  });

  it('a presignature moves as bytes (the original is consumed) and signs once', () => {
    const [p1, p2] = runPresign(s1, s2);
    const bytes = p1.export();
    expect(bytes.length).toBe(3 + 33 + 32 + 33 + 96);
    expect(p1.used).toBe(true);
    expect(() => p1.prepareFinalMessage(randomBytes(32))).toThrow(expect.objectContaining({ code: 'PRESIGNATURE_CONSUMED' }));
    expect(() => p1.export()).toThrow(expect.objectContaining({ code: 'PRESIGNATURE_CONSUMED' }));
    expect(() => Presignature.import(bytes, s2)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => Presignature.import(bytes.subarray(1), s1)).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    const moved = Presignature.import(bytes, s1);
    expect(moved.id).toBe(p2.id);
    const d = randomBytes(32);
    const [sig] = finishBoth(moved, p2, d);
    expect(secp256k1.verify(sig.compact, d, s1.publicKey, { prehash: false })).toBe(true);
    expect(() => moved.prepareFinalMessage(d)).toThrow(expect.objectContaining({ code: 'PRESIGNATURE_CONSUMED' }));
  });
});
