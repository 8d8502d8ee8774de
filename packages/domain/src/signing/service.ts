import { invalidRequest } from '../errors.ts';
import type { EncryptedShare } from '../custody/types.ts';
import type { WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { fieldError } from '../shared/zod.ts';
import type { WalletType } from '../wallets/addresses.ts';
import type { WalletService } from '../wallets/service.ts';
import { parseSigningInput, type SigningChain, type SigningContext, type SigningPipeline, type SigningTransfer } from './pipeline.ts';
import { assertSignable, signRouteNames, type SignOperationName } from './signers.ts';

/** sign-transaction with `broadcast: true` (EVM and Solana), provided by the transactions module. */
export type BroadcastSigned = (
  caller: Caller,
  wallet: WalletRecord,
  shares: EncryptedShare[],
  input: Record<string, unknown>,
  rawBody: unknown,
) => Promise<{ body: Record<string, unknown>; headers: Record<string, string> }>;

export interface SigningServiceDeps {
  pipeline: SigningPipeline;
  loadWalletWithShares: WalletService['loadWalletWithShares'];
  broadcastSigned?: BroadcastSigned;
}

type Parsed = Record<string, unknown> & {
  transaction?: unknown;
  network?: string;
  networkPassphrase?: string;
  broadcast?: boolean;
  authorization?: { chainId: number };
  typedData?: { domain: { chainId?: number | string } };
};

/** The chain a sign-route body names (EVM chain id, Solana network, Stellar passphrase). */
export function chainOfSigningInput(type: WalletType, operation: SignOperationName, input: Record<string, unknown>): SigningChain {
  const body = input as Parsed;
  const chain: SigningChain = { walletType: type, chainId: null, network: null };
  if (type === 'EVM') {
    const chainId =
      operation === 'transaction'
        ? (body.transaction as { chainId: number }).chainId
        : operation === 'authorization'
          ? body.authorization?.chainId
          : operation === 'typedData'
            ? body.typedData?.domain.chainId
            : undefined;
    chain.chainId = chainId === undefined ? null : String(chainId);
  } else if (operation === 'transaction') {
    // A Solana broadcast goes to the named network, else to the default one (as the transactions module sends it).
    const broadcastDefault = type === 'SOLANA' && body.broadcast === true ? 'SOLANA' : null;
    chain.network = body.network ?? body.networkPassphrase ?? broadcastDefault;
  }
  return chain;
}

/** Destination and amount of an EVM sign-transaction body; other bodies carry none that is decoded. */
export function transferOfSigningInput(type: WalletType, operation: SignOperationName, input: Record<string, unknown>): SigningTransfer | null {
  if (type !== 'EVM' || operation !== 'transaction') return null;
  const tx = input.transaction as { to: string; value: string };
  return { to: tx.to, value: tx.value, tokenAddress: null };
}

/** The intent of a sign-route body, as the policy engine sees it (real signing and dry runs share it). */
export function signRouteContext(caller: Caller, wallet: WalletRecord, operation: SignOperationName, input: Record<string, unknown>): SigningContext {
  return {
    caller,
    wallet,
    operation,
    action: `wallet.sign.${signRouteNames[operation]}`,
    chain: chainOfSigningInput(wallet.type, operation, input),
    transfer: transferOfSigningInput(wallet.type, operation, input),
    input,
  };
}

/** Parses a sign-route body for the wallet (400 on a bad body or a walletType that is not the wallet's). */
export function parseSignRouteBody(wallet: WalletRecord, operation: SignOperationName, body: unknown): Record<string, unknown> {
  const input = parseSigningInput(wallet.type, operation, body);
  if (operation === 'raw' && input.walletType !== undefined && input.walletType !== wallet.type) {
    throw invalidRequest(`Invalid request: walletType ${String(input.walletType)} does not match this ${wallet.type} wallet`);
  }
  // A type 4 transaction delegates the wallet: only the service builds one (calls/); partners sign delegations with sign-authorization.
  if (operation === 'transaction' && wallet.type === 'EVM' && (input.transaction as { type?: number }).type === 4) {
    throw fieldError('transaction.type', 'must be 0 or 2; sign an EIP-7702 delegation with sign-authorization');
  }
  return input;
}

/**
 * The five REST sign routes: load the wallet in the caller's project, check it may be signed over
 * REST, parse the body for the wallet's type, then hand the intent to the signing pipeline (or to
 * the transactions module for `broadcast: true`, which signs through the same pipeline).
 */
export function createSigningService({ pipeline, loadWalletWithShares, broadcastSigned }: SigningServiceDeps) {
  return {
    async sign(
      caller: Caller,
      walletId: string,
      operation: SignOperationName,
      body: unknown,
    ): Promise<{ body: Record<string, unknown>; headers: Record<string, string> }> {
      const { wallet, shares } = await loadWalletWithShares(caller, walletId);
      assertSignable(wallet);
      const input = parseSignRouteBody(wallet, operation, body);
      if (operation === 'transaction' && input.broadcast === true) {
        if (wallet.type !== 'EVM' && wallet.type !== 'SOLANA') {
          throw invalidRequest(`broadcast: true is not supported for ${wallet.type} wallets; omit it to sign only`);
        }
        if (!broadcastSigned) throw invalidRequest('Broadcasting is not configured in this deployment');
        return broadcastSigned(caller, wallet, shares, input, body);
      }
      const result = await pipeline.sign({ ...signRouteContext(caller, wallet, operation, input), shares });
      return { body: result.response, headers: {} };
    },
  };
}

export type SigningService = ReturnType<typeof createSigningService>;
