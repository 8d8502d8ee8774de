import { partnerReviewInput, partnerReviewListInput, type StaffPrincipal } from '@wallet/domain';
import type { TrpcContext } from './context.ts';
import { router, staffProcedure } from './trpc.ts';

/**
 * Partner reviews in the console (issue #14, "Reviews & cases"): the queue for every staff role,
 * approve and reject for owners only (403 FORBIDDEN for developers and support, from the use case).
 * Each procedure calls one use case of `services.consolePartnerReviews`, which runs the REST use
 * case as the staff member.
 */
const principal = (ctx: TrpcContext & { staff: StaffPrincipal }) => ({ ...ctx.staff, requestId: ctx.requestId });

export const partnerReviewsRouter = router({
  /** Newest first, `pending` unless `status` says otherwise; `cursor` is the previous page's `nextCursor`. */
  list: staffProcedure.input(partnerReviewListInput).query(({ ctx, input }) => ctx.services.consolePartnerReviews.list(principal(ctx), input)),
  get: staffProcedure.input(partnerReviewInput).query(({ ctx, input }) => ctx.services.consolePartnerReviews.get(principal(ctx), input)),
  /** The first decision is final; a decided or ended review answers with its current view. Audited `partner_review.approve`. */
  approve: staffProcedure.input(partnerReviewInput).mutation(({ ctx, input }) => ctx.services.consolePartnerReviews.approve(principal(ctx), input)),
  /** As approve; the identical resend is then 403 POLICY_DENIED review-rejected. Audited `partner_review.reject`. */
  reject: staffProcedure.input(partnerReviewInput).mutation(({ ctx, input }) => ctx.services.consolePartnerReviews.reject(principal(ctx), input)),
});
