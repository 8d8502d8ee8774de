import { ApiError, partnerReviewListQuery, partnerReviewListSchema, partnerReviewSchema, type PartnerReviewService } from '@wallet/domain';
import { defineRoutes, type RouteDef } from '../http/route.ts';
import { partnerReviewsExamples } from './partner-reviews-examples.ts';

const reviews = '/v1/permissions-v2/reviews';
const missing = 'NOT_FOUND: no partner review with this id in the calling key\'s project and environment (another partner\'s review, or a case without a partner review, is missing too)';

function noBody(body: unknown): void {
  if (body !== undefined && !(typeof body === 'object' && body !== null && !Array.isArray(body) && Object.keys(body).length === 0)) {
    throw new ApiError(400, 'INVALID_REQUEST', 'Invalid request: approve and reject take no body');
  }
}

const decided = (verb: string) => ({
  200: { description: `The review: ${verb}, or its final status when it had already ended or been decided (the first decision is final)`, schema: partnerReviewSchema },
  400: { description: 'INVALID_REQUEST: a body was sent' },
  404: { description: missing },
});

/**
 * Partner reviews (a guardrail require_approval rule without approvalRequirement): the app's own
 * approval of a paused request. Not gated by the permissions v2 extension switch.
 */
export function partnerReviewRoutes(service: PartnerReviewService): RouteDef[] {
  return defineRoutes([
    {
      method: 'get',
      path: reviews,
      operationId: 'listPartnerReviews',
      examples: partnerReviewsExamples.listPartnerReviews,
      summary: 'Partner reviews, newest first',
      description: "Requests paused by a guardrail rule that requires the partner's own approval (`limit` 1–100, default 20; `beforeReviewId` pages; filtered by `status`, e.g. `pending`). Not gated by the permissions v2 extension.",
      tag: 'Permissions',
      query: partnerReviewListQuery,
      responses: { 200: { description: 'A page of reviews', schema: partnerReviewListSchema }, 400: { description: 'INVALID_REQUEST: limit outside 1-100, unknown beforeReviewId, bad status' } },
      handler: async ({ caller, query }) => ({ status: 200, body: await service.list(caller, query) }),
    },
    {
      method: 'get',
      path: `${reviews}/{reviewId}`,
      operationId: 'getPartnerReview',
      examples: partnerReviewsExamples.getPartnerReview,
      summary: 'One partner review',
      description: "One partner review of the calling key's project and environment; another partner's review, or a case without a partner review, is 404.",
      tag: 'Permissions',
      responses: { 200: { description: 'The review', schema: partnerReviewSchema }, 404: { description: missing } },
      handler: async ({ caller, params }) => ({ status: 200, body: await service.get(caller, params.reviewId!) }),
    },
    {
      method: 'post',
      path: `${reviews}/{reviewId}/approve`,
      operationId: 'approvePartnerReview',
      examples: partnerReviewsExamples.approvePartnerReview,
      summary: 'Approve a pending partner review',
      description: 'Takes no body. After the approval, the identical request resent with the same `Idempotency-Key` signs once. The first decision is final: a review already decided or ended answers with its final status.',
      tag: 'Permissions',
      responses: decided('approved'),
      handler: async ({ caller, params, body }) => {
        noBody(body);
        return { status: 200, body: await service.approve(caller, params.reviewId!) };
      },
    },
    {
      method: 'post',
      path: `${reviews}/{reviewId}/reject`,
      operationId: 'rejectPartnerReview',
      examples: partnerReviewsExamples.rejectPartnerReview,
      summary: 'Reject a pending partner review',
      description: 'Takes no body. The identical request resent afterwards is 403 `POLICY_DENIED` (`review-rejected`). The first decision is final: a review already decided or ended answers with its final status.',
      tag: 'Permissions',
      responses: decided('rejected'),
      handler: async ({ caller, params, body }) => {
        noBody(body);
        return { status: 200, body: await service.reject(caller, params.reviewId!) };
      },
    },
  ]);
}
