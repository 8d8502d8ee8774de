import type { RouteExamples } from '../http/route.ts';
import { walletId, walletNotFound } from './example-values.ts';

/** Request and response examples of the chain and local-mode routes, by operationId (openapi-examples.test.ts validates them). */
export const chainsExamples = {
  listChains: {
    response: {
      200: {
        summary: 'A deployment configured for Base Sepolia',
        value: {
          chains: [
            {
              type: 'EVM',
              chainId: '84532',
              name: 'Base Sepolia',
              nativeCurrency: { symbol: 'ETH', decimals: 18 },
              usdc: { address: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', decimals: 6 },
              isDevnet: false,
            },
          ],
        },
      },
    },
  },
  localFaucet: {
    request: { summary: '10 ETH from the local devnet', body: { walletId, amount: '10', token: 'native' } },
    response: {
      200: {
        summary: 'Funded',
        value: {
          walletId,
          address: '0xc59Ae5c96bBB7E6eD34103683f1B4873DE89Dd0B',
          token: 'native',
          amount: '10',
          baseUnits: '10000000000000000000',
          txHash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
        },
      },
      404: walletNotFound,
    },
  },
  localDevnets: {
    response: {
      200: {
        summary: 'The local devnets (docs/local-chains.md)',
        value: {
          evm: [{ chainId: 84532, rpcUrl: 'http://127.0.0.1:41235' }],
          solana: [{ network: 'SOLANA_DEVNET', rpcUrl: 'http://127.0.0.1:40117' }],
        },
      },
    },
  },
} satisfies Record<string, RouteExamples>;
