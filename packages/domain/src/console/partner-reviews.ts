/**
 * The console's partner reviews ("Reviews & cases" page): a project environment's reviews and the
 * app's decision on one, taken by an owner. Every call goes through `PartnerReviewService` (the
 * REST use cases) with a caller of the project naming the staff member, so the refresh, paging,
 * the final first decision, the staff member recorded as the decider and the audit row
 * (`partner_review.approve|reject`) are the REST ones. Another partner's project is the 404 of a
 * missing project; another partner's review the 404 of a missing review.
 */
import { z } from 'zod';
import { partnerReviewStatuses } from '../approvals/ports.ts';
import type { PartnerReviewService, PartnerReviewView } from '../approvals/reviews.ts';
import type { Environment } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { parseInput } from '../shared/zod.ts';
import { requireOwner, scopeLocationInput, type ScopeConsolePrincipal } from './authorization-scopes.ts';
import { direction } from './schemas.ts';
import type { PartnerScope } from './scope.ts';

/** `status` defaults to `pending` (the queue); `cursor` is the previous page's `nextCursor` (the REST `beforeReviewId`). */
export const partnerReviewListInput = scopeLocationInput.extend({
  status: z.enum(partnerReviewStatuses).optional(),
  cursor: z.string().min(1).max(200).optional(),
  direction,
  limit: z.number().int().min(1).max(100).optional(),
});
export const partnerReviewInput = scopeLocationInput.extend({ reviewId: z.string().trim().min(1).max(200) });

/** A review with the environment it lives in (the REST view leaves it out: the key names it). */
export type ConsolePartnerReviewView = PartnerReviewView & { projectId: string; environment: Environment };

export function createConsolePartnerReviews(deps: { scope: PartnerScope; reviews: PartnerReviewService }) {
  const { scope, reviews } = deps;

  const projectCaller = scope.projectCaller;

  const withLocation = (view: PartnerReviewView, caller: Caller): ConsolePartnerReviewView => ({ ...view, projectId: caller.projectId, environment: caller.environment });

  /** Owners only: the decision lets a paused request sign (or never), as the partner's key would. */
  async function decide(principal: ScopeConsolePrincipal, input: z.input<typeof partnerReviewInput>, decision: 'approve' | 'reject') {
    requireOwner(principal, 'Only owners may approve or reject partner reviews');
    const parsed = parseInput(partnerReviewInput, input);
    const caller = await projectCaller(principal, parsed);
    return withLocation(await reviews[decision](caller, parsed.reviewId), caller);
  }

  return {
    /** Newest first; pending ones unless `status` says otherwise; `nextCursor` continues the list (null on the last page). */
    async list(principal: ScopeConsolePrincipal, input: z.input<typeof partnerReviewListInput>) {
      const parsed = parseInput(partnerReviewListInput, input);
      const caller = await projectCaller(principal, parsed);
      const page = await reviews.list(caller, {
        status: parsed.status ?? 'pending',
        ...(parsed.cursor !== undefined ? { beforeReviewId: parsed.cursor } : {}),
        ...(parsed.limit !== undefined ? { limit: parsed.limit } : {}),
      });
      return { data: page.reviews.map((r) => withLocation(r, caller)), nextCursor: page.nextBeforeReviewId };
    },

    async get(principal: ScopeConsolePrincipal, input: z.input<typeof partnerReviewInput>): Promise<ConsolePartnerReviewView> {
      const parsed = parseInput(partnerReviewInput, input);
      const caller = await projectCaller(principal, parsed);
      return withLocation(await reviews.get(caller, parsed.reviewId), caller);
    },

    /** The first decision is final; a decided or ended review answers with its current view (as REST does). */
    approve: (principal: ScopeConsolePrincipal, input: z.input<typeof partnerReviewInput>) => decide(principal, input, 'approve'),
    reject: (principal: ScopeConsolePrincipal, input: z.input<typeof partnerReviewInput>) => decide(principal, input, 'reject'),
  };
}

export type ConsolePartnerReviews = ReturnType<typeof createConsolePartnerReviews>;
