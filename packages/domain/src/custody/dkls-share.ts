/**
 * Threshold ECDSA (DKLs23) key shares at rest: a party's `KeyShare` encoding (its Shamir share, the
 * three verifying shares, the public key and the OT correlations of its last OT setup with their
 * status), sealed with AES-256-GCM under a KEK: the API's for participant 1 (`dkls-api`), the
 * signer's service KEK for participant 2 (`dkls-signer`).
 *
 * Stored ciphertext: the 32-byte OT setup id in the clear (it names the setup and reveals nothing of
 * it), then the AES-GCM ciphertext and tag. Associated data:
 * `dkls:v1:${walletId}:${role}:${publicKeyHex}:${epoch}:${otSetupIdHex}`. A sealed
 * share copied to another wallet, presented as another role, for another public key, as another
 * epoch or as another OT setup no longer opens; the public key and the OT setup a party signs with
 * come from its own sealed share, never from the caller. The signer also keeps each wallet's current
 * OT setup in its own store and refuses a share of any other (a replayed share from before an abort).
 *
 * This module holds one party's share at a time; it never joins shares.
 */
import { KeyShare } from '@wallet/threshold-ecdsa';
import { compressedSecp256k1, deriveAddress, formatPublicKey, type WalletType } from '../wallets/addresses.ts';
import { openUnderKek, sealUnderKek } from './kek-seal.ts';
import type { EncryptedShare, Kek, KekProvider, ThresholdShareRole } from './types.ts';
import { wipe } from './types.ts';

/** A sealed share is at most this long (the encoding of a share with OT correlations is 24 808 bytes). */
export const DKLS_SHARE_MAX_BYTES = 32 * 1024;

const hex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

export function dklsAssociatedData(walletId: string, role: ThresholdShareRole, publicKey: Uint8Array, epoch: number, otSetupId: string): string {
  if (!Number.isSafeInteger(epoch) || epoch < 0) throw new Error('epoch must be a whole number');
  if (!/^[0-9a-f]{64}$/.test(otSetupId)) throw new Error('an OT setup id is 32 bytes of hex');
  return `dkls:v1:${walletId}:${role}:${hex(publicKey)}:${epoch}:${otSetupId}`;
}

const partyOf = (role: ThresholdShareRole) => (role === 'dkls-api' ? 1 : 2);

export interface SealedDklsShare extends EncryptedShare {
  role: ThresholdShareRole;
}

/** The OT setup a sealed share's correlations come from (hex), read from its clear prefix; null when the bytes are too short. */
export function dklsShareSetupId(sealed: Pick<EncryptedShare, 'ciphertext'>): string | null {
  return sealed.ciphertext.length > 32 + 16 ? hex(sealed.ciphertext.subarray(0, 32)) : null;
}

/** A share's plaintext `KeyShare` encoding and what it must be (participant, key, OT setup; null: none yet). */
export interface SharePlain {
  plain: Uint8Array;
  partyId: 1 | 2;
  publicKey: Uint8Array;
  otSetupId: string | null;
}

/** Seals a share of participant 1 (`dkls-api`) or 2 (`dkls-signer`) with its OT correlations and their status (ready, or unusable after an abort). */
export function sealDklsShare(kek: Kek, walletId: string, role: ThresholdShareRole, share: KeyShare, epoch: number): SealedDklsShare {
  if (share.partyId !== partyOf(role)) throw new Error('the share is of another participant');
  const otSetupId = share.otSetupId;
  if (otSetupId === null) throw new Error('only a share with OT correlations is sealed');
  const plain = share.encode();
  try {
    return sealDklsShareBytes(kek, walletId, role, { plain, partyId: share.partyId, publicKey: share.publicKey, otSetupId }, epoch);
  } finally {
    wipe(plain);
  }
}

/**
 * Seals a share's `KeyShare` encoding as {@link sealDklsShare} does, from the encoding and its public
 * fields as the presigning thread answers them (it made the encoding from the share it holds), so
 * that this thread never decodes the share. The caller wipes `plain`.
 */
export function sealDklsShareBytes(
  kek: Kek,
  walletId: string,
  role: ThresholdShareRole,
  encoded: SharePlain,
  epoch: number,
): SealedDklsShare {
  if (encoded.partyId !== partyOf(role)) throw new Error('the share is of another participant');
  const setupId = encoded.otSetupId;
  if (setupId === null) throw new Error('only a share with OT correlations is sealed');
  const { iv, ciphertext } = sealUnderKek(kek, dklsAssociatedData(walletId, role, encoded.publicKey, epoch, setupId), encoded.plain);
  const stored = new Uint8Array(32 + ciphertext.length);
  stored.set(Buffer.from(setupId, 'hex'), 0);
  stored.set(ciphertext, 32);
  return { role, epoch, kekId: kek.id, iv, ciphertext: stored };
}

/**
 * Opens a sealed share of `role` for the wallet's public key; its OT setup id (from the clear prefix)
 * is authenticated by the associated data, and the signer compares it with the one its store holds
 * before it opens. Any failure throws the same plain Error. The caller wipes the share (`share.wipe()`).
 */
export function openDklsShare(keks: Pick<KekProvider, 'byId'>, walletId: string, role: ThresholdShareRole, sealed: EncryptedShare, publicKey: Uint8Array): KeyShare {
  let plain: Uint8Array | undefined;
  try {
    if (sealed.role !== role) throw new Error('role');
    const otSetupId = dklsShareSetupId(sealed);
    if (otSetupId === null) throw new Error('short');
    plain = openUnderKek(keks.byId(sealed.kekId), dklsAssociatedData(walletId, role, publicKey, sealed.epoch, otSetupId), sealed.iv, sealed.ciphertext.subarray(32));
    const share = KeyShare.decode(plain);
    if (share.partyId !== partyOf(role) || !Buffer.from(share.publicKey).equals(Buffer.from(publicKey)) || share.otSetupId !== otSetupId) {
      share.wipe();
      throw new Error('participant');
    }
    return share;
  } catch {
    throw new Error('threshold ECDSA share cannot be opened');
  } finally {
    wipe(plain);
  }
}

/**
 * The plaintext `KeyShare` encoding of a sealed share, decrypted and authenticated (role, wallet, key,
 * epoch and OT setup by the associated data) but not decoded: for the presigning thread, which
 * decodes and checks it off the event loop, with what it must be. Any failure throws the same plain
 * Error; the caller wipes the bytes.
 */
export function openDklsSharePlain(keks: Pick<KekProvider, 'byId'>, walletId: string, role: ThresholdShareRole, sealed: EncryptedShare, publicKey: Uint8Array): SharePlain & { otSetupId: string } {
  try {
    if (sealed.role !== role) throw new Error('role');
    const otSetupId = dklsShareSetupId(sealed);
    if (otSetupId === null) throw new Error('short');
    const plain = openUnderKek(keks.byId(sealed.kekId), dklsAssociatedData(walletId, role, publicKey, sealed.epoch, otSetupId), sealed.iv, sealed.ciphertext.subarray(32));
    return { plain, partyId: partyOf(role), publicKey, otSetupId };
  } catch {
    throw new Error('threshold ECDSA share cannot be opened');
  }
}

/** A refresh's context bytes (bound into its session id): the wallet and the epoch its new shares are sealed at. */
export const dklsRefreshContext = (walletId: string, epoch: number) => new Uint8Array(Buffer.from(`wallet-dkls-refresh:v1:${walletId}:${epoch}`));

/** The DKG's context bytes (bound into its session id): the wallet being created. */
export const dklsDkgContext = (walletId: string) => new Uint8Array(Buffer.from(`wallet-dkls-dkg:v1:${walletId}`));

/**
 * The 33-byte compressed key of a secp256k1 wallet from its stored `publicKey` (0x-prefixed
 * uncompressed hex for EVM, compressed hex for COSMOS), checked by formatting it back and by the
 * address it gives. Public data: it names which key a sealed share must have been sealed for.
 */
export function secp256k1KeyOfWallet(wallet: { type: WalletType; address: string; publicKey?: string }): Uint8Array {
  try {
    if ((wallet.type !== 'EVM' && wallet.type !== 'COSMOS') || !wallet.publicKey) throw new Error('type');
    const text = wallet.type === 'EVM' ? wallet.publicKey.replace(/^0x/, '') : wallet.publicKey;
    if (!/^[0-9a-f]+$/.test(text)) throw new Error('hex');
    const key = new Uint8Array(compressedSecp256k1(new Uint8Array(Buffer.from(text, 'hex'))));
    if (formatPublicKey(wallet.type, key) !== wallet.publicKey) throw new Error('format');
    const prefix = wallet.type === 'COSMOS' ? wallet.address.slice(0, wallet.address.lastIndexOf('1')) : undefined;
    if (deriveAddress(wallet.type, key, prefix) !== wallet.address) throw new Error('address');
    return key;
  } catch {
    throw new Error("the wallet's stored public key is not a secp256k1 key that gives its address");
  }
}
