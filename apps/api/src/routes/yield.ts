import { yieldMarketListSchema, type YieldService } from '@wallet/domain';
import { defineRoutes } from '../http/route.ts';

/** The REST yield routes (markets now; deposits, withdrawals, operations and positions next). */
export function yieldRoutes(service: YieldService) {
  return defineRoutes([
    {
      method: 'get',
      path: '/v1/wallets/{walletId}/yield/markets',
      operationId: 'listYieldMarkets',
      summary: "This environment's yield markets; each `id` is the `marketId` of the other yield routes. A listed market does not mean execution is enabled",
      tag: 'Yield',
      responses: {
        200: { description: 'The markets (not the list envelope: no cursor)', schema: yieldMarketListSchema },
        400: { description: 'INVALID_REQUEST: the wallet is not an EVM wallet' },
        404: { description: 'NOT_FOUND: no such wallet for this partner' },
      },
      handler: async ({ caller, params }) => ({ status: 200, body: await service.listMarkets(caller, params.walletId ?? '') }),
    },
  ]);
}
