import type { RouteExamples } from '../http/route.ts';
import { exampleWallet, onlyPage, walletId, walletNotFound } from './example-values.ts';

/** Request and response examples of the wallets routes, by operationId (openapi-examples.test.ts validates them). */
export const walletsExamples = {
  createWallet: {
    response: {
      201: { summary: 'Created, ready to sign', value: exampleWallet },
      409: {
        summary: 'The user already has an EVM wallet of this scheme',
        value: {
          code: 'WALLET_ALREADY_EXISTS',
          message: 'A wallet already exists for this user identifier, type and scheme',
          walletId,
        },
      },
    },
    request: {
      summary: 'An EVM wallet for an email address',
      body: { type: 'EVM', userIdentifier: 'ada@example.com', userIdentifierType: 'EMAIL' },
    },
  },
  listWallets: {
    response: {
      200: { summary: 'A page of wallets', value: { data: [exampleWallet], pagination: onlyPage(20) } },
    },
    request: {
      summary: "A user's wallets, 20 a page",
      parameters: { userIdentifier: 'ada@example.com', userIdentifierType: 'EMAIL', limit: 20 },
    },
  },
  getWallet: {
    response: {
      200: { summary: 'The wallet', value: exampleWallet },
      404: walletNotFound,
    },
    request: { summary: 'A wallet by id', parameters: { walletId } },
  },
  updateWallet: {
    response: {
      200: { summary: 'The updated wallet', value: { ...exampleWallet, userIdentifier: 'ada.lovelace@example.com' } },
      404: walletNotFound,
    },
    request: {
      summary: 'A new email address for the wallet',
      body: { userIdentifier: 'ada.lovelace@example.com' },
      parameters: { walletId },
    },
  },
} satisfies Record<string, RouteExamples>;
