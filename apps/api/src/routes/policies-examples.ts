import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the policies routes, by operationId (openapi.test.ts validates them). */
export const policiesExamples = {
  listPolicies: {
    response: {
      200: {
        summary: 'The active policies',
        value: {
          policies: [
            {
              policyId: 'evm-approvals',
              version: '1',
              status: 'active',
              environment: 'development',
              walletType: 'EVM',
              effectiveFrom: '2026-11-25T07:12:00.000Z',
              effectiveUntil: null,
              createdAt: '2026-11-25T07:12:00.000Z',
              createdBy: {
                type: 'api_key',
                id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
              },
              deactivatedAt: null,
              deactivatedBy: {
                type: 'api_key',
                id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
              },
              replacedBy: null,
              definition: {}
            }
          ]
        }
      }
    }
  },
  getPolicy: {
    response: {
      200: {
        summary: 'The policy',
        value: {
          policyId: 'evm-approvals',
          version: '1',
          status: 'active',
          environment: 'development',
          walletType: 'EVM',
          effectiveFrom: '2026-11-25T07:12:00.000Z',
          effectiveUntil: null,
          createdAt: '2026-11-25T07:12:00.000Z',
          createdBy: {
            type: 'api_key',
            id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
          },
          deactivatedAt: null,
          deactivatedBy: {
            type: 'api_key',
            id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
          },
          replacedBy: null,
          definition: {}
        }
      }
    },
    request: {
      summary: 'One active policy',
      parameters: {
        policyId: 'evm-approvals'
      }
    }
  },
  listPolicyVersions: {
    response: {
      200: {
        summary: 'The versions',
        value: {
          versions: [
            {
              policyId: 'evm-approvals',
              version: '1',
              status: 'active',
              environment: 'development',
              walletType: 'EVM',
              effectiveFrom: '2026-11-25T07:12:00.000Z',
              effectiveUntil: null,
              createdAt: '2026-11-25T07:12:00.000Z',
              createdBy: {
                type: 'api_key',
                id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
              },
              deactivatedAt: null,
              deactivatedBy: {
                type: 'api_key',
                id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
              },
              replacedBy: null,
              definition: {}
            }
          ]
        }
      }
    },
    request: {
      summary: 'Versions of a policy that are or were active, newest first',
      parameters: {
        policyId: 'evm-approvals'
      }
    }
  },
  getPolicyUsage: {
    response: {
      200: {
        summary: 'The meters',
        value: {
          meters: [
            {
              ruleId: 'large',
              meter: 'spend.native',
              asset: 'USDC',
              window: '1d',
              windowStart: '2026-11-25T07:12:00.000Z',
              windowEnd: '2026-11-26T07:12:00.000Z',
              op: 'gt',
              limit: '5000000000000000000',
              spent: '2000000000000000',
              reserved: '0',
              remaining: '4998000000000000000'
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
      summary: 'Spend meters of a policy for a wallet',
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
        policyId: 'evm-approvals',
        chainId: '84532'
      }
    }
  },
  getUserPolicyUsage: {
    response: {
      200: {
        summary: 'The meters',
        value: {
          meters: [
            {
              ruleId: 'large',
              meter: 'spend.native',
              asset: 'USDC',
              window: '1d',
              windowStart: '2026-11-25T07:12:00.000Z',
              windowEnd: '2026-11-26T07:12:00.000Z',
              op: 'gt',
              limit: '5000000000000000000',
              spent: '2000000000000000',
              reserved: '0',
              remaining: '4998000000000000000'
            }
          ]
        }
      }
    },
    request: {
      summary: "Spend meters of a policy for a user's wallet",
      parameters: {
        userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be',
        policyId: 'evm-approvals',
        chainId: '84532',
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
  evaluatePolicies: {
    response: {
      200: {
        summary: 'The decision and its trace (a denial is still 200 here)',
        value: {
          decision: 'allow',
          reason: 'rule-matched',
          deniedBy: [
            {
              reason: 'rule-matched',
              policyId: 'evm-approvals',
              policyVersion: '1',
              ruleId: 'large'
            }
          ],
          requirements: [
            {
              policyId: 'evm-approvals',
              policyVersion: '1',
              ruleId: 'large',
              requirementId: 'finance-approval'
            }
          ],
          request: {
            walletType: 'EVM',
            walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
            apiKeyId: '40f137ef-3fb5-465f-afa5-6479c61f76d8',
            action: 'wallet.sign.transfer',
            network: null,
            facts: {},
            legs: [
              {
                to: '0x000000000000000000000000000000000000dEaD',
                asset: 'USDC',
                amount: '1.5'
              }
            ],
            undecoded: 'string'
          },
          policies: [
            {
              policyId: 'evm-approvals',
              policyVersion: '1',
              rules: [
                {
                  ruleId: 'large',
                  effect: 'require_approval',
                  outcome: 'matched',
                  facts: [
                    {}
                  ],
                  meters: [
                    {}
                  ]
                }
              ]
            }
          ]
        }
      }
    },
    request: {
      summary: 'Dry run of the policies for a request',
      body: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
        route: 'transfer',
        body: {}
      }
    }
  },
} satisfies Record<string, RouteExamples>;
