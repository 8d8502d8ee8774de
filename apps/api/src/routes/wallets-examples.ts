import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the wallets routes, by operationId (openapi.test.ts validates them). */
export const walletsExamples = {
  createWallet: {
    response: {
      201: {
        summary: 'The created wallet',
        value: {
          id: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          type: 'EVM',
          scheme: 'DKLS',
          status: 'ready',
          createdAt: '2026-11-25T07:12:00.000Z',
          address: '0x000000000000000000000000000000000000dEaD',
          publicKey: '0x04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235',
          userIdentifier: 'ada@example.com',
          userIdentifierType: 'EMAIL'
        }
      }
    },
    request: {
      summary: 'Create a wallet for a user identifier',
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
              address: '0x000000000000000000000000000000000000dEaD',
              publicKey: '0x04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235',
              userIdentifier: 'ada@example.com',
              userIdentifierType: 'EMAIL'
            }
          ],
          pagination: {
            cursor: null,
            hasMore: true,
            limit: 50
          }
        }
      }
    },
    request: {
      summary: 'List wallets, newest first',
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
          address: '0x000000000000000000000000000000000000dEaD',
          publicKey: '0x04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235',
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
      summary: 'Get a wallet',
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
          address: '0x000000000000000000000000000000000000dEaD',
          publicKey: '0x04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235',
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
      summary: "Change a wallet's user identifier",
      body: {
        userIdentifier: 'ada.lovelace@example.com'
      },
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
} satisfies Record<string, RouteExamples>;
