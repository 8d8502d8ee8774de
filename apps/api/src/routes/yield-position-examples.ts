import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the yield-position routes, by operationId (openapi.test.ts validates them). */
export const yieldPositionExamples = {
  getYieldPosition: {
    response: {
      200: {
        summary: 'The position (pool provider: with reserve and availableLiquidity; vault provider: with vaultAddress and shares)',
        value: {
          marketId: 'poolprov-v3:84532:usdc',
          suppliedBalance: '2500000',
          withdrawal: {
            availableAmount: '2500000'
          },
          blockNumber: 18734521,
          blockTimestamp: '2026-11-25T07:14:03.120Z',
          protocol: 'poolprov-v3',
          reserve: {
            symbol: 'USDC',
            address: '0x000000000000000000000000000000000000dEaD',
            decimals: 6
          },
          availableLiquidity: '912000000000'
        }
      },
      404: {
        summary: 'No such wallet in this project',
        value: {
          code: 'NOT_FOUND',
          message: 'Wallet not found'
        }
      }
    },
    request: {
      summary: "The wallet's position in a yield market",
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
} satisfies Record<string, RouteExamples>;
