import type { RouteExamples } from '../http/route.ts';
import { exampleWallet, walletId, walletNotFound } from './example-values.ts';

/** Request and response examples of the balances route (openapi-examples.test.ts validates them). */
export const balancesExamples = {
  getWalletBalances: {
    request: { summary: 'An EVM wallet on Base Sepolia', parameters: { walletId, chainId: '84532' } },
    response: {
      200: {
        summary: '1.5 ETH, 25 USDC and an ERC-20 the wallet sent, all at one block',
        value: {
          walletId,
          type: 'EVM',
          address: exampleWallet.address,
          chainId: '84532',
          balances: [
            { asset: 'native', tokenAddress: null, symbol: 'ETH', decimals: 18, rawBalance: '1500000000000000000', balance: '1.5', blockNumber: 18734521 },
            { asset: 'erc20', tokenAddress: '0x036CbD53842c5426634e7929541eC2318f3dCF7e', symbol: 'USDC', decimals: 6, rawBalance: '25000000', balance: '25', blockNumber: 18734521 },
            { asset: 'erc20', tokenAddress: '0x4200000000000000000000000000000000000006', symbol: 'WETH', decimals: 18, rawBalance: '20000000000000000', balance: '0.02', blockNumber: 18734521 },
          ],
        },
      },
      400: { summary: 'A chain this deployment does not list', value: { code: 'UNSUPPORTED_CHAIN', message: 'chain 1 is not configured in this deployment (see GET /v1/chains)' } },
      404: walletNotFound,
      502: {
        summary: "The chain's configured USDC is no contract",
        value: { code: 'BALANCE_READ_FAILED', message: "Reading balances failed: USDC 0x036CbD53842c5426634e7929541eC2318f3dCF7e.balanceOf(wallet) at block 18734521 answered no balance (is the chain's USDC address right?)" },
      },
      503: { summary: "The chain's RPC did not answer", value: { code: 'RPC_UNAVAILABLE', message: "The chain's RPC could not be reached; retry later (evm:84532 RPC unavailable: timed out after 10000 ms)" } },
    },
  },
} satisfies Record<string, RouteExamples>;
