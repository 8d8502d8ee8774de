/**
 * The key vault over the signer's transport: method names, a codec for the values that cross
 * (dates, big integers; byte strings are the transport's) and the strict schemas the signer checks every call's params with,
 * since the caller may be a compromised API process. No key material is handled here.
 */
import { z } from 'zod';
import { DKLS_SHARE_MAX_BYTES } from './dkls-share.ts';
import { SERVICE_KEY_PURPOSES } from './service-keys.ts';

export const VAULT_METHODS = {
  createWalletKey: 'vault.createWalletKey',
  sign: 'vault.sign',
  createEnclaveKey: 'vault.createEnclaveKey',
  sealMigratedUserShare: 'vault.sealMigratedUserShare',
  createServiceKey: 'vault.createServiceKey',
  signWithServiceKey: 'vault.signWithServiceKey',
  /** FROST(Ed25519): DKG round trip 1 (the API's round-1 package; the signer's round 1 and 2 back). */
  frostDkgStart: 'vault.frost.dkgStart',
  /** FROST DKG round trip 2 (the API's round-2 package; the signer's sealed share and recovery contribution back). */
  frostDkgFinish: 'vault.frost.dkgFinish',
  /** One FROST signature: the signer re-derives the message from the operation and answers its share. */
  frostSign: 'vault.frost.sign',
  /** Conversion of an XOR-split Ed25519 wallet: trusted-dealer split in the signer, participant 1's share back. */
  frostImport: 'vault.frost.import',
  frostRefreshStart: 'vault.frost.refreshStart',
  frostRefreshFinish: 'vault.frost.refreshFinish',
  /** secp256k1 refresh: a new XOR pad for the same key, sealed at the next epoch. */
  xorRepad: 'vault.xor.repad',
  /** After the new shares are stored: the signer records their epoch and refuses older shares from then on. */
  commitEpoch: 'vault.commitEpoch',
} as const;

/** Sets `key` as an own data property: a key `__proto__` (JSON.parse makes one) stays one, as Object.fromEntries keeps it, instead of setting the prototype. */
function setOwn(out: Record<string, unknown>, key: string, v: unknown): void {
  if (key === '__proto__') Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
  else out[key] = v;
}

/**
 * The vault's values as the signer's transport carries them: dates as `{ $date: iso }`, bigints as
 * `{ $bigint: decimal }`, a one-key object whose key starts with `$` as `{ $literal: [[key, value]] }`,
 * byte strings as copies (`Uint8Array`: the transport attaches them to the
 * frame, apps/signer/src/transport/frames.ts, and hands them back as `Uint8Array`s). Copies, since
 * the frame may be written after the caller has wiped its buffers (a handler's `finally`).
 */
export function encodeVaultValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object') return typeof value === 'bigint' ? { $bigint: value.toString() } : value;
  if (value instanceof Uint8Array) return new Uint8Array(value);
  if (value instanceof Date) return { $date: value.toISOString() };
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = encodeVaultValue(value[i]);
    return out;
  }
  const keys = Object.keys(value).filter((key) => (value as Record<string, unknown>)[key] !== undefined);
  // A one-key object whose key starts with `$` would read as a tag (`$date`, the transport's `$b`…):
  // one of the caller's own (an EIP-712 message may have any field names) goes as its entries.
  if (keys.length === 1 && keys[0]!.startsWith('$')) return { $literal: [[keys[0], encodeVaultValue((value as Record<string, unknown>)[keys[0]!])]] };
  const out: Record<string, unknown> = {};
  for (const key of keys) setOwn(out, key, encodeVaultValue((value as Record<string, unknown>)[key]));
  return out;
}

export function decodeVaultValue(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || value instanceof Uint8Array) return value;
  if (Array.isArray(value)) {
    const out = new Array<unknown>(value.length);
    for (let i = 0; i < value.length; i++) out[i] = decodeVaultValue(value[i]);
    return out;
  }
  const keys = Object.keys(value);
  if (keys.length === 1) {
    const tag = keys[0]!;
    const inner = (value as Record<string, unknown>)[tag];
    if (tag === '$date' && typeof inner === 'string' && !Number.isNaN(Date.parse(inner))) return new Date(inner);
    if (tag === '$bigint' && typeof inner === 'string' && /^-?\d{1,80}$/.test(inner)) return BigInt(inner);
    if (tag === '$literal' && Array.isArray(inner) && inner.every((entry) => Array.isArray(entry) && entry.length === 2 && typeof entry[0] === 'string')) {
      const out: Record<string, unknown> = {};
      for (const [key, v] of inner as Array<[string, unknown]>) setOwn(out, key, decodeVaultValue(v));
      return out;
    }
  }
  const out: Record<string, unknown> = {};
  for (const key of keys) setOwn(out, key, decodeVaultValue((value as Record<string, unknown>)[key]));
  return out;
}

const bytes = (length?: number) => z.instanceof(Uint8Array).refine((b) => length === undefined || b.length === length, `must be ${length} bytes`);
const uuid = z.uuid();
const kekId = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/);
const hex32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/);

const epoch = z.number().int().min(0).max(0x7fffffff);
export const encryptedShareSchema = z.strictObject({
  role: z.enum(['user', 'service', 'frost-api', 'frost-signer', 'recovery-api', 'recovery-signer']),
  epoch,
  kekId,
  iv: bytes(12),
  ciphertext: bytes().refine((b) => b.length <= 4096, 'too long'),
});

/**
 * The signer-side share `commitEpoch` opens to prove the new epoch's shares exist: an XOR or FROST
 * share (at most 4096 bytes, as everywhere), or a DKLs23 participant-2 share, which carries its OT
 * correlations (24 856 bytes sealed) and is bounded as every DKLs23 share is, by DKLS_SHARE_MAX_BYTES.
 */
const commitShareSchema = z.union([
  encryptedShareSchema,
  encryptedShareSchema.extend({ role: z.literal('dkls-signer'), ciphertext: bytes().refine((b) => b.length <= DKLS_SHARE_MAX_BYTES, 'too long') }),
]);

export const vaultWalletSchema = z.strictObject({
  id: uuid,
  type: z.enum(['EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI']),
  scheme: z.enum(['DKLS', 'ED25519']),
  address: z.string().min(1).max(128),
  publicKey: z.string().min(1).max(256).optional(),
});

const walletWithKey = vaultWalletSchema.extend({ publicKey: z.string().min(1).max(256) });
const ed25519Wallet = walletWithKey.extend({ type: z.enum(['SOLANA', 'STELLAR', 'SUI']), scheme: z.literal('ED25519') });
const point = bytes(32);
const participant = z.number().int().min(1).max(3);
const sessionId = z.string().regex(/^[0-9a-f]{32}$/);
export const frostRound1Schema = z.strictObject({ identifier: participant, commitment: z.array(point).min(1).max(2), proof: z.strictObject({ R: point, z: bytes(32) }) });
export const frostRound2Schema = z.strictObject({ sender: participant, recipient: participant, share: bytes(32) });
export const frostCommitmentsSchema = z.strictObject({ identifier: participant, hiding: point, binding: point });
export const frostPublicKeyPackageSchema = z.strictObject({ groupPublicKey: point, verifyingShares: z.array(point).length(3) });
const signOperationName = z.enum(['message', 'raw', 'transaction', 'typedData', 'authorization']);

const serviceKeyRowSchema = z.strictObject({
  purpose: z.enum(SERVICE_KEY_PURPOSES as unknown as ['sponsor', 'relayer']),
  chainId: z.number().int().positive().max(0x7fffffff),
  address: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
  kekId,
  iv: bytes(12),
  encryptedPrivateKey: bytes(),
  createdAt: z.date(),
});

const enclaveKeyRowSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{64}$/),
  publicKeyPem: z.string().max(4096),
  kekId,
  iv: bytes(12),
  encryptedPrivateKey: bytes(),
  createdAt: z.date(),
});

export const vaultParams = {
  createWalletKey: z.strictObject({ walletId: uuid, scheme: z.enum(['DKLS', 'ED25519']), clientHeldUserShare: z.boolean() }),
  sign: z.strictObject({
    wallet: vaultWalletSchema,
    shares: z.array(encryptedShareSchema).min(1).max(3),
    operation: signOperationName,
    input: z.record(z.string(), z.unknown()),
    requestId: z.string().max(256).nullable(),
    action: z.string().min(1).max(128),
  }),
  createEnclaveKey: z.strictObject({ now: z.date() }),
  sealMigratedUserShare: z.strictObject({
    wallet: vaultWalletSchema.extend({ publicKey: z.string().min(1).max(256) }),
    serviceShare: encryptedShareSchema,
    enclaveKey: enclaveKeyRowSchema,
    encryptedPayload: z.string().max(1024 * 1024),
  }),
  createServiceKey: z.strictObject({ purpose: serviceKeyRowSchema.shape.purpose, chainId: serviceKeyRowSchema.shape.chainId, now: z.date() }),
  signWithServiceKey: z.strictObject({
    row: serviceKeyRowSchema,
    request: z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('hash'), hash: hex32 }),
      z.strictObject({ kind: z.literal('sponsorship'), hash: hex32 }),
      z.strictObject({ kind: z.literal('relayer-transaction'), serializedTransaction: z.string().regex(/^0x[0-9a-fA-F]{2,262144}$/) }),
    ]),
  }),
  frostDkgStart: z.strictObject({ walletId: uuid, round1: frostRound1Schema }),
  frostDkgFinish: z.strictObject({ sessionId, walletId: uuid, round2: frostRound2Schema }),
  frostSign: z.strictObject({
    wallet: ed25519Wallet,
    share: encryptedShareSchema,
    operation: signOperationName,
    input: z.record(z.string(), z.unknown()),
    requestId: z.string().max(256).nullable(),
    action: z.string().min(1).max(128),
    /** What the API asks to sign; the signer derives it itself and refuses when they differ. */
    message: bytes().refine((b) => b.length <= 128 * 1024, 'too long'),
    commitments: frostCommitmentsSchema,
  }),
  frostImport: z.strictObject({ wallet: ed25519Wallet, shares: z.array(encryptedShareSchema).length(2) }),
  frostRefreshStart: z.strictObject({ wallet: ed25519Wallet, share: encryptedShareSchema, round1: frostRound1Schema }),
  frostRefreshFinish: z.strictObject({ sessionId, walletId: uuid, round2: frostRound2Schema }),
  xorRepad: z.strictObject({ wallet: walletWithKey, shares: z.array(encryptedShareSchema).length(2) }),
  commitEpoch: z.strictObject({ wallet: walletWithKey, share: commitShareSchema }),
} as const;
