import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { secp256k1Build, signSecp256k1 } from './secp256k1.ts';

describe('signSecp256k1', () => {
  it('makes the RFC 6979 low-S signature another implementation (@noble/curves) makes, with its recovery id', () => {
    const halfOrder = secp256k1.Point.CURVE().n / 2n;
    for (let i = 0; i < 25; i++) {
      const secret = secp256k1.utils.randomSecretKey();
      const digest = randomBytes(32);
      const ours = signSecp256k1(digest, secret);
      const reference = secp256k1.sign(digest, secret, { prehash: false, lowS: true, format: 'recovered' });
      expect(Buffer.from(ours.signature).toString('hex')).toBe(Buffer.from(reference.subarray(1)).toString('hex'));
      expect(ours.recoveryId).toBe(reference[0]);
      expect(BigInt(`0x${Buffer.from(ours.signature.subarray(32)).toString('hex')}`) <= halfOrder).toBe(true);
      const publicKey = secp256k1.getPublicKey(secret);
      expect(secp256k1.verify(ours.signature, digest, publicKey, { prehash: false })).toBe(true);
    }
  });

  it('refuses a key outside the group', () => {
    expect(() => signSecp256k1(randomBytes(32), new Uint8Array(32))).toThrow();
  });
});

describe('the libsecp256k1 builds', () => {
  it('signs with the native addon here, and it makes the WebAssembly build’s signatures byte for byte', async () => {
    expect(secp256k1Build()).toBe('native');
    const wasm = await import('tiny-secp256k1');
    for (let i = 0; i < 200; i++) {
      const secret = secp256k1.utils.randomSecretKey();
      const digest = randomBytes(32);
      const ours = signSecp256k1(digest, secret);
      const other = wasm.signRecoverable(digest, secret);
      expect(Buffer.from(ours.signature).equals(Buffer.from(other.signature))).toBe(true);
      expect(ours.recoveryId).toBe(other.recoveryId);
    }
  });
});
