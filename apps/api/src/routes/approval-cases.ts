import { approvalCaseListQuery, approvalCaseListSchema, approvalCaseSchema, type ApprovalCaseService } from '@wallet/domain';
import { defineRoutes, type RouteDef } from '../http/route.ts';
import { approvalCasesExamples } from './approval-cases-examples.ts';

const cases = '/v1/permissions-v2/approval-cases';
const missing = 'NOT_FOUND: no case with this id in the calling key\'s project and environment (another partner\'s case is missing too)';

/**
 * Conditional approval cases of the calling key's project and environment (guardrail rule 4).
 * Reads refresh expiry and invalidation first. Not gated by the extension switch: cases opened
 * while it was on stay readable. Partners never decide; users do (users CLI).
 */
export function approvalCaseRoutes(approvals: ApprovalCaseService): RouteDef[] {
  return defineRoutes([
    {
      method: 'get',
      path: cases,
      operationId: 'listApprovalCases',
      examples: approvalCasesExamples.listApprovalCases,
      summary: 'Approval cases, newest first',
      description: "Conditional approval cases of the calling key's project and environment (`limit` 1–100, default 20; `beforeCaseId` pages), filtered by `status` and `walletId`. Reads refresh expiry and invalidation first. Cases stay readable when the permissions v2 extension is off.",
      tag: 'Permissions',
      query: approvalCaseListQuery,
      responses: { 200: { description: 'A page of cases', schema: approvalCaseListSchema }, 400: { description: 'INVALID_REQUEST: limit outside 1-100, unknown beforeCaseId, bad filter' } },
      handler: async ({ caller, query }) => ({ status: 200, body: await approvals.list(caller, query) }),
    },
    {
      method: 'get',
      path: `${cases}/{caseId}`,
      operationId: 'getApprovalCase',
      examples: approvalCasesExamples.getApprovalCase,
      summary: 'One approval case',
      description: 'Its status and the time of each status, the stages with who approved when, the gated request, its requirements and scope. Partners read cases; users decide them.',
      tag: 'Permissions',
      responses: { 200: { description: 'The case', schema: approvalCaseSchema }, 404: { description: missing } },
      handler: async ({ caller, params }) => ({ status: 200, body: await approvals.get(caller, params.caseId!) }),
    },
    {
      method: 'post',
      path: `${cases}/{caseId}/cancel`,
      operationId: 'cancelApprovalCase',
      examples: approvalCasesExamples.cancelApprovalCase,
      summary: 'Cancel a pending approval case',
      description: 'Sets a pending case to `cancelled` (`terminalReason` `case_cancelled`); its request can never sign under that `Idempotency-Key`. A case that is not pending is 409 `CONFLICT` with its status.',
      tag: 'Permissions',
      responses: {
        200: { description: 'The cancelled case', schema: approvalCaseSchema },
        404: { description: missing },
        409: { description: 'CONFLICT: the case is not pending (body has its status)' },
      },
      handler: async ({ caller, params }) => ({ status: 200, body: await approvals.cancel(caller, params.caseId!) }),
    },
  ]);
}
