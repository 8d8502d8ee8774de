/** What every vault handler does with its params and the domain's and FROST's refusals. */
import { ApiError, decodeVaultValue, nativeOutflow, signOperation, type KeyMaterial, type SignOperationName, type VaultWallet } from '@wallet/domain';
import { FrostError } from '@wallet/frost-ed25519';
import type { z } from 'zod';
import { SignerError } from '../server/errors.ts';

export function parseParams<S extends z.ZodType>(schema: S, params: unknown): z.output<S> {
  const result = schema.safeParse(decodeVaultValue(params));
  if (!result.success) {
    const issue = result.error.issues[0];
    throw new SignerError('INVALID_PARAMS', `invalid params${issue ? ` at ${issue.path.join('.') || '(root)'}: ${issue.message}` : ''}`, 400);
  }
  return result.data;
}

/** An ApiError the domain threw for bad input (400) crosses as itself; the API passes it on. */
export async function domainCall<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ApiError && error.status === 400) throw new SignerError(error.code, error.message, 400, error.extra);
    throw error;
  }
}

/** A FrostError (a peer's bad point, proof, share or a protocol misuse) is answered with its code; its messages name no secret. */
export function frostCall<T>(run: () => T): T {
  try {
    return run();
  } catch (error) {
    if (error instanceof FrostError) {
      throw new SignerError(`FROST_${error.code}`, error.message, 400, error.participant === undefined ? undefined : { participant: error.participant });
    }
    throw error;
  }
}

export interface EpochStore {
  epochOf(walletId: string): number;
  advanceEpoch(walletId: string, epoch: number): Promise<void>;
}

/** A sealed share of an epoch below the signer's record for the wallet was replaced by a refresh or conversion: refused. */
export function assertCurrentEpoch(epochs: EpochStore, walletId: string, shareEpochs: number[]): void {
  const current = epochs.epochOf(walletId);
  const stale = shareEpochs.find((epoch) => epoch < current);
  if (stale !== undefined) {
    throw new SignerError('SHARE_EPOCH_RETIRED', `the sealed share is of epoch ${stale}, but this wallet's shares were replaced at epoch ${current}; use the current shares`, 409, { walletId, epoch: stale, current });
  }
}

export interface SignatureLog {
  appendSignature(entry: { walletId: string; digest: string; requestId: string | null; action?: string; presignature?: string }): Promise<unknown>;
}

export interface SignatureLimits {
  admit(walletId: string, native: { chain: 'EVM' | 'SOLANA'; value: bigint } | null): void;
}

/** The signer's own limits on one wallet signature: the per-wallet rate and the native value the payload moves. */
export async function admitSignature(
  deps: { limits: SignatureLimits; capsValue(chain: 'EVM' | 'SOLANA'): boolean },
  wallet: VaultWallet,
  operation: SignOperationName,
  input: Record<string, unknown>,
): Promise<void> {
  const outflow = await domainCall(async () => nativeOutflow(wallet, operation, input));
  if (outflow && outflow.value === null && deps.capsValue(outflow.chain)) {
    throw new SignerError('SIGNER_LIMIT_EXCEEDED', 'the native value this transaction moves cannot be decoded, and the signer caps native value', 403, { limit: 'nativeValueCap' });
  }
  deps.limits.admit(wallet.id, outflow && outflow.value !== null ? { chain: outflow.chain, value: outflow.value } : null);
}

/**
 * What the operation signs for this input, derived by the signer itself: the chain operation runs
 * with a key that records what it is asked to sign (an Ed25519 message or a secp256k1 digest) and
 * answers a placeholder signature. The operation's output is dropped; its `digest` is what the log
 * records, as the API's audit row does. Exactly one signature must be asked for.
 */
export async function capturePayload(wallet: VaultWallet, operation: SignOperationName, input: Record<string, unknown>, publicKey: Uint8Array, kind: 'ed25519' | 'secp256k1') {
  const captured: Uint8Array[] = [];
  const wrongCurve = async (): Promise<never> => {
    throw new SignerError('INVALID_PARAMS', `a ${kind === 'ed25519' ? 'Ed25519' : 'secp256k1'} wallet makes no ${kind === 'ed25519' ? 'secp256k1' : 'Ed25519'} signature`, 400);
  };
  const key: KeyMaterial = {
    address: wallet.address,
    publicKey,
    signDigest:
      kind === 'secp256k1'
        ? async (digest) => {
            captured.push(Uint8Array.from(digest));
            return { signature: new Uint8Array(64), recoveryId: 0 };
          }
        : wrongCurve,
    signEd25519:
      kind === 'ed25519'
        ? async (message) => {
            captured.push(Uint8Array.from(message));
            return new Uint8Array(64);
          }
        : wrongCurve,
  };
  const out = await domainCall(() => signOperation(wallet.type, operation).sign(key, input));
  if (captured.length !== 1) throw new SignerError(kind === 'ed25519' ? 'FROST_NOTHING_TO_SIGN' : 'DKLS_NOTHING_TO_SIGN', 'the operation asks for no single signature with this input', 409);
  return { payload: captured[0]!, logDigest: out.digest };
}
