/**
 * Partner reviews: a guardrail `require_approval` rule without an approvalRequirement makes the
 * request's approval case wait for the app's own approval (REST with the partner key, or an owner
 * in the console acting through `caller.actor`). The app approves or rejects once; a review ends
 * with its case (5 minutes after opening at the latest). Another partner's review, a case without
 * a partner review and an unknown id are the same 404.
 */
import { invalidRequest, notFound } from '../errors.ts';
import type { PolicyLocation, PolicyStore } from '../policies/ports.ts';
import type { AuditEntry } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput, uuidSchema } from '../shared/zod.ts';
import type { ApprovalCaseRecord, ApprovalCaseStore, PartnerReviewer, PartnerReviewStatus } from './ports.ts';
import { createCaseRefresh } from './refresh.ts';
import { partnerReviewListQuery } from './schemas.ts';
import { planPartnerDecision } from './stages.ts';

export interface PartnerReviewServiceDeps {
  store: ApprovalCaseStore;
  policies: Pick<PolicyStore, 'listAllActive'>;
  clock: Clock;
}

/** The review's status: the case's, except that the app's approval reads `approved` until the request signs. */
export function partnerReviewStatus(record: Pick<ApprovalCaseRecord, 'status' | 'partnerDecision'>): PartnerReviewStatus {
  if (record.status === 'completed') return 'approved';
  if (record.status === 'pending') return record.partnerDecision?.decision === 'approve' ? 'approved' : 'pending';
  return record.status;
}

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : null);

export function partnerReviewView(record: ApprovalCaseRecord) {
  const decision = record.partnerDecision;
  return {
    reviewId: record.id,
    status: partnerReviewStatus(record),
    caseStatus: record.status,
    terminalReason: record.terminalReason,
    walletId: record.walletId,
    request: record.request,
    decidedBy: decision?.decidedBy ?? null,
    createdAt: record.createdAt.toISOString(),
    expiresAt: record.expiresAt.toISOString(),
    approvedAt: iso(decision?.decision === 'approve' ? decision.decidedAt : null),
    rejectedAt: iso(record.rejectedAt),
    consumedAt: iso(record.consumedAt),
    expiredAt: iso(record.expiredAt),
    invalidatedAt: iso(record.invalidatedAt),
    cancelledAt: iso(record.cancelledAt),
  };
}

export type PartnerReviewView = ReturnType<typeof partnerReviewView>;

/** The console names the staff member (`caller.actor`); a REST call is the API key. */
const reviewerOf = (caller: Caller): PartnerReviewer => (caller.actor?.type === 'staff' ? caller.actor : { type: 'api_key', id: caller.apiKeyId });

const location = (caller: PolicyLocation): PolicyLocation => ({ projectId: caller.projectId, environment: caller.environment });
const inLocation = (record: ApprovalCaseRecord, at: PolicyLocation) => record.projectId === at.projectId && record.environment === at.environment;

export function createPartnerReviewService(deps: PartnerReviewServiceDeps) {
  const { store, clock } = deps;
  const refresh = createCaseRefresh(deps);

  async function find(caller: Caller, reviewId: string): Promise<ApprovalCaseRecord | null> {
    const record = uuidSchema.safeParse(reviewId).success ? await store.find(reviewId) : null;
    return record && record.partnerReview && inLocation(record, caller) ? record : null;
  }

  async function load(caller: Caller, reviewId: string): Promise<ApprovalCaseRecord> {
    const record = await find(caller, reviewId);
    if (!record) throw notFound('Review');
    return refresh.refresh(record);
  }

  /**
   * The first decision is final (and is an audit row: `partner_review.approve|reject`); a call on
   * a decided or ended review answers its current view.
   */
  async function decide(caller: Caller, reviewId: string, decision: 'approve' | 'reject'): Promise<PartnerReviewView> {
    const record = await load(caller, reviewId);
    const by = reviewerOf(caller);
    const decided = await store.decidePartner(
      record.id,
      (locked) => planPartnerDecision(locked, decision, by, clock.now()),
      (after): AuditEntry => ({
        projectId: after.projectId,
        apiKeyId: by.type === 'api_key' ? by.id : null,
        walletId: after.walletId,
        requestId: caller.requestId ?? null,
        action: `partner_review.${decision}`,
        details: { environment: after.environment, actor: by, reviewId: after.id, caseStatus: after.status },
      }),
    );
    return partnerReviewView(await refresh.refresh(decided));
  }

  return {
    /** Newest first; `status` filters by review status (pending = waiting for the app). */
    async list(caller: Caller, query: unknown): Promise<{ reviews: PartnerReviewView[]; nextBeforeReviewId: string | null }> {
      const input = parseInput(partnerReviewListQuery, query);
      let before: { createdAt: Date; id: string } | null = null;
      if (input.beforeReviewId !== undefined) {
        const anchor = await find(caller, input.beforeReviewId);
        if (!anchor) {
          throw invalidRequest('Invalid request: beforeReviewId: not a review of this project and environment', { details: [{ path: 'beforeReviewId', message: 'unknown review' }] });
        }
        before = { createdAt: anchor.createdAt, id: anchor.id };
      }
      await store.expireDue(location(caller), clock.now());
      // A policy change invalidates lazily: refresh what a status filter saw, and drop what moved out of it.
      const rows = await store.list(location(caller), { partnerReview: { status: input.status } }, before, input.limit + 1);
      const page = rows.slice(0, input.limit);
      const shown = (await refresh.refreshAll(page)).filter((r) => input.status === undefined || partnerReviewStatus(r) === input.status);
      return { reviews: shown.map(partnerReviewView), nextBeforeReviewId: rows.length > input.limit ? (page.at(-1)?.id ?? null) : null };
    },

    async get(caller: Caller, reviewId: string): Promise<PartnerReviewView> {
      return partnerReviewView(await load(caller, reviewId));
    },

    approve: (caller: Caller, reviewId: string) => decide(caller, reviewId, 'approve'),
    reject: (caller: Caller, reviewId: string) => decide(caller, reviewId, 'reject'),
  };
}

export type PartnerReviewService = ReturnType<typeof createPartnerReviewService>;
