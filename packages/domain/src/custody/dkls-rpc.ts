/**
 * Threshold ECDSA (DKLs23) between the API (participant 1, who starts every exchange) and the signer
 * (participant 2) over the vault transport: method names and the strict schemas the signer checks
 * every call's params with. Each exchange carries the protocol messages one party made since its
 * last one (`@wallet/threshold-ecdsa`'s step machines): key generation takes 5 exchanges, an OT
 * setup 4, a signature 3 (2 message independent, then the digest), or 1 with a presignature made
 * ahead for the pool (its 2 exchanges `signStart` with `pool: true` and `step`, earlier).
 */
import { z } from 'zod';
import { DKLS_SHARE_MAX_BYTES } from './dkls-share.ts';
import { encryptedShareSchema, vaultWalletSchema } from './vault-rpc.ts';

export const DKLS_METHODS = {
  /** Exchange 1 of key generation: the API's DKG hello; the signer's hello and commitment back, under a new session. */
  keygenStart: 'vault.dkls.keygenStart',
  /**
   * Exchange 1 of a conversion of an isolated wallet (its XOR halves): the signer joins the key once,
   * deals it into DKLs23 shares at the next epoch (trusted dealer), answers participant 1's share in
   * the clear with participant 3's sealed to the recovery key, and its first OT setup message.
   */
  importStart: 'vault.dkls.importStart',
  /**
   * Exchange 1 of a share refresh (5 exchanges: the refresh by a sharing of zero, then an OT setup for
   * the new shares), with the signer's share of the current epoch; the new shares are of the next.
   */
  refreshStart: 'vault.dkls.refreshStart',
  /** Exchange 1 of a fresh OT setup for an existing wallet (after an abort). */
  otSetupStart: 'vault.dkls.otSetupStart',
  /** Exchange 1 of a signature: the signer opens its share (current epoch and OT setup only). */
  signStart: 'vault.dkls.signStart',
  /** Any later exchange of a session; the last one of key generation or OT setup answers the signer's sealed share. */
  step: 'vault.dkls.step',
  /**
   * The digest exchange: the signer derives the digest itself, applies its limits, records the
   * presignature used, then answers. For a pooled presignature it is the only exchange of the signature.
   */
  signFinish: 'vault.dkls.signFinish',
} as const;

const bytes = (max: number) => z.instanceof(Uint8Array).refine((b) => b.length > 0 && b.length <= max, `must be 1 to ${max} bytes`);
/** The largest protocol message is signing round 2 (53 607 bytes). */
const message = bytes(64 * 1024);
const messages = z.array(message).min(1).max(2);
const uuid = z.uuid();
const sessionId = z.string().regex(/^[0-9a-f]{32}$/);
const kekId = z.string().regex(/^[A-Za-z0-9._-]{1,64}$/);
const epoch = z.number().int().min(0).max(0x7fffffff);

export const dklsShareSchema = z.strictObject({
  role: z.enum(['dkls-api', 'dkls-signer']),
  epoch,
  kekId,
  iv: z.instanceof(Uint8Array).refine((b) => b.length === 12, 'must be 12 bytes'),
  ciphertext: bytes(DKLS_SHARE_MAX_BYTES),
});

const secpWallet = vaultWalletSchema.extend({ type: z.enum(['EVM', 'COSMOS']), scheme: z.literal('DKLS'), publicKey: z.string().min(1).max(256) });
const signOperationName = z.enum(['message', 'raw', 'transaction', 'typedData', 'authorization']);

export const dklsParams = {
  keygenStart: z.strictObject({ walletId: uuid, messages: z.array(message).length(1) }),
  importStart: z.strictObject({ wallet: secpWallet, shares: z.array(encryptedShareSchema).length(2) }),
  otSetupStart: z.strictObject({ wallet: secpWallet, share: dklsShareSchema, messages: z.array(message).length(1) }),
  refreshStart: z.strictObject({ wallet: secpWallet, share: dklsShareSchema, messages: z.array(message).length(1) }),
  /** `pool`: the presignature is for the signer's pool (its own bounds) instead of the next 30 s. */
  signStart: z.strictObject({ wallet: secpWallet, share: dklsShareSchema, messages: z.array(message).length(1), pool: z.literal(true).optional() }),
  step: z.strictObject({ sessionId, walletId: uuid, messages }),
  signFinish: z.strictObject({
    sessionId,
    wallet: secpWallet,
    operation: signOperationName,
    input: z.record(z.string(), z.unknown()),
    requestId: z.string().max(256).nullable(),
    action: z.string().min(1).max(128),
    /** What the API asks to sign; the signer derives it itself and refuses when they differ. */
    digest: z.instanceof(Uint8Array).refine((b) => b.length === 32, 'must be 32 bytes'),
    message,
  }),
} as const;

/** What the signer answers to every exchange. */
export interface DklsExchange {
  sessionId: string;
  messages: Uint8Array[];
  /** True once the signer's side of the protocol has finished. */
  done: boolean;
}

/** The last exchange of key generation, a conversion's or a refresh's OT setup, or an OT setup also answers the signer's sealed share (and, for key generation and a refresh, its recovery contribution). */
export interface DklsSealed {
  signerShare: { role: 'dkls-signer'; epoch: number; kekId: string; iv: Uint8Array; ciphertext: Uint8Array };
  recoveryShare: { role: 'recovery-signer'; epoch: number; kekId: string; iv: Uint8Array; ciphertext: Uint8Array } | null;
  /** 33-byte compressed public key. */
  publicKey: Uint8Array;
  otSetupId: string;
}

/**
 * The answer to `importStart`: the signer's first OT setup message (participant 2 speaks first here:
 * the API has no share before this answer), and the dealt shares of participants 1 and 3.
 */
export interface DklsImportStart extends DklsExchange {
  /**
   * Participant 1's dealt share (the KeyShare encoding, without OT correlations) in the clear, only
   * over mTLS to the API, which runs the OT setup with it, seals it under its own KEK and wipes it.
   */
  apiShare: Uint8Array;
  /** Participant 3's p(3) with Y_3, sealed to the recovery key (`ecdsa-dealt-share`) at `epoch`. */
  recoveryShare: { role: 'recovery-signer'; epoch: number; kekId: string; iv: Uint8Array; ciphertext: Uint8Array };
  /** The epoch the new shares are sealed at (above the halves'); the signer records it at `commitEpoch`. */
  epoch: number;
}

export type DklsStepResult = DklsExchange & { sealed: DklsSealed | null };

export interface DklsFinish {
  message: Uint8Array;
}
