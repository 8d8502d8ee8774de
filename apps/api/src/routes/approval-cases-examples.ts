import type { RouteExamples } from '../http/route.ts';
import { apiKeyId, authorizationScopeId, baseSepoliaTransfer, userId, walletId } from './example-values.ts';

const caseId = 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08';
const approvedAt = '2026-11-25T07:14:03.120Z';

/** The finance stage, approved once. */
const approvedFinanceStage = {
  id: 'finance',
  requirementId: 'finance-approval',
  roles: ['finance'],
  attributes: {},
  requiredApprovals: 1,
  approvals: [{ userId, at: approvedAt }],
  completedAt: approvedAt,
};

/** A transfer that needed a finance approval and got it (docs/approvals.md). */
const completedCase = {
  caseId,
  reviewId: caseId,
  status: 'completed',
  terminalReason: null,
  walletId,
  apiKeyId,
  authorizationScopeId,
  bindingRevision: 1,
  idempotencyKey: 'pay-42',
  requestHash: '9f2b6c1d4e8a7f3b2c5d6e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b',
  initiatorUserId: '80c8a078-8d35-410c-ac7e-a99912458cee',
  request: { action: 'wallet.sign.transfer', operation: 'transaction', ...baseSepoliaTransfer },
  requirements: [{ policyId: 'evm-approvals', policyVersion: '1', ruleId: 'large', requirementId: 'finance-approval' }],
  stages: [approvedFinanceStage],
  rejectedBy: null,
  partnerReview: null,
  expiresAt: '2026-11-25T08:12:00.000Z',
  createdAt: '2026-11-25T07:12:00.000Z',
  completedAt: approvedAt,
  consumedAt: null,
  rejectedAt: null,
  expiredAt: null,
  invalidatedAt: null,
  cancelledAt: null,
};

/** Request and response examples of the approval-cases routes, by operationId (openapi-examples.test.ts validates them). */
export const approvalCasesExamples = {
  listApprovalCases: {
    response: {
      200: {
        summary: 'A page of cases',
        value: { cases: [completedCase], nextBeforeCaseId: '54fd54c1-e5d9-427f-a93c-f900fe7485a4' },
      },
    },
    request: {
      summary: "A wallet's completed cases, 20 a page",
      parameters: { limit: 20, status: 'completed', walletId },
    },
  },
  getApprovalCase: {
    response: {
      200: { summary: 'The case', value: completedCase },
    },
    request: { summary: 'One approval case', parameters: { caseId } },
  },
  cancelApprovalCase: {
    response: {
      200: {
        summary: 'The cancelled case',
        value: {
          ...completedCase,
          status: 'cancelled',
          stages: [{ ...approvedFinanceStage, approvals: [], completedAt: null }],
          completedAt: null,
          cancelledAt: '2026-11-25T07:13:30.000Z',
        },
      },
    },
    request: { summary: 'Cancel a pending approval case', parameters: { caseId } },
  },
} satisfies Record<string, RouteExamples>;
