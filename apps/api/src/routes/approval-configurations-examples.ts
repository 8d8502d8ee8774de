import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the approval-configurations routes, by operationId (openapi-examples.test.ts validates them). */
export const approvalConfigurationsExamples = {
  listApprovalRequirements: {
    response: {
      200: {
        summary: 'The requirements',
        value: {
          requirements: [
            {
              policyId: 'evm-approvals',
              policyVersion: '1',
              ruleId: 'large',
              requirementId: 'finance-approval',
              stages: [
                {
                  id: 'finance',
                  eligibility: {
                    roles: [
                      'finance'
                    ],
                    attributes: {}
                  },
                  requiredApprovals: 1
                }
              ],
              configurable: [
                {
                  key: 'finance.requiredApprovals',
                  min: 1,
                  max: 3,
                  default: 1
                }
              ]
            }
          ]
        }
      }
    },
    request: {
      summary: 'Approval requirements of a scope',
      parameters: {
        authorizationScopeId: 'org-1'
      }
    }
  },
  getApprovalRequirement: {
    response: {
      200: {
        summary: 'The requirement',
        value: {
          policyId: 'evm-approvals',
          policyVersion: '1',
          ruleId: 'large',
          requirementId: 'finance-approval',
          stages: [
            {
              id: 'finance',
              eligibility: {
                roles: [
                  'finance'
                ],
                attributes: {}
              },
              requiredApprovals: 1
            }
          ],
          configurable: [
            {
              key: 'finance.requiredApprovals',
              min: 1,
              max: 3,
              default: 1
            }
          ]
        }
      }
    },
    request: {
      summary: 'One approval requirement of an active policy version',
      parameters: {
        authorizationScopeId: 'org-1',
        policyId: 'evm-approvals',
        policyVersion: '1',
        requirementId: 'finance-approval'
      }
    }
  },
  getApprovalConfiguration: {
    response: {
      200: {
        summary: 'The configuration',
        value: {
          authorizationScopeId: 'org-1',
          policyId: 'evm-approvals',
          policyVersion: '1',
          requirementId: 'finance-approval',
          revision: 1,
          values: {
            'finance.requiredApprovals': 2
          },
          updatedAt: '2026-11-25T07:14:03.120Z',
          updatedBy: {
            type: 'api_key',
            id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
          }
        }
      }
    },
    request: {
      summary: "A requirement's stored configuration",
      parameters: {
        authorizationScopeId: 'org-1',
        policyId: 'evm-approvals',
        policyVersion: '1',
        requirementId: 'finance-approval'
      }
    }
  },
  getEffectiveApprovalRequirement: {
    response: {
      200: {
        summary: 'The effective requirement',
        value: {
          authorizationScopeId: 'org-1',
          policyId: 'evm-approvals',
          policyVersion: '1',
          ruleId: 'large',
          requirementId: 'finance-approval',
          stages: [
            {
              id: 'finance',
              eligibility: {
                roles: [
                  'finance'
                ],
                attributes: {}
              },
              requiredApprovals: 2
            }
          ],
          configurable: [
            {
              key: 'finance.requiredApprovals',
              min: 1,
              max: 3,
              default: 1
            }
          ],
          values: {
            'finance.requiredApprovals': 2
          },
          configuration: {
            revision: 1,
            values: {
            'finance.requiredApprovals': 2
          },
            updatedAt: '2026-11-25T07:14:03.120Z',
            updatedBy: {
              type: 'api_key',
              id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
            }
          }
        }
      }
    },
    request: {
      summary: 'A requirement with its configuration applied',
      parameters: {
        authorizationScopeId: 'org-1',
        policyId: 'evm-approvals',
        policyVersion: '1',
        requirementId: 'finance-approval'
      }
    }
  },
  putApprovalConfiguration: {
    response: {
      200: {
        summary: 'The new configuration and its revision',
        value: {
          authorizationScopeId: 'org-1',
          policyId: 'evm-approvals',
          policyVersion: '1',
          requirementId: 'finance-approval',
          revision: 1,
          values: {
            'finance.requiredApprovals': 2
          },
          updatedAt: '2026-11-25T07:14:03.120Z',
          updatedBy: {
            type: 'api_key',
            id: '40f137ef-3fb5-465f-afa5-6479c61f76d8'
          },
          invalidatedCaseIds: []
        }
      }
    },
    request: {
      summary: 'Configure a requirement',
      body: {
        expectedRevision: 0,
        values: {
            'finance.requiredApprovals': 2
          }
      },
      parameters: {
        authorizationScopeId: 'org-1',
        policyId: 'evm-approvals',
        policyVersion: '1',
        requirementId: 'finance-approval'
      }
    }
  },
  listApprovalConfigurationHistory: {
    response: {
      200: {
        summary: 'A page of revisions',
        value: {
          data: [
            {
              revision: 1,
              values: {
            'finance.requiredApprovals': 2
          },
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
      summary: 'Configuration revisions, newest first',
      parameters: {
        authorizationScopeId: 'org-1',
        policyId: 'evm-approvals',
        policyVersion: '1',
        requirementId: 'finance-approval'
      }
    }
  },
} satisfies Record<string, RouteExamples>;
