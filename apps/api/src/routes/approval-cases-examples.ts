import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the approval-cases routes, by operationId (openapi-examples.test.ts validates them). */
export const approvalCasesExamples = {
  listApprovalCases: {
    response: {
      200: {
        summary: 'A page of cases',
        value: {
          cases: [
            {
              caseId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08',
              reviewId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08',
              status: 'completed',
              terminalReason: null,
              walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
              apiKeyId: '40f137ef-3fb5-465f-afa5-6479c61f76d8',
              authorizationScopeId: 'org-1',
              bindingRevision: 1,
              idempotencyKey: 'pay-42',
              requestHash: '9f2b6c1d4e8a7f3b2c5d6e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b',
              initiatorUserId: '80c8a078-8d35-410c-ac7e-a99912458cee',
              request: {
                action: 'wallet.sign.transfer',
                operation: 'transaction',
                chain: {
                  walletType: 'EVM',
                  chainId: '84532',
                  network: null
                },
                transfer: {
                  to: '0x000000000000000000000000000000000000dEaD',
                  value: '2000000000000000',
                  tokenAddress: null
                }
              },
              requirements: [
                {
                  policyId: 'evm-approvals',
                  policyVersion: '1',
                  ruleId: 'large',
                  requirementId: 'finance-approval'
                }
              ],
              stages: [
                {
                  id: 'finance',
                  requirementId: 'finance-approval',
                  roles: [
                    'finance'
                  ],
                  attributes: {},
                  requiredApprovals: 1,
                  approvals: [
                    {
                      userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be',
                      at: '2026-11-25T07:14:03.120Z'
                    }
                  ],
                  completedAt: '2026-11-25T07:14:03.120Z'
                }
              ],
              rejectedBy: null,
              partnerReview: null,
              expiresAt: '2026-11-25T08:12:00.000Z',
              createdAt: '2026-11-25T07:12:00.000Z',
              completedAt: '2026-11-25T07:14:03.120Z',
              consumedAt: null,
              rejectedAt: null,
              expiredAt: null,
              invalidatedAt: null,
              cancelledAt: null
            }
          ],
          nextBeforeCaseId: '54fd54c1-e5d9-427f-a93c-f900fe7485a4'
        }
      }
    },
    request: {
      summary: "A wallet's completed cases, 20 a page",
      parameters: {
        limit: 20,
        status: 'completed',
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
  getApprovalCase: {
    response: {
      200: {
        summary: 'The case',
        value: {
          caseId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08',
          reviewId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08',
          status: 'completed',
          terminalReason: null,
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          apiKeyId: '40f137ef-3fb5-465f-afa5-6479c61f76d8',
          authorizationScopeId: 'org-1',
          bindingRevision: 1,
          idempotencyKey: 'pay-42',
          requestHash: '9f2b6c1d4e8a7f3b2c5d6e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b',
          initiatorUserId: '80c8a078-8d35-410c-ac7e-a99912458cee',
          request: {
            action: 'wallet.sign.transfer',
            operation: 'transaction',
            chain: {
              walletType: 'EVM',
              chainId: '84532',
              network: null
            },
            transfer: {
              to: '0x000000000000000000000000000000000000dEaD',
              value: '2000000000000000',
              tokenAddress: null
            }
          },
          requirements: [
            {
              policyId: 'evm-approvals',
              policyVersion: '1',
              ruleId: 'large',
              requirementId: 'finance-approval'
            }
          ],
          stages: [
            {
              id: 'finance',
              requirementId: 'finance-approval',
              roles: [
                'finance'
              ],
              attributes: {},
              requiredApprovals: 1,
              approvals: [
                {
                  userId: '6ccb2121-4ffd-40b0-ac2c-1607cf6a05be',
                  at: '2026-11-25T07:14:03.120Z'
                }
              ],
              completedAt: '2026-11-25T07:14:03.120Z'
            }
          ],
          rejectedBy: null,
          partnerReview: null,
          expiresAt: '2026-11-25T08:12:00.000Z',
          createdAt: '2026-11-25T07:12:00.000Z',
          completedAt: '2026-11-25T07:14:03.120Z',
          consumedAt: null,
          rejectedAt: null,
          expiredAt: null,
          invalidatedAt: null,
          cancelledAt: null
        }
      }
    },
    request: {
      summary: 'One approval case',
      parameters: {
        caseId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08'
      }
    }
  },
  cancelApprovalCase: {
    response: {
      200: {
        summary: 'The cancelled case',
        value: {
          caseId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08',
          reviewId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08',
          status: 'cancelled',
          terminalReason: null,
          walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          apiKeyId: '40f137ef-3fb5-465f-afa5-6479c61f76d8',
          authorizationScopeId: 'org-1',
          bindingRevision: 1,
          idempotencyKey: 'pay-42',
          requestHash: '9f2b6c1d4e8a7f3b2c5d6e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b',
          initiatorUserId: '80c8a078-8d35-410c-ac7e-a99912458cee',
          request: {
            action: 'wallet.sign.transfer',
            operation: 'transaction',
            chain: {
              walletType: 'EVM',
              chainId: '84532',
              network: null
            },
            transfer: {
              to: '0x000000000000000000000000000000000000dEaD',
              value: '2000000000000000',
              tokenAddress: null
            }
          },
          requirements: [
            {
              policyId: 'evm-approvals',
              policyVersion: '1',
              ruleId: 'large',
              requirementId: 'finance-approval'
            }
          ],
          stages: [
            {
              id: 'finance',
              requirementId: 'finance-approval',
              roles: [
                'finance'
              ],
              attributes: {},
              requiredApprovals: 1,
              approvals: [],
              completedAt: null
            }
          ],
          rejectedBy: null,
          partnerReview: null,
          expiresAt: '2026-11-25T08:12:00.000Z',
          createdAt: '2026-11-25T07:12:00.000Z',
          completedAt: null,
          consumedAt: null,
          rejectedAt: null,
          expiredAt: null,
          invalidatedAt: null,
          cancelledAt: '2026-11-25T07:13:30.000Z'
        }
      }
    },
    request: {
      summary: 'Cancel a pending approval case',
      parameters: {
        caseId: 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08'
      }
    }
  },
} satisfies Record<string, RouteExamples>;
