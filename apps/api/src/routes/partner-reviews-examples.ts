import type { RouteExamples } from '../http/route.ts';
import { apiKeyActor, baseSepoliaTransfer, walletId } from './example-values.ts';

const reviewId = 'a978ee9c-bbf7-45fd-a8fc-e4e7a6d52c08';

/** A partner review as it opens (docs/approvals.md): pending until the app approves or rejects it. */
const pendingReview = {
  reviewId,
  status: 'pending',
  caseStatus: 'pending',
  terminalReason: null,
  walletId,
  request: {
    action: 'wallet.sign.sign-transaction',
    operation: 'transaction',
    ...baseSepoliaTransfer,
  },
  decidedBy: null,
  createdAt: '2026-11-25T07:12:00.000Z',
  expiresAt: '2026-11-25T07:17:00.000Z',
  approvedAt: null,
  rejectedAt: null,
  consumedAt: null,
  expiredAt: null,
  invalidatedAt: null,
  cancelledAt: null,
};
const reviewNotFound = { summary: 'No such review in this project', value: { code: 'NOT_FOUND', message: 'Review not found' } };

/** Request and response examples of the partner review routes, by operationId (openapi-examples.test.ts validates them). */
export const partnerReviewsExamples = {
  listPartnerReviews: {
    request: { summary: 'Pending reviews, 20 a page', parameters: { limit: 20, status: 'pending' } },
    response: {
      200: { summary: 'A page of reviews', value: { reviews: [pendingReview], nextBeforeReviewId: null } },
    },
  },
  getPartnerReview: {
    request: { summary: 'One review', parameters: { reviewId } },
    response: {
      200: { summary: 'A pending review', value: pendingReview },
      404: reviewNotFound,
    },
  },
  approvePartnerReview: {
    request: { summary: 'Approve a review', parameters: { reviewId } },
    response: {
      200: {
        summary: 'The approved review: resend the request with the same Idempotency-Key',
        value: { ...pendingReview, status: 'approved', caseStatus: 'completed', decidedBy: apiKeyActor, approvedAt: '2026-11-25T07:13:10.000Z' },
      },
      404: reviewNotFound,
    },
  },
  rejectPartnerReview: {
    request: { summary: 'Reject a review', parameters: { reviewId } },
    response: {
      200: {
        summary: 'The rejected review',
        value: { ...pendingReview, status: 'rejected', caseStatus: 'rejected', terminalReason: 'rejected', decidedBy: apiKeyActor, rejectedAt: '2026-11-25T07:13:10.000Z' },
      },
      404: reviewNotFound,
    },
  },
} satisfies Record<string, RouteExamples>;
