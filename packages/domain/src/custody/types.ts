/** The sealed forms of key material the API may store and pass on, and the KEK source port. No key is opened here. */

/** The XOR halves of a whole key (secp256k1; Ed25519 wallets not yet converted), both sealed by the signer. */
export type XorShareRole = 'user' | 'service';

/**
 * FROST(Ed25519) 2-of-3: `frost-api` (participant 1, sealed under the API's KEK), `frost-signer`
 * (participant 2, under the signer's service KEK), and the two online dealers' contributions to
 * participant 3's share, sealed to the offline recovery key (`recovery-api`, `recovery-signer`).
 */
export type FrostShareRole = 'frost-api' | 'frost-signer' | 'recovery-api' | 'recovery-signer';

/**
 * Threshold ECDSA (DKLs23) 2-of-3 on secp256k1: `dkls-api` (participant 1's key share with its OT
 * correlations, under the API's KEK) and `dkls-signer` (participant 2's, under the signer's service
 * KEK); participant 3's contributions are the `recovery-*` rows as for FROST.
 */
export type ThresholdShareRole = 'dkls-api' | 'dkls-signer';

export type ShareRole = XorShareRole | FrostShareRole | ThresholdShareRole;

export const SHARE_ROLES: readonly ShareRole[] = ['user', 'service', 'frost-api', 'frost-signer', 'recovery-api', 'recovery-signer', 'dkls-api', 'dkls-signer'];

/** How a wallet's key is held: `isolated` (joined only inside the signer process) or `threshold` (never whole: FROST or DKLs23). */
export type CustodyMode = 'isolated' | 'threshold';

/** Whose KEK: `user` and `service` are the signer's; `api` seals the API's own secrets (webhook secrets, its FROST shares). */
export type KekRole = XorShareRole | 'api';

export interface Kek {
  id: string;
  /** 32-byte AES-256 key. */
  key: Buffer;
}

export interface KekProvider {
  /** The KEK new shares of this role are encrypted under. */
  current(role: KekRole): Kek;
  /** Any KEK still readable (current or retired), for decryption. */
  byId(id: string): Kek | undefined;
  /** Every KEK it holds (current and retired); the file and environment providers have it. */
  list?(): Kek[];
}

export interface EncryptedShare {
  role: ShareRole;
  /** The refresh generation (0 at creation); bound into the associated data of every share sealed at an epoch above 0 and of every FROST share. */
  epoch: number;
  /** The KEK id, or for a recovery contribution the recovery key's id. */
  kekId: string;
  iv: Uint8Array;
  /** AES-256-GCM ciphertext followed by the 16-byte tag (a recovery contribution: the ephemeral X25519 key first). */
  ciphertext: Uint8Array;
}

/** Overwrites the buffers with zeros; ignores undefined entries. */
export function wipe(...buffers: Array<Uint8Array | undefined | null>): void {
  for (const buffer of buffers) buffer?.fill(0);
}

