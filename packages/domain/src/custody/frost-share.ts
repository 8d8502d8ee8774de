/**
 * FROST(Ed25519) key shares at rest: a versioned binary encoding of a participant's key package
 * together with the group's public key package, sealed with AES-256-GCM under a KEK (the API's for
 * participant 1, the signer's service KEK for participant 2).
 *
 * Plaintext v1 (162 bytes): `0x01 || identifier (1 byte) || signing share (32) || group public key
 * (32) || verifying shares of participants 1, 2, 3 (3 × 32)`. The participant's own verifying share is
 * the one at its index. The plaintext is authenticated (GCM) and was checked when it was made (the
 * package's DKG, refresh and import check every share against its verifying share); the signing
 * functions check the key package against the public package again, and the coordinator verifies the
 * peer's signature share (RFC 9591 §5.4) before it aggregates.
 *
 * Associated data: `frost:v1:${walletId}:${role}:${groupPublicKeyHex}:${epoch}`, so a sealed share
 * copied to another wallet, presented as another role, for another group key or as another epoch
 * no longer opens. Because the group key is authenticated, an opener that is handed a group key
 * either opens the share sealed for exactly that key or nothing: the group key a party signs with
 * comes from its own sealed share, never from the caller.
 *
 * This module holds one participant's share at a time; it never joins shares.
 */
import type { KeyPackage, PublicKeyPackage } from '@wallet/frost-ed25519';
import { openUnderKek, sealUnderKek } from './kek-seal.ts';
import type { EncryptedShare, FrostShareRole, Kek, KekProvider } from './types.ts';
import { wipe } from './types.ts';

export const FROST_SHARE_VERSION = 1;
const PLAINTEXT_LENGTH = 2 + 32 + 32 + 3 * 32;
const OPEN_FAILED = 'FROST share cannot be opened';

export interface OpenedFrostShare {
  keyPackage: KeyPackage;
  publicKeyPackage: PublicKeyPackage;
}

export const toHex = (bytes: Uint8Array) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');

export function frostAssociatedData(walletId: string, role: FrostShareRole, groupPublicKey: Uint8Array, epoch: number): string {
  if (!Number.isSafeInteger(epoch) || epoch < 0) throw new Error('epoch must be a whole number');
  return `frost:v1:${walletId}:${role}:${toHex(groupPublicKey)}:${epoch}`;
}

/** The plaintext of a share (the caller wipes it). */
export function encodeFrostShare({ keyPackage, publicKeyPackage }: OpenedFrostShare): Uint8Array {
  const { identifier, signingShare, groupPublicKey } = keyPackage;
  if (!Number.isInteger(identifier) || identifier < 1 || identifier > 3) throw new Error('a FROST identifier is 1, 2 or 3');
  if (publicKeyPackage.verifyingShares.length !== 3) throw new Error('a public key package has three verifying shares');
  if (!Buffer.from(groupPublicKey).equals(Buffer.from(publicKeyPackage.groupPublicKey))) throw new Error('the key package is of another group');
  const out = new Uint8Array(PLAINTEXT_LENGTH);
  out[0] = FROST_SHARE_VERSION;
  out[1] = identifier;
  out.set(signingShare, 2);
  out.set(groupPublicKey, 34);
  publicKeyPackage.verifyingShares.forEach((share, index) => out.set(share, 66 + 32 * index));
  return out;
}

/** Parses a share's plaintext (copies: the caller wipes `plain` and, later, the signing share). */
export function decodeFrostShare(plain: Uint8Array): OpenedFrostShare {
  if (plain.length !== PLAINTEXT_LENGTH || plain[0] !== FROST_SHARE_VERSION) throw new Error('unsupported FROST share encoding');
  const identifier = plain[1]!;
  if (identifier < 1 || identifier > 3) throw new Error('unsupported FROST share encoding');
  // Copies (Uint8Array.from), never views: the caller wipes `plain`, and a Buffer's slice would be a view.
  const copy = (from: number, to: number) => Uint8Array.from(plain.subarray(from, to));
  const signingShare = copy(2, 34);
  const groupPublicKey = copy(34, 66);
  const verifyingShares = [0, 1, 2].map((i) => copy(66 + 32 * i, 98 + 32 * i));
  const verifyingShare = verifyingShares[identifier - 1]!;
  return {
    keyPackage: { identifier, signingShare, verifyingShare, groupPublicKey },
    publicKeyPackage: { groupPublicKey, verifyingShares },
  };
}

export function sealFrostShare(kek: Kek, walletId: string, role: 'frost-api' | 'frost-signer', share: OpenedFrostShare, epoch: number): EncryptedShare {
  const plain = encodeFrostShare(share);
  try {
    return { role, epoch, kekId: kek.id, ...sealUnderKek(kek, frostAssociatedData(walletId, role, share.keyPackage.groupPublicKey, epoch), plain) };
  } finally {
    wipe(plain);
  }
}

/**
 * Opens a sealed share of `role` for the group key `groupPublicKey`. Any failure throws the same
 * plain Error (no detail about the key material). The caller wipes `keyPackage.signingShare`.
 */
export function openFrostShare(keks: Pick<KekProvider, 'byId'>, walletId: string, role: 'frost-api' | 'frost-signer', share: EncryptedShare, groupPublicKey: Uint8Array): OpenedFrostShare {
  let plain: Uint8Array | undefined;
  try {
    if (share.role !== role) throw new Error('role');
    plain = openUnderKek(keks.byId(share.kekId), frostAssociatedData(walletId, role, groupPublicKey, share.epoch), share.iv, share.ciphertext);
    const opened = decodeFrostShare(plain);
    const expectedId = role === 'frost-api' ? 1 : 2;
    if (opened.keyPackage.identifier !== expectedId || !Buffer.from(opened.keyPackage.groupPublicKey).equals(Buffer.from(groupPublicKey))) {
      wipe(opened.keyPackage.signingShare);
      throw new Error('participant');
    }
    return opened;
  } catch {
    throw new Error(OPEN_FAILED);
  } finally {
    wipe(plain);
  }
}

export function samePublicKeyPackage(a: PublicKeyPackage, b: PublicKeyPackage): boolean {
  const eq = (x: Uint8Array, y: Uint8Array) => Buffer.from(x).equals(Buffer.from(y));
  return eq(a.groupPublicKey, b.groupPublicKey) && a.verifyingShares.length === b.verifyingShares.length && a.verifyingShares.every((v, i) => eq(v, b.verifyingShares[i]!));
}

/** The DKG's session context (bound into every proof of knowledge): the wallet being created. */
export const frostDkgContext = (walletId: string) => `wallet-dkg:v1:${walletId}`;

/** A refresh's session context: the wallet and the epoch it makes. */
export const frostRefreshContext = (walletId: string, epoch: number) => `wallet-refresh:v1:${walletId}:${epoch}`;
