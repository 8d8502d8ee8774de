import type { Client } from 'openapi-fetch';
import { unwrap } from './errors.ts';
import type { operations, paths } from './generated/openapi.ts';

type Operation = operations['getWalletBalances'];
/** `GET /v1/wallets/{walletId}/balances`: EVM (`type: 'EVM'`, entries with `blockNumber`) or Solana (`type: 'SOLANA'`, entries with `slot`). */
export type WalletBalances = Operation['responses'][200]['content']['application/json'];
/** `{ chainId }` for an EVM wallet (required), `{ network }` for a Solana one (default `SOLANA`). */
export type BalancesQuery = NonNullable<Operation['parameters']['query']>;

export interface BalancesResource {
  /**
   * The wallet's balances on one chain, read from the chain now; throws `WalletApiError` on an error
   * answer (400 `UNSUPPORTED_CHAIN`, `UNSUPPORTED_WALLET_TYPE`, 404, 503 `RPC_UNAVAILABLE`, ...).
   */
  get(walletId: string, query?: BalancesQuery, options?: { signal?: AbortSignal }): Promise<WalletBalances>;
}

export function balancesResource(client: Client<paths, 'application/json'>): BalancesResource {
  return {
    get: (walletId, query = {}, options = {}) =>
      unwrap(client.GET('/v1/wallets/{walletId}/balances', { params: { path: { walletId }, query }, signal: options.signal })),
  };
}
