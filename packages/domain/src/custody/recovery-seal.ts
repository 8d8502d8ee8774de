/**
 * Sealing to the offline recovery key: the contributions to FROST participant 3's share (the DKG's
 * f_j(3) of each online dealer, an imported key's dealt share, every refresh's δ_j(3)). Each online
 * process seals what it produced itself, so no online process ever holds participant 3's share.
 *
 * ECIES over X25519 with `node:crypto` (the migration envelope's P-256 code binds no associated data
 * and carries a fixed JSON plaintext, so it is not reused): an ephemeral X25519 key, the shared secret
 * `X25519(ephemeral, recovery)`, the AES-256 key `HKDF-SHA256(shared, salt = ephemeral public ||
 * recovery public, info = "wallet-recovery-v1")`, AES-256-GCM with a random 12-byte IV and the
 * associated data `frost-recovery:v1:${walletId}:${role}:${groupPublicKeyHex}:${epoch}`. Stored as an
 * `EncryptedShare`: `kekId` the recovery key's id (`recovery-` + 16 hex of SHA-256 of its SPKI),
 * `iv`, and `ciphertext = ephemeral public (32) || ciphertext || tag (16)`.
 *
 * Plaintext v1: `0x01 || kind`, then for kind 1 (a contribution) `sender || recipient || mode (0 dkg,
 * 1 refresh) || share (32) || commitment count || per commitment: 0x00 (null) or 0x01 || point (32)`,
 * for kind 2 (a dealt key package, an imported key's participant 3) the FROST share encoding, for
 * kind 3 (a threshold ECDSA dealer's contribution) `sender || f(3) (32) || C_0 || C_1 (33 each)`, for
 * kind 4 (an imported threshold ECDSA key's participant 3) `p(3) (32) || Y_3 (33)`, for kind 5 (a
 * threshold ECDSA refresh's contribution, participant 3's share grows by 3·r) `sender || r (32) || R (33)`.
 */
import { createCipheriv, createDecipheriv, createHash, createPublicKey, diffieHellman, generateKeyPairSync, hkdfSync, randomFillSync, type KeyObject } from 'node:crypto';
import type { KeyPackage, OfflineContribution, PublicKeyPackage } from '@wallet/frost-ed25519';
import type { DealtOfflineShare, OfflineContribution as EcdsaOfflineContribution, RefreshContribution } from '@wallet/threshold-ecdsa';
import { decodeFrostShare, encodeFrostShare, toHex } from './frost-share.ts';
import type { EncryptedShare } from './types.ts';
import { wipe } from './types.ts';

const X25519_SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const INFO = Buffer.from('wallet-recovery-v1');
const IV_LENGTH = 12;
const TAG_LENGTH = 16;

export interface RecoveryPublicKey {
  id: string;
  key: KeyObject;
  /** The raw 32-byte X25519 public key. */
  raw: Uint8Array;
}

export type RecoveryRole = 'recovery-api' | 'recovery-signer';

/** What one recovery row holds, opened (offline). */
export type RecoveryItem =
  | { kind: 'contribution'; contribution: OfflineContribution }
  | { kind: 'key-package'; keyPackage: KeyPackage; publicKeyPackage: PublicKeyPackage }
  /** A threshold ECDSA (DKLs23) dealer's f_i(3) with its commitments C_i0 ‖ C_i1 (66 bytes). */
  | { kind: 'ecdsa-contribution'; contribution: EcdsaOfflineContribution }
  /** A threshold ECDSA key imported by a trusted dealer: participant 3's p(3) itself with Y_3 (33 bytes). */
  | { kind: 'ecdsa-dealt-share'; share: DealtOfflineShare }
  /** A threshold ECDSA refresh: one online party's r with R = r·G; participant 3's share grows by 3·r. */
  | { kind: 'ecdsa-refresh'; contribution: RefreshContribution };

function rawX25519(key: KeyObject): Uint8Array {
  const spki = key.export({ format: 'der', type: 'spki' });
  if (spki.length !== X25519_SPKI_PREFIX.length + 32 || !spki.subarray(0, X25519_SPKI_PREFIX.length).equals(X25519_SPKI_PREFIX)) {
    throw new Error('the recovery public key is not an X25519 key');
  }
  return new Uint8Array(spki.subarray(X25519_SPKI_PREFIX.length));
}

/** Reads a PEM X25519 public key (RECOVERY_PUBLIC_KEY_FILE). Throws naming nothing secret. */
export function parseRecoveryPublicKey(pem: string): RecoveryPublicKey {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch {
    throw new Error('the recovery public key is not a PEM public key');
  }
  if (key.asymmetricKeyType !== 'x25519') throw new Error('the recovery public key must be an X25519 key (openssl genpkey -algorithm X25519)');
  const raw = rawX25519(key);
  return { id: `recovery-${createHash('sha256').update(X25519_SPKI_PREFIX).update(raw).digest('hex').slice(0, 16)}`, key, raw };
}

export function recoveryAssociatedData(walletId: string, role: RecoveryRole, groupPublicKey: Uint8Array, epoch: number): string {
  return `frost-recovery:v1:${walletId}:${role}:${toHex(groupPublicKey)}:${epoch}`;
}

function aesKey(shared: Uint8Array, ephemeral: Uint8Array, recipient: Uint8Array): Buffer {
  return Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephemeral, recipient]), INFO, 32));
}

function encodeItem(item: RecoveryItem): Uint8Array {
  if (item.kind === 'ecdsa-refresh') {
    const c = item.contribution;
    if (c.delta.length !== 32 || c.commitment.length !== 33) throw new Error('a threshold ECDSA refresh contribution is a 32-byte delta and a 33-byte commitment');
    const out = new Uint8Array(3 + 32 + 33);
    out.set([1, 5, c.sender]);
    out.set(c.delta, 3);
    out.set(c.commitment, 35);
    return out;
  }
  if (item.kind === 'ecdsa-dealt-share') {
    const { share, verifyingShare } = item.share;
    if (share.length !== 32 || verifyingShare.length !== 33) throw new Error('a dealt threshold ECDSA share is a 32-byte share and a 33-byte verifying share');
    const out = new Uint8Array(2 + 32 + 33);
    out.set([1, 4]);
    out.set(share, 2);
    out.set(verifyingShare, 34);
    return out;
  }
  if (item.kind === 'ecdsa-contribution') {
    const c = item.contribution;
    if (c.share.length !== 32 || c.commitments.length !== 66) throw new Error('a threshold ECDSA contribution is a 32-byte share and 66 bytes of commitments');
    const out = new Uint8Array(3 + 32 + 66);
    out.set([1, 3, c.sender]);
    out.set(c.share, 3);
    out.set(c.commitments, 35);
    return out;
  }
  if (item.kind === 'key-package') {
    const body = encodeFrostShare(item);
    const out = new Uint8Array(2 + body.length);
    out.set([1, 2]);
    out.set(body, 2);
    wipe(body);
    return out;
  }
  const c = item.contribution;
  const out = new Uint8Array(2 + 3 + 32 + 1 + c.commitment.length * 33);
  out.set([1, 1, c.sender, c.recipient, c.mode === 'dkg' ? 0 : 1]);
  out.set(c.share, 5);
  out[37] = c.commitment.length;
  c.commitment.forEach((point, index) => {
    const at = 38 + index * 33;
    if (point) {
      out[at] = 1;
      out.set(point, at + 1);
    }
  });
  return out;
}

function decodeItem(plain: Uint8Array): RecoveryItem {
  if (plain[0] !== 1) throw new Error('unsupported recovery encoding');
  if (plain[1] === 2) return { kind: 'key-package', ...decodeFrostShare(plain.subarray(2)) };
  if (plain[1] === 3) {
    if (plain.length !== 101 || (plain[2] !== 1 && plain[2] !== 2)) throw new Error('unsupported recovery encoding');
    return { kind: 'ecdsa-contribution', contribution: { sender: plain[2], share: Uint8Array.from(plain.subarray(3, 35)), commitments: Uint8Array.from(plain.subarray(35)) } };
  }
  if (plain[1] === 5) {
    if (plain.length !== 68 || (plain[2] !== 1 && plain[2] !== 2)) throw new Error('unsupported recovery encoding');
    return { kind: 'ecdsa-refresh', contribution: { sender: plain[2], delta: Uint8Array.from(plain.subarray(3, 35)), commitment: Uint8Array.from(plain.subarray(35)) } };
  }
  if (plain[1] === 4) {
    if (plain.length !== 67) throw new Error('unsupported recovery encoding');
    return { kind: 'ecdsa-dealt-share', share: { share: Uint8Array.from(plain.subarray(2, 34)), verifyingShare: Uint8Array.from(plain.subarray(34)) } };
  }
  if (plain[1] !== 1 || plain.length < 38) throw new Error('unsupported recovery encoding');
  // Copies, never views (a Buffer's slice is a view, and the caller wipes `plain`).
  const copy = (from: number, to: number) => Uint8Array.from(plain.subarray(from, to));
  const count = plain[37]!;
  if (plain.length !== 38 + count * 33) throw new Error('unsupported recovery encoding');
  const commitment = Array.from({ length: count }, (_, index) => {
    const at = 38 + index * 33;
    return plain[at] === 1 ? copy(at + 1, at + 33) : null;
  });
  return {
    kind: 'contribution',
    contribution: { sender: plain[2]!, recipient: plain[3]!, mode: plain[4] === 0 ? 'dkg' : 'refresh', share: copy(5, 37), commitment },
  };
}

/** Seals one contribution (or dealt key package) to the recovery key. */
export function sealToRecovery(recovery: RecoveryPublicKey, walletId: string, role: RecoveryRole, groupPublicKey: Uint8Array, epoch: number, item: RecoveryItem): EncryptedShare {
  const ephemeral = generateKeyPairSync('x25519');
  const ephemeralRaw = rawX25519(ephemeral.publicKey);
  const shared = diffieHellman({ privateKey: ephemeral.privateKey, publicKey: recovery.key });
  const key = aesKey(shared, ephemeralRaw, recovery.raw);
  const plain = encodeItem(item);
  try {
    const iv = randomFillSync(new Uint8Array(IV_LENGTH));
    const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_LENGTH });
    cipher.setAAD(Buffer.from(recoveryAssociatedData(walletId, role, groupPublicKey, epoch)));
    const body = Buffer.concat([cipher.update(plain), cipher.final(), cipher.getAuthTag()]);
    return { role, epoch, kekId: recovery.id, iv, ciphertext: new Uint8Array(Buffer.concat([ephemeralRaw, body])) };
  } finally {
    wipe(shared, key, plain);
  }
}

/** Offline: opens one recovery row with the recovery private key. Throws a plain Error on any failure. */
export function openFromRecovery(privateKey: KeyObject, walletId: string, share: EncryptedShare, groupPublicKey: Uint8Array): RecoveryItem {
  let shared: Uint8Array | undefined;
  let key: Buffer | undefined;
  let plain: Buffer | undefined;
  try {
    if (share.role !== 'recovery-api' && share.role !== 'recovery-signer') throw new Error('role');
    const recipient = rawX25519(createPublicKey(privateKey));
    const ephemeralRaw = share.ciphertext.subarray(0, 32);
    const ephemeral = createPublicKey({ key: Buffer.concat([X25519_SPKI_PREFIX, ephemeralRaw]), format: 'der', type: 'spki' });
    shared = diffieHellman({ privateKey, publicKey: ephemeral });
    key = aesKey(shared, ephemeralRaw, recipient);
    const sealed = share.ciphertext.subarray(32);
    const decipher = createDecipheriv('aes-256-gcm', key, share.iv, { authTagLength: TAG_LENGTH });
    decipher.setAAD(Buffer.from(recoveryAssociatedData(walletId, share.role, groupPublicKey, share.epoch)));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_LENGTH));
    plain = Buffer.concat([decipher.update(sealed.subarray(0, sealed.length - TAG_LENGTH)), decipher.final()]);
    return decodeItem(plain);
  } catch {
    throw new Error('recovery contribution cannot be opened');
  } finally {
    wipe(shared, key, plain);
  }
}
