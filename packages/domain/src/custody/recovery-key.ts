/**
 * The offline recovery key (X25519) that FROST participant 3's contributions are sealed to.
 *
 * - `RECOVERY_PUBLIC_KEY_FILE` (PEM, X25519 SPKI) in the API's and the signer's environment: beta and
 *   production refuse to start without it, and never see a private key.
 * - Local mode without it: a key pair generated once in `DATA_DIR/recovery/` (`recovery-private.pem`
 *   mode 0600, `recovery-public.pem`), a local-mode convenience so that recovery can be tried on a
 *   laptop. Anyone who reads that directory and one online share's KEK can rebuild a wallet key.
 *
 * `rebuildParticipant3` is the offline side: it opens every recovery row of a wallet with the private
 * key and sums them into participant 3's key package (checked against its verifying share).
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { closeSync, fstatSync, mkdirSync, openSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { combineOfflineContributions, type KeyPackage, type OfflineContribution, type PublicKeyPackage } from '@wallet/frost-ed25519';
import { createFileWhole } from './create-file.ts';
import { openFromRecovery, parseRecoveryPublicKey, type RecoveryPublicKey } from './recovery-seal.ts';
import type { EncryptedShare } from './types.ts';
import { wipe } from './types.ts';

export const RECOVERY_PUBLIC_FILE = 'recovery-public.pem';
export const RECOVERY_PRIVATE_FILE = 'recovery-private.pem';

/**
 * Local mode: generates the pair once and answers the public key. Concurrent first starts: the first
 * private key created wins; the public half is derived from whichever private key is on disk, so a
 * process killed between the two files leaves nothing a later start cannot finish.
 */
export function ensureLocalRecoveryKey(dir: string): RecoveryPublicKey {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const publicFile = join(dir, RECOVERY_PUBLIC_FILE);
  try {
    return parseRecoveryPublicKey(readFileSync(publicFile, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const pair = generateKeyPairSync('x25519', { privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
  // The private key first: a public key without its private half would seal what nobody can open.
  createFileWhole(join(dir, RECOVERY_PRIVATE_FILE), pair.privateKey, 0o600);
  const publicPem = createPublicKey(readLocalRecoveryPrivateKey(dir)).export({ type: 'spki', format: 'pem' }) as string;
  createFileWhole(publicFile, publicPem, 0o644);
  return parseRecoveryPublicKey(readFileSync(publicFile, 'utf8'));
}

/**
 * The recovery public key of a process: RECOVERY_PUBLIC_KEY_FILE, or in local mode the generated one
 * in `localDir`. Throws naming the variable outside local mode without it.
 */
export function resolveRecoveryPublicKey(options: { appEnv: string; file: string | undefined; localDir: string }): RecoveryPublicKey {
  if (options.file) return parseRecoveryPublicKey(readFileSync(options.file, 'utf8'));
  if (options.appEnv !== 'local') {
    throw new Error(`RECOVERY_PUBLIC_KEY_FILE is not set; ${options.appEnv} needs the offline recovery public key (PEM, X25519) that FROST participant 3's shares are sealed to`);
  }
  return ensureLocalRecoveryKey(options.localDir);
}

/** Offline (or a local-mode test): the generated private key, refused when group or others can read it. */
export function readLocalRecoveryPrivateKey(dir: string): KeyObject {
  const file = join(dir, RECOVERY_PRIVATE_FILE);
  const fd = openSync(file, 'r');
  try {
    if ((fstatSync(fd).mode & 0o077) !== 0) throw new Error(`${file} is accessible by group or others; restrict it with: chmod 600 ${file}`);
    return createPrivateKey(readFileSync(fd, 'utf8'));
  } finally {
    closeSync(fd);
  }
}

/**
 * Participant 3's key package, from every recovery row of the wallet (any order): a dealt key package
 * (imported key) as the base plus every contribution, or the DKG's two contributions plus every
 * refresh's. Checked against `publicKeyPackage` (the current one). The caller wipes the result.
 */
export function rebuildParticipant3(privateKey: KeyObject, walletId: string, shares: EncryptedShare[], publicKeyPackage: PublicKeyPackage): KeyPackage {
  const items = shares
    .filter((s) => s.role === 'recovery-api' || s.role === 'recovery-signer')
    .map((s) => openFromRecovery(privateKey, walletId, s, publicKeyPackage.groupPublicKey));
  const contributions: OfflineContribution[] = [];
  let base: KeyPackage | undefined;
  for (const item of items) {
    if (item.kind === 'contribution') contributions.push(item.contribution);
    else if (item.kind === 'ecdsa-contribution' || item.kind === 'ecdsa-dealt-share' || item.kind === 'ecdsa-refresh') throw new Error('a threshold ECDSA recovery row in a FROST wallet');
    else if (base) throw new Error('two dealt key packages for participant 3');
    else base = item.keyPackage;
  }
  try {
    return combineOfflineContributions(3, contributions, publicKeyPackage, base);
  } finally {
    wipe(base?.signingShare, ...contributions.map((c) => c.share));
  }
}
