import { chainListSchema, faucetBody, faucetResponse, localDevnetsResponse, type ChainService } from '@wallet/domain';
import { defineRoutes, type RouteDef } from '../http/route.ts';
import { chainsExamples } from './chains-examples.ts';

export function chainRoutes(chains: ChainService, { localFaucet, localDevnets }: { localFaucet: boolean; localDevnets: boolean }): RouteDef[] {
  const routes: RouteDef[] = [
    {
      method: 'get',
      path: '/v1/chains',
      operationId: 'listChains',
      examples: chainsExamples.listChains,
      summary: 'Configured chains with their native currency and USDC address or mint',
      description: "The chains this deployment is configured for, with each one's native currency and its USDC contract address or mint. A `chainId` or network of the other routes must be one of these.",
      tag: 'Chains',
      responses: { 200: { description: 'The chains', schema: chainListSchema } },
      handler: async () => ({ status: 200, body: chains.list() }),
    },
  ];
  if (localFaucet) {
    routes.push({
      method: 'post',
      path: '/v1/local/faucet',
      operationId: 'localFaucet',
      examples: chainsExamples.localFaucet,
      summary: 'Local mode only: fund a wallet on the local devnet with native coin or test USDC',
      description: "Local mode only (absent elsewhere): sends native coin or test USDC from the local devnet's faucet to a wallet of the calling key's project. `amount` is in whole tokens; the answer carries the base units and the transaction hash.",
      tag: 'Local',
      body: faucetBody,
      responses: {
        200: { description: 'The funding transaction', schema: faucetResponse },
        404: { description: "No such wallet (also another project's)" },
      },
      handler: async ({ caller, body }) => ({ status: 200, body: await chains.fund(caller, body) }),
    });
  }
  if (localDevnets) {
    routes.push({
      method: 'get',
      path: '/v1/local/devnets',
      operationId: 'localDevnets',
      examples: chainsExamples.localDevnets,
      summary: 'Local mode only: the JSON-RPC URLs of the local EVM and Solana devnets (for viem, cast or a Solana client), and the EVM devnet\'s sponsorship contracts',
      description:
        "Local mode only (absent elsewhere): the JSON-RPC URLs of the local EVM and Solana devnets, to use with viem, cast or a Solana client alongside the API. The EVM devnet's `sponsorship` names the EntryPoint, the delegate sponsored wallets point to, the paymaster signed by the service's sponsor key and the service's relayer, all deployed and funded at start.",
      tag: 'Local',
      responses: { 200: { description: 'The local devnets, their RPC URLs and the sponsorship addresses', schema: localDevnetsResponse } },
      handler: async () => ({ status: 200, body: chains.localDevnets() }),
    });
  }
  return defineRoutes(routes);
}
