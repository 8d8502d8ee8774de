import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the wallets routes, by operationId (openapi-examples.test.ts validates them). */
export const walletsExamples = {
  createWallet: {
    response: {
      201: {
        summary: 'Created, ready to sign',
        value: {
          id: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          type: 'EVM',
          scheme: 'DKLS',
          status: 'ready',
          createdAt: '2026-11-25T07:12:00.000Z',
          address: '0xc59Ae5c96bBB7E6eD34103683f1B4873DE89Dd0B',
          publicKey: '0x04aafb10dd802f05b58e7e8a6154fa76f2177aae269e58a358f8332dd45658d22bba6da38a77f5156d86f9555c4291c036791ac60ed4d3d480341bb95d3223b041',
          userIdentifier: 'ada@example.com',
          userIdentifierType: 'EMAIL'
        }
      },
      409: {
        summary: 'The user already has an EVM wallet of this scheme',
        value: {
          code: 'WALLET_ALREADY_EXISTS',
          message: 'A wallet already exists for this user identifier, type and scheme',
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
        }
      }
    },
    request: {
      summary: 'An EVM wallet for an email address',
      body: {
        type: 'EVM',
        userIdentifier: 'ada@example.com',
        userIdentifierType: 'EMAIL'
      }
    }
  },
  listWallets: {
    response: {
      200: {
        summary: 'A page of wallets',
        value: {
          data: [
            {
              id: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
              type: 'EVM',
              scheme: 'DKLS',
              status: 'ready',
              createdAt: '2026-11-25T07:12:00.000Z',
              address: '0xc59Ae5c96bBB7E6eD34103683f1B4873DE89Dd0B',
              publicKey: '0x04aafb10dd802f05b58e7e8a6154fa76f2177aae269e58a358f8332dd45658d22bba6da38a77f5156d86f9555c4291c036791ac60ed4d3d480341bb95d3223b041',
              userIdentifier: 'ada@example.com',
              userIdentifierType: 'EMAIL'
            }
          ],
          pagination: {
            cursor: null,
            hasMore: false,
            limit: 20
          }
        }
      }
    },
    request: {
      summary: "A user's wallets, 20 a page",
      parameters: {
        userIdentifier: 'ada@example.com',
        userIdentifierType: 'EMAIL',
        limit: 20
      }
    }
  },
  getWallet: {
    response: {
      200: {
        summary: 'The wallet',
        value: {
          id: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          type: 'EVM',
          scheme: 'DKLS',
          status: 'ready',
          createdAt: '2026-11-25T07:12:00.000Z',
          address: '0xc59Ae5c96bBB7E6eD34103683f1B4873DE89Dd0B',
          publicKey: '0x04aafb10dd802f05b58e7e8a6154fa76f2177aae269e58a358f8332dd45658d22bba6da38a77f5156d86f9555c4291c036791ac60ed4d3d480341bb95d3223b041',
          userIdentifier: 'ada@example.com',
          userIdentifierType: 'EMAIL'
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
      summary: 'A wallet by id',
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
  updateWallet: {
    response: {
      200: {
        summary: 'The updated wallet',
        value: {
          id: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          type: 'EVM',
          scheme: 'DKLS',
          status: 'ready',
          createdAt: '2026-11-25T07:12:00.000Z',
          address: '0xc59Ae5c96bBB7E6eD34103683f1B4873DE89Dd0B',
          publicKey: '0x04aafb10dd802f05b58e7e8a6154fa76f2177aae269e58a358f8332dd45658d22bba6da38a77f5156d86f9555c4291c036791ac60ed4d3d480341bb95d3223b041',
          userIdentifier: 'ada.lovelace@example.com',
          userIdentifierType: 'EMAIL'
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
      summary: 'A new email address for the wallet',
      body: {
        userIdentifier: 'ada.lovelace@example.com'
      },
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
} satisfies Record<string, RouteExamples>;
