/**
 * The enclave key: the P-256 key pair clients encrypt wallet shares to when they migrate
 * pregenerated wallets (see `envelope.ts`).
 *
 * - `id` is the key fingerprint: lowercase hex SHA-256 of the SPKI DER encoding of the public key.
 * - The private key (PKCS#8 DER) is stored encrypted with AES-256-GCM under the current `service`
 *   KEK of the key vault, with a random 12-byte IV and the associated data `enclave-key:${id}`, so
 *   an encrypted private key copied next to another public key no longer decrypts. Only the vault
 *   generates and opens it (`enclave-key-crypto.ts`).
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import type { EnclaveKeyRow } from '../ports.ts';

/** Stored form of the enclave key (the `enclave_keys` row). */
export type EnclaveKeyRecord = EnclaveKeyRow;

export interface EnclavePublicView {
  publicKey: string;
  keyFingerprint: string;
  generatedAt: string;
}

/** Lowercase hex SHA-256 of the SPKI DER encoding of `publicKey` (PEM text or a KeyObject). */
export function keyFingerprint(publicKey: string | KeyObject): string {
  const key = typeof publicKey === 'string' ? createPublicKey(publicKey) : publicKey;
  const der = key.export({ type: 'spki', format: 'der' });
  return createHash('sha256').update(der).digest('hex');
}


/** What `GET /v1/enclave/public-key` answers. */
export function enclavePublicView(record: EnclaveKeyRecord): EnclavePublicView {
  return { publicKey: record.publicKeyPem, keyFingerprint: record.id, generatedAt: record.createdAt.toISOString() };
}

