/**
 * The enclave key: the P-256 key pair clients encrypt wallet shares to when they migrate
 * pregenerated wallets (see `envelope.ts`).
 *
 * - `id` is the key fingerprint: lowercase hex SHA-256 of the SPKI DER encoding of the public key.
 * - The private key (PKCS#8 DER) is stored encrypted with AES-256-GCM under the current `service`
 *   KEK, with a random 12-byte IV and the associated data `enclave-key:${id}`, so an encrypted
 *   private key copied next to another public key no longer decrypts.
 */
import {
  createHash,
  createPrivateKey,
  createPublicKey,
  generateKeyPairSync,
  type KeyObject,
} from 'node:crypto';
import { openUnderKek, sealUnderKek } from '../custody/kek-seal.ts';
import { wipe, type KekProvider } from '../custody/shares.ts';
import type { EnclaveKeyRow } from '../ports.ts';

/** Stored form of the enclave key (the `enclave_keys` row). */
export type EnclaveKeyRecord = EnclaveKeyRow;

export interface EnclavePublicView {
  publicKey: string;
  keyFingerprint: string;
  generatedAt: string;
}

const CURVE = 'prime256v1';
const OPEN_FAILED = 'enclave key cannot be decrypted';

/** Lowercase hex SHA-256 of the SPKI DER encoding of `publicKey` (PEM text or a KeyObject). */
export function keyFingerprint(publicKey: string | KeyObject): string {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  const der = key.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex');
}

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

/** What `GET /v1/enclave/public-key` answers. */
export function enclavePublicView(record: EnclaveKeyRecord): EnclavePublicView {
  return { publicKey: record.publicKeyPem, keyFingerprint: record.id, generatedAt: record.createdAt.toISOString() };
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
