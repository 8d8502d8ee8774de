/** The enclave key's private half (inside the key vault only): generated sealed, opened for one migration. */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { openUnderKek, sealUnderKek } from '../custody/kek-seal.ts';
import { wipe, type KekProvider } from '../custody/types.ts';
import { keyFingerprint, type EnclaveKeyRecord } from './enclave-key.ts';

const CURVE = 'prime256v1';
const OPEN_FAILED = 'enclave key cannot be decrypted';
const associatedData = (id: string) => `enclave-key:${id}`;

/** Generates a fresh P-256 enclave key and encrypts its private half under the current service KEK. */
export function generateEnclaveKey(keks: KekProvider, now: Date): EnclaveKeyRecord {
  const kek = keks.current('service');
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: CURVE });
  const id = keyFingerprint(publicKey);
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'der' });
  try {
    const { iv, ciphertext: encryptedPrivateKey } = sealUnderKek(kek, associatedData(id), pkcs8);
    return { id, publicKeyPem, kekId: kek.id, iv, encryptedPrivateKey, createdAt: new Date(now.getTime()) };
  } finally {
    wipe(pkcs8);
  }
}

/**
 * Decrypts the enclave private key. Also checks that it is a P-256 key whose public half has the
 * record's fingerprint. Any failure throws the same plain Error without details.
 */
export function openEnclavePrivateKey(keks: KekProvider, record: EnclaveKeyRecord): KeyObject {
  let pkcs8: Uint8Array | undefined;
  try {
    pkcs8 = openUnderKek(keks.byId(record.kekId), associatedData(record.id), record.iv, record.encryptedPrivateKey);
    const privateKey = createPrivateKey({ key: Buffer.from(pkcs8), format: 'der', type: 'pkcs8' });
    if (privateKey.asymmetricKeyType !== 'ec' || privateKey.asymmetricKeyDetails?.namedCurve !== CURVE) {
      throw new Error('not a P-256 key');
    }
    if (keyFingerprint(createPublicKey(privateKey)) !== record.id) throw new Error('fingerprint mismatch');
    return privateKey;
  } catch {
    throw new Error(OPEN_FAILED);
  } finally {
    wipe(pkcs8);
  }
}
