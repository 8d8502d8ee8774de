/**
 * The signer's methods for the operator's recovery of a lost online share (`npm run custody --
 * recover`), their strict params, and what both sides bind into them:
 *
 * - `inspect`: whether the signer's stored sealed share of a FROST or DKLs23 wallet opens, with the
 *   public verifying shares it holds and the wallet's epoch in the signer's store. Public data only.
 * - `contribute` (the API's share is lost): the signer answers its own share to a caller that proves
 *   knowledge of participant 3's share (a Schnorr proof under Y₃ from the signer's own sealed share,
 *   bound to the wallet, its epoch, the target and a single-use challenge from `inspect`). Only the holder of the offline recovery key can
 *   make that proof; the API's mTLS credentials alone get nothing. With two helpers the rebuilding
 *   party learns both terms of the interpolation whatever is sent, so the share itself is sent.
 * - `seal` (the signer's share is lost): the signer checks a rebuilt participant-2 share against the
 *   wallet's key and its verifying shares and seals it under its current service KEK at the stored
 *   epoch. Whoever can compute a valid share already holds two shares, so this gives a caller nothing.
 *
 * A rebuilt threshold ECDSA share has no OT correlations; it is stored as `unusable` with a placeholder
 * setup (`placeholderKeyShare`), so it can only be refreshed (which runs a fresh OT setup), never sign.
 */
import { randomBytes } from 'node:crypto';
import { KeyShare } from '@wallet/threshold-ecdsa';
import { z } from 'zod';
import { dklsShareSchema } from './dkls-rpc.ts';
import { encryptedShareSchema, vaultWalletSchema, type frostPublicKeyPackageSchema } from './vault-rpc.ts';

export const RECOVER_METHODS = {
  inspect: 'vault.recover.inspect',
  contribute: 'vault.recover.contribute',
  seal: 'vault.recover.seal',
} as const;

const bytes = (length: number) => z.instanceof(Uint8Array).refine((b) => b.length === length, `must be ${length} bytes`);
const walletWithKey = vaultWalletSchema.extend({ publicKey: z.string().min(1).max(256) });
const signerShare = z.union([encryptedShareSchema, dklsShareSchema]);
const epoch = z.number().int().min(0).max(0x7fffffff);
const secpPoint = bytes(33);
export const verifyingSharesSchema = z.tuple([secpPoint, secpPoint, secpPoint]);
/** R is 32 bytes (Ed25519) or 33 (secp256k1), z 32. */
const proof = z.strictObject({ R: z.instanceof(Uint8Array).refine((b) => b.length === 32 || b.length === 33, 'must be 32 or 33 bytes'), z: bytes(32) });

export const recoverParams = {
  inspect: z.strictObject({ wallet: walletWithKey, share: signerShare }),
  contribute: z.strictObject({ wallet: walletWithKey, share: signerShare, target: z.literal(1), challenge: z.string().regex(/^[0-9a-f]{32}$/), proof }),
  seal: z.strictObject({
    wallet: walletWithKey,
    epoch,
    /** FROST: the share's plaintext encoding (key package and public key package); DKLs23: p(2), 32 bytes. */
    share: z.instanceof(Uint8Array).refine((b) => b.length === 32 || b.length === 162, 'must be a FROST share encoding or a 32-byte share'),
    /** DKLs23 only: Y₁, Y₂, Y₃. */
    verifyingShares: verifyingSharesSchema.optional(),
  }),
} as const;

/** What `inspect` answers. */
export interface RecoverInspection {
  opens: boolean;
  /** The wallet's epoch in the signer's store. */
  epoch: number;
  /** When the share opens: a single-use challenge (60 s) that a proof for `contribute` must be bound to. */
  challenge?: string;
  /** FROST, when the share opens. */
  publicKeyPackage?: z.infer<typeof frostPublicKeyPackageSchema>;
  /** DKLs23, when the share opens: Y₁, Y₂, Y₃. */
  verifyingShares?: [Uint8Array, Uint8Array, Uint8Array];
}

/** What `contribute` answers: FROST, the share's plaintext encoding; DKLs23, p(2) with Y₁, Y₂, Y₃. */
export interface RecoverContribution {
  share: Uint8Array;
  verifyingShares?: [Uint8Array, Uint8Array, Uint8Array];
}

/** The context a proof of participant 3's share is bound to: the wallet, the epoch, the target and the signer's single-use challenge. */
export const recoverProofContext = (walletId: string, scheme: 'ED25519' | 'DKLS', epoch: number, target: 1 | 2, challenge: string) =>
  new Uint8Array(Buffer.from(`wallet-recovery-proof:v1:${walletId}:${scheme}:${epoch}:${target}:${challenge}`));

const KAPPA = 256;

/**
 * A rebuilt DKLs23 share (no OT correlations) in a form that can be sealed: OT status `unusable` with a
 * random placeholder setup id and zero correlations. `KeyShare.decode` checks the share against its
 * verifying share and the verifying shares against the key. The caller wipes `secret` and the result.
 */
export function placeholderKeyShare(partyId: 1 | 2, secret: Uint8Array, verifyingShares: readonly [Uint8Array, Uint8Array, Uint8Array], publicKey: Uint8Array): KeyShare {
  const head = Buffer.concat([Uint8Array.of(0x4b, 1, partyId), secret, ...verifyingShares, publicKey, Uint8Array.of(2), randomBytes(32)]);
  const encoded = new Uint8Array(head.length + 32 + 3 * KAPPA * 32);
  encoded.set(head, 0);
  head.fill(0);
  try {
    return KeyShare.decode(encoded);
  } finally {
    encoded.fill(0);
  }
}
