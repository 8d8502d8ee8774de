import { ed25519 } from '@noble/curves/ed25519.js';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { generateKey, publicKeyFromSecret } from './keys.ts';

describe('generateKey', () => {
  it('secp256k1: 32-byte secret, 33-byte compressed key consistent with noble and publicKeyFromSecret', () => {
    // Enough rounds that short OpenSSL private keys (leading zero byte, ~1 in 256) get exercised.
    for (let i = 0; i < 600; i++) {
      const { secret, publicKey } = generateKey('DKLS');
      expect(secret.length).toBe(32);
      expect(publicKey.length).toBe(33);
      expect([0x02, 0x03]).toContain(publicKey[0]);
      expect(publicKeyFromSecret('DKLS', secret)).toEqual(publicKey);
      if (i % 20 === 0 || secret[0] === 0) expect(secp256k1.getPublicKey(secret, true)).toEqual(publicKey);
    }
  });

  it('ed25519: 32-byte seed and key consistent with noble and publicKeyFromSecret', () => {
    for (let i = 0; i < 200; i++) {
      const { secret, publicKey } = generateKey('ED25519');
      expect(secret.length).toBe(32);
      expect(publicKey.length).toBe(32);
      expect(publicKeyFromSecret('ED25519', secret)).toEqual(publicKey);
      expect(ed25519.getPublicKey(secret)).toEqual(publicKey);
    }
  });

  it('survives many ed25519 generations (guards against the Node JWK-export deadlock, see keys.ts)', () => {
    let last: Uint8Array = new Uint8Array(32);
    for (let i = 0; i < 5000; i++) last = generateKey('ED25519').publicKey;
    expect(last.length).toBe(32);
  });

  it('generates distinct keys', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 50; i++) {
      seen.add(Buffer.from(generateKey('DKLS').secret).toString('hex'));
      seen.add(Buffer.from(generateKey('ED25519').secret).toString('hex'));
    }
    expect(seen.size).toBe(100);
  });

  it('pads secp256k1 secrets with leading zeros', () => {
    const secret = new Uint8Array(32);
    secret[31] = 1;
    expect(Buffer.from(publicKeyFromSecret('DKLS', secret)).toString('hex')).toBe(
      '0279be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798',
    );
  });

  it('rejects invalid secrets', () => {
    expect(() => publicKeyFromSecret('DKLS', new Uint8Array(31))).toThrow('32 bytes');
    expect(() => publicKeyFromSecret('ED25519', new Uint8Array(33))).toThrow('32 bytes');
    expect(() => publicKeyFromSecret('DKLS', new Uint8Array(32))).toThrow('not a valid secp256k1 private key');
    expect(() => publicKeyFromSecret('DKLS', new Uint8Array(32).fill(0xff))).toThrow('not a valid secp256k1 private key');
  });
});
