import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the yield position route (openapi-examples.test.ts validates them). */
export const yieldPositionExamples = {
  getYieldPosition: {
    request: {
      summary: 'The position in the Base Sepolia pool-provider market',
      parameters: { walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182', marketId: 'poolprov-v3:84532:usdc' },
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
      404: { summary: 'No such wallet in this project', value: { code: 'NOT_FOUND', message: 'Wallet not found' } },
    },
  },
} satisfies Record<string, RouteExamples>;
