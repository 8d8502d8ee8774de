import { createHash, createPublicKey, diffieHellman, generateKeyPairSync, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Kek, KekProvider } from '../custody/shares.ts';
import { enclavePublicView, type EnclaveKeyRecord } from './enclave-key.ts';
import { generateEnclaveKey, openEnclavePrivateKey } from './enclave-key-crypto.ts';

function memoryKeks(...keks: Kek[]): KekProvider {
  const [current] = keks;
  if (!current) throw new Error('need a KEK');
  return { current: () => current, byId: (id) => keks.find((k) => k.id === id) };
}
const kek = (id: string): Kek => ({ id, key: randomBytes(32) });

describe('enclave key', () => {
  const keks = memoryKeks(kek('kek-1'));
  const now = new Date('2025-03-04T05:06:07.089Z');

  it('generates a P-256 key whose id is the SHA-256 of its SPKI DER', () => {
    const record = generateEnclaveKey(keks, now);
    const view = enclavePublicView(record);
    expect(view.publicKey).toBe(record.publicKeyPem);
    expect(view.publicKey).toMatch(/^-----BEGIN PUBLIC KEY-----\n[\s\S]+\n-----END PUBLIC KEY-----\n$/);
    const publicKey = createPublicKey(view.publicKey);
    expect(publicKey.asymmetricKeyType).toBe('ec');
    expect(publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    const der = publicKey.export({ type: 'spki', format: 'der' });
    expect(view.keyFingerprint).toBe(createHash('sha256').update(der).digest('hex'));
    expect(view.keyFingerprint).toBe(record.id);
    expect(view.generatedAt).toBe('2025-03-04T05:06:07.089Z');
    expect(record.createdAt.getTime()).toBe(now.getTime());
    expect(record.kekId).toBe('kek-1');
    expect(record.iv).toHaveLength(12);
  });

  it('does not store the private key in the clear', () => {
    const record = generateEnclaveKey(keks, now);
    const pkcs8 = openEnclavePrivateKey(keks, record).export({ type: 'pkcs8', format: 'der' });
    expect(record.encryptedPrivateKey).toHaveLength(pkcs8.length + 16);
    expect(Buffer.from(record.encryptedPrivateKey).includes(pkcs8.subarray(pkcs8.length - 32))).toBe(false);
    expect(JSON.stringify(enclavePublicView(record))).not.toContain(pkcs8.toString('base64').slice(-40));
  });

  it('opens the private key, which matches the public key', () => {
    const record = generateEnclaveKey(keks, now);
    const privateKey = openEnclavePrivateKey(keks, record);
    expect(privateKey.type).toBe('private');
    expect(privateKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    // ECDH with a peer gives the same secret from both sides.
    const peer = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
    const ours = diffieHellman({ privateKey, publicKey: peer.publicKey });
    const theirs = diffieHellman({ privateKey: peer.privateKey, publicKey: createPublicKey(record.publicKeyPem) });
    expect(ours).toHaveLength(32);
    expect(ours.equals(theirs)).toBe(true);
  });

  it('generates a different key each time', () => {
    expect(generateEnclaveKey(keks, now).id).not.toBe(generateEnclaveKey(keks, now).id);
  });

  it('opens with a retired KEK that is still readable', () => {
    const old = kek('kek-old');
    const record = generateEnclaveKey(memoryKeks(old), now);
    const rotated = memoryKeks(kek('kek-new'), old);
    expect(openEnclavePrivateKey(rotated, record).type).toBe('private');
  });

  it('fails with one plain error for a wrong KEK, an unknown KEK or tampering', () => {
    const record = generateEnclaveKey(keks, now);
    const failures: Array<[string, KekProvider, EnclaveKeyRecord]> = [
      ['wrong key under the same id', memoryKeks(kek('kek-1')), record],
      ['unknown KEK id', memoryKeks(kek('kek-2')), record],
      ['short KEK', memoryKeks({ id: 'kek-1', key: Buffer.alloc(16) }), record],
      ['tampered ciphertext', keks, { ...record, encryptedPrivateKey: flip(record.encryptedPrivateKey, 5) }],
      ['tampered tag', keks, { ...record, encryptedPrivateKey: flip(record.encryptedPrivateKey, record.encryptedPrivateKey.length - 1) }],
      ['tampered iv', keks, { ...record, iv: flip(record.iv, 0) }],
      ['short iv', keks, { ...record, iv: record.iv.subarray(0, 11) }],
      ['other id (AAD)', keks, { ...record, id: generateEnclaveKey(keks, now).id }],
      ['truncated', keks, { ...record, encryptedPrivateKey: record.encryptedPrivateKey.subarray(0, 10) }],
    ];
    for (const [name, provider, broken] of failures) {
      expect(() => openEnclavePrivateKey(provider, broken), name).toThrowError(new Error('enclave key cannot be decrypted'));
    }
  });

  it('refuses a ciphertext moved next to another public key', () => {
    const a = generateEnclaveKey(keks, now);
    const b = generateEnclaveKey(keks, now);
    const swapped = { ...b, iv: a.iv, encryptedPrivateKey: a.encryptedPrivateKey };
    expect(() => openEnclavePrivateKey(keks, swapped)).toThrowError('enclave key cannot be decrypted');
  });
});

function flip(bytes: Uint8Array, index: number): Uint8Array {
  const copy = new Uint8Array(bytes);
  copy[index] = copy[index]! ^ 0x01;
  return copy;
}
