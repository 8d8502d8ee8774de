import { ApiError, invalidRequest } from '../errors.ts';
import type { WalletRecord } from '../ports.ts';
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

export const signRouteNames: Record<SignOperationName, string> = {
  message: 'sign-message',
  raw: 'sign-raw',
  transaction: 'sign-transaction',
  typedData: 'sign-typed-data',
  authorization: 'sign-authorization',
};

/** The operation of the capability matrix; a "no" cell is 400 (COSMOS sign-transaction points to sign-raw). */
export function signOperation(type: WalletType, operation: SignOperationName): SignOperation {
  const op = signers[type][operation];
  if (op) return op;
  const hint = type === 'COSMOS' && operation === 'transaction' ? '; sign the exact sign bytes with sign-raw instead' : '';
  throw invalidRequest(`${signRouteNames[operation]} is not supported for ${type} wallets${hint}`);
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
