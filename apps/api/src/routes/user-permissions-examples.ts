import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the user-permissions routes, by operationId (openapi.test.ts validates them). */
export const userPermissionsExamples = {
  listUserPolicyConsents: {
    response: {
      200: {
        summary: '`{requests: [{policy, consent}]}`',
        value: {
          requests: [
            {
              policy: {
                policyId: 'evm-approvals',
                version: '1',
                description: 'Transfers above 0.001 ETH need finance approval',
                walletType: 'EVM',
                definition: {}
              },
              consent: {
                walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
                status: 'pending',
                inForce: true,
                consentedVersion: '1',
                consentedAt: '2026-11-25T07:14:03.120Z',
                revokedAt: null,
                updatedAt: '2026-11-25T07:14:03.120Z'
              }
            }
          ]
        }
      }
    },
    request: {
      summary: "A user's delegation consents for a wallet",
      parameters: {
        userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be',
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
  getUserPolicyConsent: {
    response: {
      200: {
        summary: '`{policy, consent}`',
        value: {
          policy: {
            policyId: 'evm-approvals',
            version: '1',
            description: 'Transfers above 0.001 ETH need finance approval',
            walletType: 'EVM',
            definition: {}
          },
          consent: {
            walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
            status: 'pending',
            inForce: true,
            consentedVersion: '1',
            consentedAt: '2026-11-25T07:14:03.120Z',
            revokedAt: null,
            updatedAt: '2026-11-25T07:14:03.120Z'
          }
        }
      }
    },
    request: {
      summary: "A user's consent to one delegation policy",
      parameters: {
        userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be',
        policyId: 'evm-approvals',
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
  listUserAdjustablePolicies: {
    response: {
      200: {
        summary: '`{policies: [...]}`',
        value: {
          policies: [
            {
              policy: {
                policyId: 'evm-approvals',
                version: '1',
                description: 'Transfers above 0.001 ETH need finance approval',
                walletType: 'EVM'
              },
              walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
              revision: 1,
              parameters: [
                {
                  id: 'a5614527-0ce6-43be-ad1d-d012b7394867',
                  label: 'Per transfer',
                  default: '1000',
                  min: '10',
                  max: '100000',
                  ruleId: 'large',
                  limit: {}
                }
              ]
            }
          ]
        }
      }
    },
    request: {
      summary: 'Delegation policies with adjustable limits',
      parameters: {
        userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be'
      }
    }
  },
  getUserPolicyParameters: {
    response: {
      200: {
        summary: 'The parameters',
        value: {
          userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be',
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          policyId: 'evm-approvals',
          policyVersion: '1',
          revision: 1,
          updatedAt: '2026-11-25T07:14:03.120Z',
          values: {},
          parameters: [
            {
              id: 'a5614527-0ce6-43be-ad1d-d012b7394867',
              label: 'Per transfer',
              default: '1000',
              min: '10',
              max: '100000',
              ruleId: 'large',
              limit: {},
              value: '2000000000000000',
              effective: 'string'
            }
          ]
        }
      }
    },
    request: {
      summary: "A user's parameter values for a policy",
      parameters: {
        userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be',
        policyId: 'evm-approvals',
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
  listUserPolicyParameterHistory: {
    response: {
      200: {
        summary: 'A page of revisions',
        value: {
          data: [
            {
              revision: 1,
              policyVersion: '1',
              values: {},
              createdAt: '2026-11-25T07:12:00.000Z',
              createdBy: {
                type: 'user',
                id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
              }
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
      summary: 'Saved parameter revisions, newest first',
      parameters: {
        userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be',
        policyId: 'evm-approvals',
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
} satisfies Record<string, RouteExamples>;
