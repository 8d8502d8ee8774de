import { z } from 'zod';
import { approvalCaseStatuses, partnerReviewStatuses } from './ports.ts';

const limit = z.coerce
  .number({ error: 'expected an integer from 1 to 100' })
  .int({ error: 'expected an integer from 1 to 100' })
  .min(1, { error: 'expected an integer from 1 to 100' })
  .max(100, { error: 'expected an integer from 1 to 100' });

export const approvalCaseListQuery = z
  .strictObject({
    limit: limit.default(20).describe('1-100, default 20'),
    beforeCaseId: z.uuid().optional().describe('The nextBeforeCaseId of the previous page: cases older than this one (unknown = 400)'),
    status: z.enum(approvalCaseStatuses).optional(),
    walletId: z.uuid().optional(),
  })
  .meta({ id: 'ApprovalCaseListQuery' });

/** `users -- approve|reject --case-id ID --user-id ID`. */
export const decideCaseInput = z.strictObject({ caseId: z.uuid(), userId: z.uuid() });

const iso = z.string().describe('ISO 8601');
const nullableIso = iso.nullable();
const reviewerSchema = z.object({ type: z.enum(['api_key', 'staff']), id: z.uuid() }).describe('The API key or the console staff member that decided');

export const approvalCaseSchema = z
  .object({
    caseId: z.uuid(),
    reviewId: z.uuid().describe('The id POLICY_REVIEW_REQUIRED answered with (= caseId)'),
    status: z.enum(approvalCaseStatuses),
    terminalReason: z
      .string()
      .nullable()
      .describe('Why the case ended without signing: case_rejected (a user), review_rejected (the app), case_cancelled, case_expired, policy_changed, requirements_changed, assignments_changed, binding_changed; null otherwise'),
    walletId: z.uuid(),
    apiKeyId: z.uuid(),
    authorizationScopeId: z.string().nullable().describe('Null when only partner review rules matched (they need no binding)'),
    bindingRevision: z.int().nullable().describe('The wallet binding revision the case opened under; null with authorizationScopeId'),
    idempotencyKey: z.string().nullable(),
    requestHash: z.string().describe('SHA-256 of method, path and canonical body: the resend must match it'),
    initiatorUserId: z.uuid().nullable(),
    request: z
      .object({
        action: z.string(),
        operation: z.string(),
        chain: z.object({ walletType: z.string(), chainId: z.string().nullable(), network: z.string().nullable() }),
        transfer: z.object({ to: z.string(), value: z.string(), tokenAddress: z.string().nullable() }).nullable(),
      })
      .describe('What the gated request does'),
    requirements: z.array(z.object({ policyId: z.string(), policyVersion: z.string(), ruleId: z.string(), requirementId: z.string() })),
    stages: z.array(
      z.object({
        id: z.string(),
        requirementId: z.string(),
        roles: z.array(z.string()),
        attributes: z.record(z.string(), z.array(z.string())).describe('Attribute name -> accepted values (every one must hold)'),
        requiredApprovals: z.int(),
        approvals: z.array(z.object({ userId: z.uuid(), at: iso })),
        completedAt: nullableIso,
      }),
    ),
    rejectedBy: z.object({ userId: z.uuid(), stageId: z.string(), at: iso }).nullable(),
    partnerReview: z
      .object({ decision: z.enum(['approve', 'reject']).nullable(), decidedAt: nullableIso, decidedBy: reviewerSchema.nullable() })
      .nullable()
      .describe('A partner review rule matched: the app\'s decision (POST /v1/permissions-v2/reviews/{reviewId}/approve|reject); null when none matched'),
    expiresAt: iso,
    createdAt: iso,
    completedAt: nullableIso,
    consumedAt: nullableIso,
    rejectedAt: nullableIso,
    expiredAt: nullableIso,
    invalidatedAt: nullableIso,
    cancelledAt: nullableIso,
  })
  .meta({ id: 'ApprovalCase' });

export const approvalCaseListSchema = z
  .object({ cases: z.array(approvalCaseSchema), nextBeforeCaseId: z.uuid().nullable().describe('Pass as beforeCaseId for the next page; null on the last') })
  .meta({ id: 'ApprovalCaseList' });

export const policyReviewRequiredBody = z
  .object({
    code: z.literal('POLICY_REVIEW_REQUIRED'),
    message: z.string(),
    reviewId: z.uuid(),
    caseId: z.uuid(),
    expiresAt: iso,
  })
  .meta({ id: 'PolicyReviewRequired' });

/** GET /v1/permissions-v2/reviews (and the console's review queue). */
export const partnerReviewListQuery = z
  .strictObject({
    limit: limit.default(20).describe('1-100, default 20'),
    beforeReviewId: z.uuid().optional().describe('The nextBeforeReviewId of the previous page: reviews older than this one (unknown = 400)'),
    status: z.enum(partnerReviewStatuses).optional(),
  })
  .meta({ id: 'PartnerReviewListQuery' });

export const partnerReviewSchema = z
  .object({
    reviewId: z.uuid().describe('The id POLICY_REVIEW_REQUIRED answered with (= the approval case id)'),
    status: z
      .enum(partnerReviewStatuses)
      .describe('pending, approved (by the app; the case may still wait for user stages: caseStatus), rejected (by the app or a user), expired, consumed (the request signed), invalidated (policy or scope changed), cancelled (the case was cancelled)'),
    caseStatus: z.enum(approvalCaseStatuses).describe('The underlying approval case\'s status (completed = the resend signs)'),
    terminalReason: z.string().nullable(),
    walletId: z.uuid(),
    request: approvalCaseSchema.shape.request,
    decidedBy: reviewerSchema.nullable(),
    createdAt: iso,
    expiresAt: iso.describe('5 minutes after opening (less when a conditional approval requirement of the same request expires sooner); approval does not extend it'),
    approvedAt: nullableIso,
    rejectedAt: nullableIso,
    consumedAt: nullableIso,
    expiredAt: nullableIso,
    invalidatedAt: nullableIso,
    cancelledAt: nullableIso,
  })
  .meta({ id: 'PartnerReview' });

export const partnerReviewListSchema = z
  .object({ reviews: z.array(partnerReviewSchema), nextBeforeReviewId: z.uuid().nullable().describe('Pass as beforeReviewId for the next page; null on the last') })
  .meta({ id: 'PartnerReviewList' });
