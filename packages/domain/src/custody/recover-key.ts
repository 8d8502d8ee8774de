/**
 * The offline side of recovery, for the operator's `npm run custody -- recover`: the recovery private
 * key read from its file (refused when group or others can read it), its id (to name a wrong key
 * before anything is tried), and participant 3's share of a threshold ECDSA (DKLs23) wallet rebuilt
 * from its recovery rows (FROST: `rebuildParticipant3`, recovery-key.ts).
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { closeSync, fstatSync, openSync, readFileSync } from 'node:fs';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { combineOfflineContributions, refreshOfflineShare, type OfflineContribution, type RefreshContribution } from '@wallet/threshold-ecdsa';
import { openFromRecovery, parseRecoveryPublicKey } from './recovery-seal.ts';
import type { EncryptedShare } from './types.ts';
import { wipe } from './types.ts';

/** The recovery private key (PEM, X25519) from `file`; the file's bytes are wiped once parsed. */
export function readRecoveryPrivateKeyFile(file: string): KeyObject {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    throw new Error(`the recovery private key file cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  let pem: Buffer | undefined;
  try {
    if ((fstatSync(fd).mode & 0o077) !== 0) throw new Error(`the recovery private key file is accessible by group or others; restrict it with: chmod 600 ${file}`);
    pem = readFileSync(fd);
    let key: KeyObject;
    try {
      key = createPrivateKey({ key: pem, format: 'pem' });
    } catch {
      throw new Error('the recovery private key file does not hold a PEM private key');
    }
    if (key.asymmetricKeyType !== 'x25519') throw new Error('the recovery private key must be an X25519 key');
    return key;
  } finally {
    pem?.fill(0);
    closeSync(fd);
  }
}

/** The id the recovery rows name (their `kekId`) for the public half of `privateKey`. */
export function recoveryKeyIdOf(privateKey: KeyObject): string {
  return parseRecoveryPublicKey(createPublicKey(privateKey).export({ format: 'pem', type: 'spki' }).toString()).id;
}

const point = (bytes: Uint8Array) => secp256k1.Point.fromBytes(bytes);

/**
 * Participant 3's p(3) of a DKLs23 wallet, from every recovery row (any order): the two dealers'
 * contributions of its key generation (each checked against its commitments, their sum against the Y₃
 * the commitments give) or the dealt share of a conversion, plus every refresh's contribution; the
 * result is checked against `verifyingShare3`, the current Y₃. The caller wipes the result.
 */
export function rebuildDklsParticipant3(privateKey: KeyObject, walletId: string, shares: EncryptedShare[], publicKey: Uint8Array, verifyingShare3: Uint8Array): Uint8Array {
  const items = shares.filter((s) => s.role === 'recovery-api' || s.role === 'recovery-signer').map((s) => openFromRecovery(privateKey, walletId, s, publicKey));
  const dealers: OfflineContribution[] = [];
  const refreshes: RefreshContribution[] = [];
  let dealt: Uint8Array | undefined;
  let base: Uint8Array | undefined;
  try {
    for (const item of items) {
      if (item.kind === 'ecdsa-contribution') dealers.push(item.contribution);
      else if (item.kind === 'ecdsa-refresh') refreshes.push(item.contribution);
      else if (item.kind === 'ecdsa-dealt-share' && !dealt) dealt = item.share.share;
      else throw new Error('the recovery rows are not those of one threshold ECDSA wallet');
    }
    if (dealt && dealers.length > 0) throw new Error('the recovery rows are not those of one threshold ECDSA wallet');
    if (dealt) base = Uint8Array.from(dealt);
    else {
      // Y₃ at key generation: Σ_i (C_i0 + 3·C_i1), public.
      const y3 = dealers.reduce((sum, c) => sum.add(point(c.commitments.subarray(0, 33))).add(point(c.commitments.subarray(33)).multiply(3n)), secp256k1.Point.ZERO);
      base = combineOfflineContributions(dealers, y3.toBytes(true));
    }
    return refreshOfflineShare(base, refreshes, verifyingShare3);
  } finally {
    wipe(base, dealt, ...dealers.map((c) => c.share), ...refreshes.map((c) => c.delta));
  }
}
