import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the yield routes, by operationId (openapi.test.ts validates them). */
export const yieldExamples = {
  createYieldDeposit: {
    response: {
      200: {
        summary: 'The existing operation with this Idempotency-Key, terminal (`confirmed`, `failed`, `cancelled`) or paused (`requires_action`)',
        value: {
          id: 'a5614527-0ce6-43be-ad1d-d012b7394867',
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          chainId: 84532,
          marketId: 'poolprov-v3:84532:usdc',
          source: 'poolprov-v3',
          action: 'deposit',
          amount: '1.5',
          status: 'pending',
          transactions: [
            {
              phase: 'approval',
              hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
              nonce: 4,
              transactionId: '8cb201b0-d402-4bc0-a957-fcfa2e501cba',
              status: 'signed',
              blockNumber: 18734521,
              blockHash: '0x9a1f6c0b8e2d47f3a5c6e1b2d3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c'
            }
          ],
          error: {
            code: 'string',
            message: 'Sign in to Example App',
            reviewId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08'
          },
          createdAt: '2026-11-25T07:12:00.000Z',
          updatedAt: '2026-11-25T07:14:03.120Z'
        }
      },
      202: {
        summary: 'Accepted or still processing (also a paused operation retried by this request); `Location` is the operation to poll',
        value: {
          id: 'a5614527-0ce6-43be-ad1d-d012b7394867',
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          chainId: 84532,
          marketId: 'poolprov-v3:84532:usdc',
          source: 'poolprov-v3',
          action: 'deposit',
          amount: '1.5',
          status: 'pending',
          transactions: [
            {
              phase: 'approval',
              hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
              nonce: 4,
              transactionId: '8cb201b0-d402-4bc0-a957-fcfa2e501cba',
              status: 'signed',
              blockNumber: 18734521,
              blockHash: '0x9a1f6c0b8e2d47f3a5c6e1b2d3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c'
            }
          ],
          error: {
            code: 'string',
            message: 'Sign in to Example App',
            reviewId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08'
          },
          createdAt: '2026-11-25T07:12:00.000Z',
          updatedAt: '2026-11-25T07:14:03.120Z'
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
      summary: 'Deposit USDC into a yield market',
      body: {
        amount: '1.5'
      },
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
  createYieldWithdrawal: {
    response: {
      200: {
        summary: 'The existing operation with this Idempotency-Key, terminal (`confirmed`, `failed`, `cancelled`) or paused (`requires_action`)',
        value: {
          id: 'a5614527-0ce6-43be-ad1d-d012b7394867',
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          chainId: 84532,
          marketId: 'poolprov-v3:84532:usdc',
          source: 'poolprov-v3',
          action: 'deposit',
          amount: '1.5',
          status: 'pending',
          transactions: [
            {
              phase: 'approval',
              hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
              nonce: 4,
              transactionId: '8cb201b0-d402-4bc0-a957-fcfa2e501cba',
              status: 'signed',
              blockNumber: 18734521,
              blockHash: '0x9a1f6c0b8e2d47f3a5c6e1b2d3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c'
            }
          ],
          error: {
            code: 'string',
            message: 'Sign in to Example App',
            reviewId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08'
          },
          createdAt: '2026-11-25T07:12:00.000Z',
          updatedAt: '2026-11-25T07:14:03.120Z'
        }
      },
      202: {
        summary: 'Accepted or still processing (also a paused operation retried by this request); `Location` is the operation to poll',
        value: {
          id: 'a5614527-0ce6-43be-ad1d-d012b7394867',
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          chainId: 84532,
          marketId: 'poolprov-v3:84532:usdc',
          source: 'poolprov-v3',
          action: 'deposit',
          amount: '1.5',
          status: 'pending',
          transactions: [
            {
              phase: 'approval',
              hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
              nonce: 4,
              transactionId: '8cb201b0-d402-4bc0-a957-fcfa2e501cba',
              status: 'signed',
              blockNumber: 18734521,
              blockHash: '0x9a1f6c0b8e2d47f3a5c6e1b2d3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c'
            }
          ],
          error: {
            code: 'string',
            message: 'Sign in to Example App',
            reviewId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08'
          },
          createdAt: '2026-11-25T07:12:00.000Z',
          updatedAt: '2026-11-25T07:14:03.120Z'
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
      summary: 'Withdraw USDC from a yield market',
      body: {
        amount: '1.5'
      },
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
  listYieldMarkets: {
    response: {
      200: {
        summary: 'The markets (not the list envelope: no cursor)',
        value: {
          markets: [
            {
              id: 'a5614527-0ce6-43be-ad1d-d012b7394867',
              chainId: 84532,
              name: 'Finance approval',
              testOnly: true,
              asset: {
                symbol: 'USDC',
                address: '0x000000000000000000000000000000000000dEaD',
                decimals: 6
              },
              source: 'poolprov-v3',
              contracts: {
                pool: 'string',
                aToken: 'string'
              }
            }
          ]
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
      summary: "This environment's yield markets",
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
  getYieldOperation: {
    response: {
      200: {
        summary: 'The operation',
        value: {
          id: 'a5614527-0ce6-43be-ad1d-d012b7394867',
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          chainId: 84532,
          marketId: 'poolprov-v3:84532:usdc',
          source: 'poolprov-v3',
          action: 'deposit',
          amount: '1.5',
          status: 'pending',
          transactions: [
            {
              phase: 'approval',
              hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
              nonce: 4,
              transactionId: '8cb201b0-d402-4bc0-a957-fcfa2e501cba',
              status: 'signed',
              blockNumber: 18734521,
              blockHash: '0x9a1f6c0b8e2d47f3a5c6e1b2d3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c'
            }
          ],
          error: {
            code: 'string',
            message: 'Sign in to Example App',
            reviewId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08'
          },
          createdAt: '2026-11-25T07:12:00.000Z',
          updatedAt: '2026-11-25T07:14:03.120Z'
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
      summary: 'One yield operation with its signed steps (each links to its transaction record)',
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
        operationId: '3efa7ace-7b96-48a0-a441-2e0aa7e728a6'
      }
    }
  },
  cancelYieldOperation: {
    response: {
      200: {
        summary: 'The cancelled operation (also when it was already cancelled)',
        value: {
          id: 'a5614527-0ce6-43be-ad1d-d012b7394867',
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          chainId: 84532,
          marketId: 'poolprov-v3:84532:usdc',
          source: 'poolprov-v3',
          action: 'deposit',
          amount: '1.5',
          status: 'pending',
          transactions: [
            {
              phase: 'approval',
              hash: '0x5c504ed432cb51138bcf09aa5e8a410dd4a1e204ef84bfed1be16dfba1b22060',
              nonce: 4,
              transactionId: '8cb201b0-d402-4bc0-a957-fcfa2e501cba',
              status: 'signed',
              blockNumber: 18734521,
              blockHash: '0x9a1f6c0b8e2d47f3a5c6e1b2d3f4a5b6c7d8e9f0a1b2c3d4e5f60718293a4b5c'
            }
          ],
          error: {
            code: 'string',
            message: 'Sign in to Example App',
            reviewId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08'
          },
          createdAt: '2026-11-25T07:12:00.000Z',
          updatedAt: '2026-11-25T07:14:03.120Z'
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
      summary: "Cancel a yield operation's unsigned work",
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
        operationId: '3efa7ace-7b96-48a0-a441-2e0aa7e728a6'
      }
    }
  },
} satisfies Record<string, RouteExamples>;
