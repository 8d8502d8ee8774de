import { errorBodies, yieldPositionQuerySchema, yieldPositionSchema, type YieldPositionService } from '@wallet/domain';
import { defineRoutes } from '../http/route.ts';
import { yieldPositionExamples } from './yield-position-examples.ts';

/** GET .../yield/position (its own file: the other yield routes live in yield.ts). */
export function yieldPositionRoutes(service: YieldPositionService) {
  return defineRoutes([
    {
      method: 'get',
      path: '/v1/wallets/{walletId}/yield/position',
      operationId: 'getYieldPosition',
      examples: yieldPositionExamples.getYieldPosition,
      summary: "The wallet's position in a yield market",
      description: "Every field is read at one snapshot block; a pool provider's position adds the reserve and available liquidity, a vault provider's the vault address and shares. The market is chosen by `marketId` or `chainId`. Available whatever the execution switch says.",
      tag: 'Yield',
      query: yieldPositionQuerySchema,
      responses: {
        200: { description: 'The position (pool provider: with reserve and availableLiquidity; vault provider: with vaultAddress and shares)', schema: yieldPositionSchema },
        400: { description: 'INVALID_REQUEST: neither marketId nor chainId, an unknown market, a chainId not matching the market, another query key, or a non-EVM wallet' },
        404: { description: 'NOT_FOUND: no such wallet for this partner' },
        502: { description: "YIELD_POSITION_READ_FAILED: a contract read (not a simulation) reverted or answered nothing; the market's contracts or the chain's RPC are wrong", errors: [errorBodies.yieldPositionReadFailed] },
        503: { description: "RPC_UNAVAILABLE: the chain's RPC could not be reached; retry later", errors: [errorBodies.rpcUnavailable] },
      },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await service.position(caller, params.walletId ?? '', query) }),
    },
  ]);
}
