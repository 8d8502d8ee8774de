/**
 * Key shares and their envelope encryption.
 *
 * A wallet secret (32 bytes) is split 2-of-2 into a user share and a service share:
 * `user` is a fresh random pad and `service = secret XOR user`. Either share alone is uniformly
 * random and says nothing about the secret; both are needed to rebuild it.
 *
 * Each share is encrypted at rest with AES-256-GCM under the current key-encryption key (KEK) of
 * its role, with a random 12-byte IV and the associated data `${walletId}:${role}`, so a share
 * copied to another wallet row or swapped with the other role no longer decrypts.
 *
 * Shares are joined only in memory inside `withWalletSecret*`, which wipes every intermediate
 * buffer afterwards, also when the callback throws. (JavaScript cannot guarantee that no copy
 * exists elsewhere, e.g. inside OpenSSL or a library the callback hands the secret to; this
 * narrows the window, it does not make memory disclosure impossible.)
 */
import { randomFillSync } from 'node:crypto';
import { openUnderKek, sealUnderKek } from './kek-seal.ts';

import type { EncryptedShare, KekProvider, ShareRole, XorShareRole } from './types.ts';
import { wipe } from './types.ts';

export * from './types.ts';

const SHARE_LENGTH = 32;
const DECRYPT_FAILED = 'key share cannot be decrypted';

export function splitSecret(secret: Uint8Array): { user: Uint8Array; service: Uint8Array } {
  if (secret.length !== SHARE_LENGTH) throw new Error(`a wallet secret must be ${SHARE_LENGTH} bytes`);
  const user = randomFillSync(new Uint8Array(SHARE_LENGTH));
  const service = new Uint8Array(SHARE_LENGTH);
  for (let i = 0; i < SHARE_LENGTH; i++) service[i] = secret[i]! ^ user[i]!;
  return { user, service };
}

/** Rebuilds the secret from the two shares (order does not matter). The caller wipes the result. */
export function joinShares(a: Uint8Array, b: Uint8Array): Uint8Array {
  if (a.length !== SHARE_LENGTH || b.length !== SHARE_LENGTH) throw new Error(`key shares must be ${SHARE_LENGTH} bytes`);
  const secret = new Uint8Array(SHARE_LENGTH);
  for (let i = 0; i < SHARE_LENGTH; i++) secret[i] = a[i]! ^ b[i]!;
  return secret;
}

/** Epoch 0 keeps the original `${walletId}:${role}`; a re-padded pair (refresh) binds its epoch too, so an older pair is refused. */
const associatedData = (walletId: string, role: ShareRole, epoch: number) => (epoch === 0 ? `${walletId}:${role}` : `${walletId}:${role}:${epoch}`);

export function encryptShare(keks: KekProvider, walletId: string, role: XorShareRole, share: Uint8Array, epoch = 0): EncryptedShare {
  if (role !== 'user' && role !== 'service') throw new Error('share role must be user or service');
  if (!Number.isSafeInteger(epoch) || epoch < 0) throw new Error('epoch must be a whole number');
  const kek = keks.current(role);
  return { role, epoch, kekId: kek.id, ...sealUnderKek(kek, associatedData(walletId, role, epoch), share) };
}

/**
 * Decrypts one share. Any failure (unknown KEK, wrong wallet id or role, tampered data) throws the
 * same plain Error without details, so nothing about the key material leaks through messages.
 */
export function decryptShare(keks: KekProvider, walletId: string, share: EncryptedShare): Uint8Array {
  try {
    if (share.role !== 'user' && share.role !== 'service') throw new Error('bad role');
    return openUnderKek(keks.byId(share.kekId), associatedData(walletId, share.role, share.epoch ?? 0), share.iv, share.ciphertext);
  } catch {
    throw new Error(DECRYPT_FAILED);
  }
}

function pickShares(shares: EncryptedShare[]): { user: EncryptedShare; service: EncryptedShare } {
  const user = shares.filter((s) => s.role === 'user');
  const service = shares.filter((s) => s.role === 'service');
  if (user.length !== 1 || service.length !== 1) {
    throw new Error('wallet must have exactly one user share and one service share');
  }
  if (user[0]!.epoch !== service[0]!.epoch) throw new Error('the user and service shares are of different epochs');
  return { user: user[0]!, service: service[0]! };
}

/**
 * A new pad for the same key (secp256k1 refresh): joins the pair, splits it again with a fresh pad
 * and seals both halves at `epoch`. The old pair still joins to the key, so the caller replaces it
 * and the signer refuses the old epoch from then on.
 */
export function repadShares(keks: KekProvider, walletId: string, shares: EncryptedShare[], epoch: number): EncryptedShare[] {
  const secret = joinWalletSecret(keks, walletId, shares);
  const { user, service } = splitSecret(secret);
  try {
    return [encryptShare(keks, walletId, 'user', user, epoch), encryptShare(keks, walletId, 'service', service, epoch)];
  } finally {
    wipe(secret, user, service);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return (
    (typeof value === 'object' || typeof value === 'function') &&
    value !== null &&
    typeof (value as { then?: unknown }).then === 'function'
  );
}

/**
 * Decrypts both shares, joins them in memory, calls `use` with the secret and wipes the shares and
 * the secret afterwards (also when `use` throws). The secret must not be kept beyond the call.
 * `use` must be synchronous; use `withWalletSecretAsync` for async callbacks.
 */
export function withWalletSecret<T>(
  keks: KekProvider,
  walletId: string,
  shares: EncryptedShare[],
  use: (secret: Uint8Array) => T,
): T {
  const secret = joinWalletSecret(keks, walletId, shares);
  try {
    const result = use(secret);
    if (isThenable(result)) {
      // The secret is wiped when this returns, before the promise would run on; refuse.
      Promise.resolve(result).catch(() => undefined);
      throw new Error('withWalletSecret callback returned a promise; use withWalletSecretAsync');
    }
    return result;
  } finally {
    wipe(secret);
  }
}

/** Async variant of `withWalletSecret`: wipes after the returned promise settles. */
export async function withWalletSecretAsync<T>(
  keks: KekProvider,
  walletId: string,
  shares: EncryptedShare[],
  use: (secret: Uint8Array) => Promise<T> | T,
): Promise<T> {
  const secret = joinWalletSecret(keks, walletId, shares);
  try {
    return await use(secret);
  } finally {
    wipe(secret);
  }
}

/** Decrypts both shares and joins them; the decrypted shares are wiped, the caller wipes the secret. */
function joinWalletSecret(keks: KekProvider, walletId: string, shares: EncryptedShare[]): Uint8Array {
  const picked = pickShares(shares);
  let user: Uint8Array | undefined;
  let service: Uint8Array | undefined;
  try {
    user = decryptShare(keks, walletId, picked.user);
    service = decryptShare(keks, walletId, picked.service);
    return joinShares(user, service);
  } finally {
    wipe(user, service);
  }
}
