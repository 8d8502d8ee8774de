/** The sealed forms of key material the API may store and pass on, and the KEK source port. No key is opened here. */

export type ShareRole = 'user' | 'service';

/** Whose KEK: the two share roles are the signer's; `api` seals the API's own secrets (webhook secrets). */
export type KekRole = ShareRole | 'api';

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
  kekId: string;
  iv: Uint8Array;
  /** AES-256-GCM ciphertext followed by the 16-byte tag. */
  ciphertext: Uint8Array;
}

/** Overwrites the buffers with zeros; ignores undefined entries. */
export function wipe(...buffers: Array<Uint8Array | undefined | null>): void {
  for (const buffer of buffers) buffer?.fill(0);
}

