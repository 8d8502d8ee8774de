import { ApiError, invalidRequest } from '../errors.ts';
import { withWalletSecretAsync, type KekProvider } from '../custody/shares.ts';
import { publicKeyFromSecret } from '../custody/keys.ts';
import type { AuditEntry, AuditStore, WalletRecord } from '../ports.ts';
import type { EncryptedShare } from '../custody/shares.ts';
import type { WalletService } from '../wallets/service.ts';
import { transactionSignedEvent } from '../events/events.ts';
import type { Caller } from '../shared/caller.ts';
import { parseInput } from '../shared/zod.ts';
import type { WalletType } from '../wallets/addresses.ts';
import type { ChainSigner, SignOperation } from './types.ts';
import { cosmosSigner } from './cosmos.ts';
import { evmSigner } from './evm.ts';
import { solanaSigner } from './solana.ts';
import { stellarSigner } from './stellar.ts';
import { suiSigner } from './sui.ts';

export const signers: Record<WalletType, ChainSigner> = {
  EVM: evmSigner,
  COSMOS: cosmosSigner,
  SOLANA: solanaSigner,
  STELLAR: stellarSigner,
  SUI: suiSigner,
};

export type SignOperationName = 'message' | 'raw' | 'transaction' | 'typedData' | 'authorization';

const routeNames: Record<SignOperationName, string> = {
  message: 'sign-message',
  raw: 'sign-raw',
  transaction: 'sign-transaction',
  typedData: 'sign-typed-data',
  authorization: 'sign-authorization',
};

function unsupported(type: WalletType, operation: SignOperationName): ApiError {
  const hint = type === 'COSMOS' && operation === 'transaction' ? '; sign the exact sign bytes with sign-raw instead' : '';
  return invalidRequest(`${routeNames[operation]} is not supported for ${type} wallets${hint}`);
}

/** REST signing is allowed only for API-key-managed wallets: not claimed, user share held here. */
export function assertSignable(wallet: WalletRecord): void {
  if (wallet.claimedAt) {
    throw new ApiError(409, 'WALLET_ALREADY_CLAIMED', 'This wallet was claimed by its user; REST signing is no longer allowed');
  }
  if (wallet.custody !== 'api_key') {
    throw new ApiError(409, 'WALLET_NOT_MIGRATED', "This wallet's user share is held by the client; migrate it with POST /v1/wallets/{walletId}/migrate-share");
  }
  if (wallet.status !== 'ready') throw new ApiError(409, 'WALLET_NOT_READY', 'Key generation of this wallet is not complete');
}

/**
 * Joins the wallet key in memory, runs one signing operation, wipes the key. The one place a
 * wallet key exists in clear; REST signing, transfers and broadcasts all sign through here.
 */
export function signWithWallet(
  keks: KekProvider,
  wallet: WalletRecord,
  shares: EncryptedShare[],
  op: SignOperation,
  input: unknown,
): ReturnType<SignOperation['sign']> {
  return withWalletSecretAsync(keks, wallet.id, shares, (secret) => {
    let publicKey: Uint8Array | undefined;
    // Derived only by the signers that need it (secp256k1 derivation costs as much as a signature).
    const key = {
      secret,
      address: wallet.address,
      get publicKey() {
        return (publicKey ??= publicKeyFromSecret(wallet.scheme, secret));
      },
    };
    return op.sign(key, input);
  });
}

/** The audit row of one signature: what was signed (digest), never key material. */
export function signatureAudit(caller: Caller, wallet: WalletRecord, shares: EncryptedShare[], action: string, digest: string, chainId: string | null | undefined): AuditEntry {
  return {
    projectId: caller.projectId,
    apiKeyId: caller.apiKeyId,
    walletId: wallet.id,
    requestId: caller.requestId,
    action,
    details: { digest, chainId: chainId ?? null, kekIds: shares.map((s) => s.kekId).sort() },
  };
}

/** sign-transaction with `broadcast: true` (EVM and Solana), provided by the transactions module. */
export type BroadcastSigned = (
  caller: Caller,
  wallet: WalletRecord,
  shares: EncryptedShare[],
  input: Record<string, unknown>,
  rawBody: unknown,
) => Promise<{ body: Record<string, unknown>; headers: Record<string, string> }>;

export interface SigningServiceDeps {
  audit: AuditStore;
  keks: KekProvider;
  loadWalletWithShares: WalletService['loadWalletWithShares'];
  broadcastSigned?: BroadcastSigned;
}

/**
 * The signing pipeline: load the wallet in the caller's project, check it may be signed over REST,
 * parse the body for the wallet's type, (policy evaluation joins here), join the key in memory,
 * sign, wipe, and append the audit row.
 */
export function createSigningService({ audit, keks, loadWalletWithShares, broadcastSigned }: SigningServiceDeps) {
  return {
    async sign(
      caller: Caller,
      walletId: string,
      operation: SignOperationName,
      body: unknown,
    ): Promise<{ body: Record<string, unknown>; headers: Record<string, string> }> {
      const { wallet, shares } = await loadWalletWithShares(caller, walletId);
      assertSignable(wallet);
      const op = signers[wallet.type][operation];
      if (!op) throw unsupported(wallet.type, operation);
      const input = parseInput(op.body, body) as Record<string, unknown>;
      if (operation === 'raw' && input.walletType !== undefined && input.walletType !== wallet.type) {
        throw invalidRequest(`Invalid request: walletType ${String(input.walletType)} does not match this ${wallet.type} wallet`);
      }
      if (operation === 'transaction' && input.broadcast === true) {
        if (wallet.type !== 'EVM' && wallet.type !== 'SOLANA') {
          throw invalidRequest(`broadcast: true is not supported for ${wallet.type} wallets; omit it to sign only`);
        }
        if (!broadcastSigned) throw invalidRequest('Broadcasting is not configured in this deployment');
        return broadcastSigned(caller, wallet, shares, input, body);
      }
      const result = await signWithWallet(keks, wallet, shares, op, input);
      await audit.append(signatureAudit(caller, wallet, shares, `wallet.sign.${routeNames[operation]}`, result.digest, result.chainId), [
        transactionSignedEvent(caller.projectId, wallet, result.chainId ?? null, new Date()),
      ]);
      return { body: result.response, headers: {} };
    },
  };
}

export type SigningService = ReturnType<typeof createSigningService>;
