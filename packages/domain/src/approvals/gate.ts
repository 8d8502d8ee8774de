/**
 * Guardrail rule 4 at the signing choke point: a request that no rule denies but that matches
 * require_approval rules needs its approval case, found by its key (the Idempotency-Key, else
 * `payload:<request hash>`). Rules with an approvalRequirement (user stages) need the wallet bound
 * to an authorization scope; partner review rules (no approvalRequirement) do not, and make the
 * case wait for the app's own approval as well (one case per request, whatever matched):
 *
 * - none (or, without a key, the last one consumed): a case opens, 403 POLICY_REVIEW_REQUIRED;
 * - another request under the same key: 409 CONFLICT;
 * - pending: 403 POLICY_REVIEW_REQUIRED again (same reviewId);
 * - rejected, expired, invalidated, cancelled: 403 POLICY_DENIED `review-<status>`;
 * - completed: claimed (consumed) atomically, and the request goes on to sign;
 * - consumed, reached again under its Idempotency-Key: the run that consumed it died before
 *   recording anything (its answer would have been replayed, its record answered first), so this
 *   run takes the case over while it has not expired; after that, 409 CONFLICT.
 */
import { randomUUID } from 'node:crypto';
import { requestFingerprint } from '../idempotency/run.ts';
import type { AuthorizationScopeStore } from '../authorization-scopes/ports.ts';
import { ApiError, forbidden } from '../errors.ts';
import { fieldError } from '../shared/zod.ts';
import type { PolicyLocation } from '../policies/ports.ts';
import type { Clock } from '../shared/clock.ts';
import type { ApprovalClaim, ApprovalGate, ApprovalRequirementMatch, SigningContext } from '../signing/pipeline.ts';
import type { ApprovalCaseRecord, ApprovalCaseStore, ConfiguredApprovalValues } from './ports.ts';
import type { CaseRefresh } from './refresh.ts';
import { approvalCaseKey } from '../transactions/frozen-preparation.ts';
import { isPartnerReview, sameRequirements, snapshotStages } from './stages.ts';

export interface ApprovalGateDeps {
  store: ApprovalCaseStore;
  scopes: Pick<AuthorizationScopeStore, 'findBinding' | 'userInProject'>;
  refresh: CaseRefresh;
  clock: Clock;
  configuredValues: ConfiguredApprovalValues;
}

/** 403 POLICY_REVIEW_REQUIRED: the request waits for its case; resend it unchanged (same key) once the case is completed. */
export function reviewRequired(record: ApprovalCaseRecord): ApiError {
  const message = record.partnerReview
    ? `A partner review is required: approve it with POST /v1/permissions-v2/reviews/${record.id}/approve${record.stages.length > 0 ? ' (its conditional approval stages are needed too)' : ''}, then resend this exact request with the same Idempotency-Key`
    : 'A conditional approval is required: resend this exact request with the same Idempotency-Key once the approval case is completed';
  const error = new ApiError(403, 'POLICY_REVIEW_REQUIRED', message, { reviewId: record.id, caseId: record.id, expiresAt: record.expiresAt.toISOString() });
  error.releasesIdempotencyKey = true;
  error.decidingRules = caseRules(record);
  return error;
}

const caseRules = (record: ApprovalCaseRecord) => record.requirements.map((r) => ({ policyId: r.policyId, policyVersion: r.policyVersion, ruleId: r.ruleId }));

const deniedReasons = { rejected: 'review-rejected', expired: 'review-expired', invalidated: 'review-invalidated', cancelled: 'review-cancelled' } as const;

function reviewDenied(record: ApprovalCaseRecord, status: keyof typeof deniedReasons): ApiError {
  const reason = deniedReasons[status];
  const error = new ApiError(403, 'POLICY_DENIED', `The approval case of this request is ${status}${record.terminalReason ? ` (${record.terminalReason})` : ''}; send the request with a new Idempotency-Key to open a new case`, {
    reason,
    caseId: record.id,
    deniedBy: [{ reason, caseId: record.id }],
  });
  error.decidingRules = caseRules(record);
  return error;
}

function keyConflict(message: string, record: ApprovalCaseRecord): ApiError {
  const error = new ApiError(409, 'CONFLICT', message, { caseId: record.id });
  error.leavesIdempotencyKeyAlone = true;
  return error;
}

/** The display summary of what a case gates. */
const summaryOf = (intent: SigningContext) => ({ action: intent.action, operation: intent.operation, chain: intent.chain, transfer: intent.transfer });

export function createApprovalGate({ store, scopes, refresh, clock, configuredValues }: ApprovalGateDeps): ApprovalGate {
  async function open(intent: SigningContext, approvals: ApprovalRequirementMatch[], key: string, requestHash: string, scope: { scopeId: string; revision: number } | null): Promise<ApprovalCaseRecord | null> {
    const { caller } = intent;
    const at: PolicyLocation = { projectId: caller.projectId, environment: caller.environment };
    const initiator = caller.initiatorUserId ?? null;
    if (initiator && !(await scopes.userInProject(caller.projectId, initiator))) throw fieldError('initiatorUserId', 'not a user of this project');
    const users = approvals.filter((a) => !isPartnerReview(a));
    const configured = scope ? await Promise.all(users.map((a) => configuredValues(at, scope.scopeId, a.policyId, a.policyVersion, a.requirementId))) : [];
    const now = clock.now();
    return store.open({
      id: randomUUID(),
      ...at,
      walletId: intent.wallet.id,
      apiKeyId: caller.apiKeyId,
      caseKey: key,
      idempotencyKey: caller.idempotencyKey ?? null,
      requestHash,
      requirements: approvals.map((a) => ({ policyId: a.policyId, policyVersion: a.policyVersion, ruleId: a.ruleId, requirementId: a.requirementId })),
      scopeId: scope?.scopeId ?? null,
      bindingRevision: scope?.revision ?? null,
      stages: snapshotStages(users, configured),
      partnerReview: users.length < approvals.length,
      initiatorUserId: initiator,
      request: summaryOf(intent),
      expiresAt: new Date(now.getTime() + Math.min(...approvals.map((a) => a.expiresInMs))),
      createdAt: now,
    });
  }

  return {
    async admit(intent, approvals): Promise<ApprovalClaim> {
      const { caller } = intent;
      const at: PolicyLocation = { projectId: caller.projectId, environment: caller.environment };
      const needsScope = approvals.some((a) => !isPartnerReview(a));
      const binding = needsScope ? await scopes.findBinding(at, intent.wallet.id) : null;
      if (needsScope && !binding?.scopeId) {
        const unbound = forbidden('This request needs a conditional approval, and the wallet needs an authorization scope binding for that: bind it with PUT /v1/permissions-v2/wallets/{walletId}/authorization-scope');
        // Once the wallet is bound, the same request under the same key opens its case.
        unbound.releasesIdempotencyKey = true;
        throw unbound;
      }
      // Requests that did not come through a route (none today) bind to their parsed intent.
      const requestHash = caller.requestHash ?? requestFingerprint('INTENT', `${intent.wallet.id}/${intent.action}`, intent.input);
      const key = approvalCaseKey(caller.idempotencyKey, requestHash);
      for (let attempt = 0; attempt < 3; attempt++) {
        const latest = await store.latestByKey(at, key);
        let current = latest && (await refresh.refresh(latest));
        if (current && current.requestHash !== requestHash) {
          throw keyConflict('Idempotency-Key was already used with a different request (its approval case binds the request it was opened for)', current);
        }
        if (current && (current.status === 'pending' || current.status === 'completed') && !sameRequirements(current.requirements, approvals)) {
          current = (await store.transition(current.id, ['pending', 'completed'], 'invalidated', clock.now(), 'requirements_changed')) ?? (await store.find(current.id));
        }
        if (!current || (current.status === 'consumed' && !caller.idempotencyKey)) {
          const opened = await open(intent, approvals, key, requestHash, binding?.scopeId ? { scopeId: binding.scopeId, revision: binding.revision } : null);
          if (opened) throw reviewRequired(opened);
          continue; // another request opened this key's case meanwhile: answer with it
        }
        switch (current.status) {
          case 'pending':
            throw reviewRequired(current);
          case 'consumed': {
            // This key reached signing again, so the run that consumed the case never stored its
            // answer, and recorded no transaction (one would have answered this request before
            // signing): it died in between. Its approval stands for this run of the same request.
            if (!(await store.reclaim(current.id, clock.now(), caller.requestId))) {
              throw keyConflict('The approval case of this Idempotency-Key was already used to sign; send a new request with a new key', current);
            }
            const reclaimed = current;
            return { caseId: reclaimed.id, requirements: reclaimed.requirements, release: () => store.unclaim(reclaimed.id) };
          }
          case 'completed': {
            if (!(await store.claim(current.id, clock.now(), caller.requestId))) continue; // expired or claimed meanwhile: look again
            const claimed = current;
            return { caseId: claimed.id, requirements: claimed.requirements, release: () => store.unclaim(claimed.id) };
          }
          default:
            throw reviewDenied(current, current.status);
        }
      }
      throw new ApiError(409, 'CONFLICT', 'The approval case of this request changed while it was read; send it again');
    },
  };
}
