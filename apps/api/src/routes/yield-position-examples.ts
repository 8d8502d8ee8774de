import type { RouteExamples } from '../http/route.ts';
import { walletId, walletNotFound } from './example-values.ts';

/** Request and response examples of the yield position route (openapi-examples.test.ts validates them). */
export const yieldPositionExamples = {
  getYieldPosition: {
    request: {
      summary: 'The position in the Base Sepolia pool-provider market',
      parameters: { walletId, marketId: 'poolprov-v3:84532:usdc' },
    },
    response: {
      200: {
        summary: 'A pool-provider position of 100 USDC',
        value: {
          marketId: 'poolprov-v3:84532:usdc',
          protocol: 'poolprov-v3',
          reserve: { symbol: 'USDC', address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 },
          suppliedBalance: '100.000000',
          availableLiquidity: '300.000000',
          withdrawal: { availableAmount: '100.000000' },
          blockNumber: 18734521,
          blockTimestamp: '2026-11-25T03:56:10.000Z',
        },
      },
      404: walletNotFound,
    },
  },
} satisfies Record<string, RouteExamples>;
