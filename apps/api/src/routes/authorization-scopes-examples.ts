import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the authorization-scopes routes, by operationId (openapi-examples.test.ts validates them). */
export const authorizationScopesExamples = {
  getScopeAssignments: {
    response: {
      200: {
        summary: 'The current set',
        value: {
          authorizationScopeId: 'org-1',
          userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be',
          revision: 1,
          assignments: [
            {
              role: 'finance'
            }
          ],
          updatedAt: '2026-11-25T07:14:03.120Z'
        }
      }
    },
    request: {
      summary: "A user's assignments in a scope",
      parameters: {
        authorizationScopeId: 'org-1',
        userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be'
      }
    }
  },
  replaceScopeAssignments: {
    response: {
      200: {
        summary: 'The new set and its revision',
        value: {
          authorizationScopeId: 'org-1',
          userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be',
          revision: 1,
          assignments: [
            {
              role: 'finance'
            }
          ],
          updatedAt: '2026-11-25T07:14:03.120Z'
        }
      },
      409: {
        summary: 'expectedRevision is not the current revision',
        value: {
          code: 'CONFLICT',
          message: 'expectedRevision 0 is not the current revision 1; read the current state and retry',
          currentRevision: 1
        }
      }
    },
    request: {
      summary: "Replace a user's assignments in a scope",
      body: {
        expectedRevision: 0,
        assignments: [
          {
            role: 'finance'
          }
        ]
      },
      parameters: {
        authorizationScopeId: 'org-1',
        userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be'
      }
    }
  },
  listScopeAssignmentHistory: {
    response: {
      200: {
        summary: 'A page of revisions',
        value: {
          data: [
            {
              revision: 1,
              assignments: [
                {
                  role: 'finance'
                }
              ],
              createdAt: '2026-11-25T07:12:00.000Z',
              createdBy: {
                type: 'api_key',
                id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
              },
              requestId: 'b7e1d2c4-6f3a-4e8b-9c1d-2a5f7e9b0c3d'
            }
          ],
          pagination: {
            cursor: null,
            hasMore: false,
            limit: 50
          }
        }
      }
    },
    request: {
      summary: 'Assignment revisions, newest first',
      parameters: {
        authorizationScopeId: 'org-1',
        userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be'
      }
    }
  },
  listScopeMembers: {
    response: {
      200: {
        summary: 'A page of members',
        value: {
          authorizationScopeId: 'org-1',
          data: [
            {
              userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be',
              revision: 1,
              assignments: [
                {
                  role: 'finance'
                }
              ],
              updatedAt: '2026-11-25T07:14:03.120Z'
            }
          ],
          pagination: {
            cursor: null,
            hasMore: false,
            limit: 50
          }
        }
      }
    },
    request: {
      summary: 'Members of a scope',
      parameters: {
        authorizationScopeId: 'org-1'
      }
    }
  },
  getWalletAuthorizationScope: {
    response: {
      200: {
        summary: 'The binding',
        value: {
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          authorizationScopeId: 'org-1',
          revision: 1,
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
      summary: 'The scope bound to a wallet',
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
  setWalletAuthorizationScope: {
    response: {
      200: {
        summary: 'The new binding and its revision',
        value: {
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          authorizationScopeId: 'org-1',
          revision: 1,
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
      summary: 'Bind a wallet to a scope',
      body: {
        expectedRevision: 0,
        authorizationScopeId: 'org-1'
      },
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
  listWalletAuthorizationScopeHistory: {
    response: {
      200: {
        summary: 'A page of revisions',
        value: {
          data: [
            {
              revision: 1,
              authorizationScopeId: 'org-1',
              createdAt: '2026-11-25T07:12:00.000Z',
              createdBy: {
                type: 'api_key',
                id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
              },
              requestId: 'b7e1d2c4-6f3a-4e8b-9c1d-2a5f7e9b0c3d'
            }
          ],
          pagination: {
            cursor: null,
            hasMore: false,
            limit: 50
          }
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
      summary: 'Binding revisions, newest first',
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
} satisfies Record<string, RouteExamples>;
