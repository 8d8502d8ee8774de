import type { Caller } from '../shared/caller.ts';
import { parseInput } from '../shared/zod.ts';
import { rpcUnavailable } from '../transactions/context.ts';
import { ChainUnavailableError, type ChainGateways, type Hex } from '../transactions/gateways.ts';
import type { WalletService } from '../wallets/service.ts';
import { requireEvmYieldWallet } from './markets.ts';
import {
  decodePoolPosition,
  decodeVaultPosition,
  decodeVaultShares,
  poolPositionCalls,
  vaultRedeemCalls,
  vaultShareCall,
  yieldPositionQuerySchema,
  type YieldPosition,
} from './position.ts';
import type { YieldMarketCatalog } from './service.ts';

export interface YieldPositionDeps {
  catalog: YieldMarketCatalog;
  gateways: ChainGateways;
  loadWallet: WalletService['loadWallet'];
}

/**
 * GET /v1/wallets/{walletId}/yield/position: reads only, so available whatever the execution switch
 * says. 400 for a bad query or a non-EVM wallet, 404 for a missing or foreign wallet, 503
 * RPC_UNAVAILABLE when the chain cannot be reached, 502 YIELD_POSITION_READ_FAILED when a plain read
 * reverts.
 */
export function createYieldPositionService({ catalog, gateways, loadWallet }: YieldPositionDeps) {
  return {
    async position(caller: Caller, walletId: string, query: unknown): Promise<YieldPosition> {
      const input = parseInput(yieldPositionQuerySchema, query);
      // The wallet the path names first: a missing one is 404 whatever the query's market.
      const wallet = requireEvmYieldWallet(await loadWallet(caller, walletId));
      const market = catalog.resolve({ marketId: input.marketId, chainId: input.chainId });
      const address = wallet.address as Hex;
      const gateway = gateways.evm(market.chainId);
      if (!gateway) throw rpcUnavailable(new Error(`no RPC configured for chain ${market.chainId}`));
      try {
        if (market.source === 'poolprov-v3') return decodePoolPosition(market, await gateway.callAtLatestBlock(poolPositionCalls(market, address)));
        const first = await gateway.callAtLatestBlock([vaultShareCall(market, address)]);
        const shares = decodeVaultShares(market, first);
        const redeem = shares > 0n ? await gateway.callAtLatestBlock(vaultRedeemCalls(market, address, shares), { blockNumber: first.blockNumber }) : null;
        return decodeVaultPosition(market, shares, first, redeem);
      } catch (error) {
        if (error instanceof ChainUnavailableError) throw rpcUnavailable(error);
        throw error;
      }
    },
  };
}

export type YieldPositionService = ReturnType<typeof createYieldPositionService>;
