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
          evm: [
            {
              chainId: 84532,
              rpcUrl: 'http://127.0.0.1:41235',
              sponsorship: {
                entryPoint: '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108',
                delegate: '0xe6Cae83BdE06E4c305530e199D7217f42808555B',
                paymaster: '0xd49c7045d4C5579F82E66aE56994c4B9Dbe20251',
                relayer: '0xa39A30f70A240dc3bA496c6b747435D212e5806D',
              },
            },
          ],
          solana: [{ network: 'SOLANA_DEVNET', rpcUrl: 'http://127.0.0.1:40117' }],
        },
      },
    },
  },
} satisfies Record<string, RouteExamples>;
