import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the chains routes, by operationId (openapi.test.ts validates them). */
export const chainsExamples = {
  listChains: {
    response: {
      200: {
        summary: 'The chains',
        value: {
          chains: [
            {
              type: 'EVM',
              chainId: '84532',
              network: 'string',
              name: 'Finance approval',
              nativeCurrency: {
                symbol: 'USDC',
                decimals: 6
              },
              usdc: {
                address: '0x000000000000000000000000000000000000dEaD',
                decimals: 6
              },
              isDevnet: true
            }
          ]
        }
      }
    }
  },
  localFaucet: {
    response: {
      200: {
        summary: 'The funding transaction',
        value: {
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          address: '0x000000000000000000000000000000000000dEaD',
          token: 'native',
          amount: '1.5',
          baseUnits: '2000000000000000',
          txHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060'
        }
      }
    },
    request: {
      summary: 'Local mode only: fund a wallet on the local devnet with native coin or test USDC',
      body: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
        amount: '1.5'
      }
    }
  },
  localDevnets: {
    response: {
      200: {
        summary: 'The local devnets and their RPC URLs',
        value: {
          evm: [
            {
              chainId: 84532,
              rpcUrl: 'http://example.com'
            }
          ],
          solana: [
            {
              network: 'string',
              rpcUrl: 'http://example.com'
            }
          ]
        }
      }
    }
  },
} satisfies Record<string, RouteExamples>;
