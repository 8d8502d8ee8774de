import { balanceErrorBodies, balancesQuerySchema, errorBodies, walletBalancesSchema, type BalanceService } from '@wallet/domain';
import { defineRoutes } from '../http/route.ts';
import { balancesExamples } from './balances-examples.ts';

/** GET /v1/wallets/{walletId}/balances. */
export function balanceRoutes(service: BalanceService) {
  return defineRoutes([
    {
      method: 'get',
      path: '/v1/wallets/{walletId}/balances',
      operationId: 'getWalletBalances',
      examples: balancesExamples.getWalletBalances,
      summary: "The wallet's balances, read from the chain",
      description:
        "Read from the chain at the time of the request, never from records. EVM wallets (`chainId` required): the native currency, the chain's USDC when it is configured, and every other ERC-20 the wallet's transaction records moved on that chain, all read at one block (`blockNumber`). Solana wallets (`network`, default `SOLANA`): SOL and every mint of the wallet's token accounts under the Token and Token-2022 programs, with the network's USDC listed even without an account, each with the slot it was read at. Each entry carries `rawBalance` (base units) and `balance` (whole tokens), both decimal strings. COSMOS, STELLAR and SUI wallets answer 400 UNSUPPORTED_WALLET_TYPE.",
      tag: 'Wallets',
      query: balancesQuerySchema,
      responses: {
        200: { description: 'The balances (EVM: at one block; Solana: with the slot of each read)', schema: walletBalancesSchema },
        400: {
          description:
            'INVALID_REQUEST: a malformed or unknown query parameter, no `chainId` for an EVM wallet, or the other chain type\'s parameter; UNSUPPORTED_CHAIN: a chain or network GET /v1/chains does not list; UNSUPPORTED_WALLET_TYPE: a COSMOS, STELLAR or SUI wallet',
          errors: [balanceErrorBodies.unsupportedChain, balanceErrorBodies.unsupportedWalletType],
        },
        404: { description: 'NOT_FOUND: no such wallet in this project' },
        502: { description: "BALANCE_READ_FAILED: the chain's configured USDC did not answer balanceOf (the configuration or the chain is wrong)", errors: [balanceErrorBodies.balanceReadFailed] },
        503: { description: "RPC_UNAVAILABLE: the chain's RPC could not be reached; retry later", errors: [errorBodies.rpcUnavailable] },
      },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await service.get(caller, params.walletId ?? '', query) }),
    },
  ]);
}
