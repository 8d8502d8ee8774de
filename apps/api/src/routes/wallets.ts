import {
  createWalletBody,
  errorBodies,
  listWalletsQuery,
  updateWalletBody,
  walletListSchema,
  walletSchema,
  type WalletService,
} from '@wallet/domain';
import { defineRoutes } from '../http/route.ts';

export function walletRoutes(wallets: WalletService) {
  return defineRoutes([
    {
      method: 'post',
      path: '/v1/wallets',
      operationId: 'createWallet',
      summary: 'Create a wallet for a user identifier',
      tag: 'Wallets',
      body: createWalletBody,
      responses: {
        201: { description: 'The created wallet', schema: walletSchema },
        409: { description: 'WALLET_ALREADY_EXISTS, with walletId of the existing wallet; or CONFLICT on an Idempotency-Key reuse', errors: [errorBodies.walletAlreadyExists] },
      },
      handler: async ({ caller, body }) => ({ status: 201, body: await wallets.create(caller, body) }),
    },
    {
      method: 'get',
      path: '/v1/wallets',
      operationId: 'listWallets',
      summary: 'List wallets, newest first',
      tag: 'Wallets',
      query: listWalletsQuery,
      responses: { 200: { description: 'A page of wallets', schema: walletListSchema } },
      handler: async ({ caller, query }) => ({ status: 200, body: await wallets.list(caller, query) }),
    },
    {
      method: 'get',
      path: '/v1/wallets/{walletId}',
      operationId: 'getWallet',
      summary: 'Get a wallet',
      tag: 'Wallets',
      responses: { 200: { description: 'The wallet', schema: walletSchema } },
      handler: async ({ caller, params }) => ({ status: 200, body: await wallets.get(caller, params.walletId ?? '') }),
    },
    {
      method: 'patch',
      path: '/v1/wallets/{walletId}',
      operationId: 'updateWallet',
      summary: "Change a wallet's user identifier",
      tag: 'Wallets',
      body: updateWalletBody,
      responses: {
        200: { description: 'The updated wallet', schema: walletSchema },
        409: { description: 'WALLET_ALREADY_EXISTS: the new identity is taken', errors: [errorBodies.walletAlreadyExists] },
      },
      handler: async ({ caller, params, body }) => ({
        status: 200,
        body: await wallets.update(caller, params.walletId ?? '', body),
      }),
    },
  ]);
}
