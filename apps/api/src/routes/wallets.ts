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
import { walletId } from './example-values.ts';
import { walletsExamples } from './wallets-examples.ts';

export function walletRoutes(wallets: WalletService) {
  return defineRoutes([
    {
      method: 'post',
      path: '/v1/wallets',
      operationId: 'createWallet',
      examples: walletsExamples.createWallet,
      summary: 'Create a wallet for a user identifier',
      description: 'Creates a wallet of `type` (EVM, COSMOS, SOLANA, STELLAR, SUI) for a user identifier and returns it `ready`: the key is generated inside the request by the signer process and stored as two encrypted shares that only the signer can open. A wallet with the same identifier type, identifier, type and scheme in the project is 409 `WALLET_ALREADY_EXISTS` with its `walletId`. Honours `Idempotency-Key`.',
      tag: 'Wallets',
      body: createWalletBody,
      responses: {
        201: {
          description: 'The created wallet',
          schema: walletSchema,
          headers: { Location: { description: "The created wallet's path, `/v1/wallets/{id}`", schema: { type: 'string', format: 'uri-reference' }, example: `/v1/wallets/${walletId}` } },
        },
        409: { description: 'WALLET_ALREADY_EXISTS, with walletId of the existing wallet; or CONFLICT on an Idempotency-Key reuse', errors: [errorBodies.walletAlreadyExists] },
        503: { description: 'SIGNER_UNAVAILABLE: the signer process that generates the key did not answer; no wallet was created. Retry with backoff.', errors: [errorBodies.signerUnavailable] },
      },
      handler: async ({ caller, body }) => {
        const wallet = await wallets.create(caller, body);
        return { status: 201, body: wallet, headers: { Location: `/v1/wallets/${wallet.id}` } };
      },
    },
    {
      method: 'get',
      path: '/v1/wallets',
      operationId: 'listWallets',
      examples: walletsExamples.listWallets,
      summary: 'List wallets, newest first',
      description: "Wallets of the calling key's project, newest first, in the list envelope `{data, pagination}`: pass `pagination.cursor` back as `cursor` while `hasMore` is true (`limit` 1–100, default 50). Filters: `type`, `status`, `userIdentifier`, `userIdentifierType`, `address`.",
      tag: 'Wallets',
      query: listWalletsQuery,
      responses: { 200: { description: 'A page of wallets', schema: walletListSchema } },
      handler: async ({ caller, query }) => ({ status: 200, body: await wallets.list(caller, query) }),
    },
    {
      method: 'get',
      path: '/v1/wallets/{walletId}',
      operationId: 'getWallet',
      examples: walletsExamples.getWallet,
      summary: 'Get a wallet',
      description: "One wallet of the calling key's project; another project's wallet is the same 404 as a missing one.",
      tag: 'Wallets',
      responses: { 200: { description: 'The wallet', schema: walletSchema } },
      handler: async ({ caller, params }) => ({ status: 200, body: await wallets.get(caller, params.walletId ?? '') }),
    },
    {
      method: 'patch',
      path: '/v1/wallets/{walletId}',
      operationId: 'updateWallet',
      examples: walletsExamples.updateWallet,
      summary: "Change a wallet's user identifier",
      description: 'Changes `userIdentifier` and/or `userIdentifierType`. The duplicate rule of creation applies to the new identity (409 `WALLET_ALREADY_EXISTS`); the key and addresses stay.',
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
