import type { OpenNonceHold } from '../approvals/nonce-holds.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { createYieldOperationService } from './operation-service.ts';
import type { YieldOperationStore } from './operations.ts';
import type { WalletService } from '../wallets/service.ts';
import type { YieldExecutionSwitch } from './execution.ts';
import { buildYieldMarkets, requireEvmYieldWallet, resolveYieldMarket, type YieldCatalogDeps, type YieldMarket, type YieldMarketSelector } from './markets.ts';

/** The environment's market catalog: what GET .../yield/markets lists and the only markets the yield routes accept. */
export interface YieldMarketCatalog {
  list(): YieldMarket[];
  /** See `resolveYieldMarket`: 400 INVALID_REQUEST for an unknown id, a mismatched chain, or neither given. */
  resolve(selector: YieldMarketSelector): YieldMarket;
}

export function createYieldMarketCatalog(deps: YieldCatalogDeps): YieldMarketCatalog {
  // The chain registry and the devnet deployment are fixed once the process has started.
  let markets: YieldMarket[] | undefined;
  const list = () => (markets ??= buildYieldMarkets(deps));
  return {
    list: () => [...list()],
    resolve: (selector) => resolveYieldMarket(list(), selector),
  };
}

export interface YieldServiceDeps {
  catalog: YieldMarketCatalog;
  execution: YieldExecutionSwitch;
  loadWallet: WalletService['loadWallet'];
  operations: YieldOperationStore;
  clock: Clock;
  openNonceHold?: OpenNonceHold;
}

/** The yield use cases of the REST routes: markets, deposits, withdrawals, operations. */
export function createYieldService({ catalog, execution, loadWallet, operations, clock, openNonceHold }: YieldServiceDeps) {
  /** The caller's EVM wallet: 404 as every wallet route for a missing or foreign one, 400 for a non-EVM one. */
  async function loadYieldWallet(caller: Caller, walletId: string) {
    return requireEvmYieldWallet(await loadWallet(caller, walletId));
  }

  return {
    catalog,
    execution,
    loadYieldWallet,
    ...createYieldOperationService({ store: operations, catalog, execution, clock, loadYieldWallet, openNonceHold }),

    /** GET /v1/wallets/{walletId}/yield/markets: listed whatever the execution switch says. */
    async listMarkets(caller: Caller, walletId: string): Promise<{ markets: YieldMarket[] }> {
      await loadYieldWallet(caller, walletId);
      return { markets: catalog.list() };
    },
  };
}

export type YieldService = ReturnType<typeof createYieldService>;
