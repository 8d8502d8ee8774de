/**
 * Approval cases outside the signing path: partners list, read and cancel them (REST
 * /v1/permissions-v2/approval-cases); users approve or reject them through the users CLI (the
 * partner key never decides). Every read refreshes expiry and invalidation first.
 */
import type { AuthorizationScopeStore } from '../authorization-scopes/ports.ts';
import { ApiError, invalidRequest, notFound } from '../errors.ts';
import type { PolicyLocation, PolicyStore } from '../policies/ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput, uuidSchema } from '../shared/zod.ts';
import type { ApprovalGate } from '../signing/pipeline.ts';
import { createApprovalGate } from './gate.ts';
import type { ApprovalCaseRecord, ApprovalCaseStore, ConfiguredApprovalValues } from './ports.ts';
import { createNonceHoldCheck, type NonceHoldDeps, type OpenNonceHold } from './nonce-holds.ts';
import { createCaseRefresh } from './refresh.ts';
import { approvalCaseListQuery, decideCaseInput } from './schemas.ts';
import { approvalCaseView, heldAssignments, planDecision } from './stages.ts';

export interface ApprovalCaseServiceDeps {
  store: ApprovalCaseStore;
  scopes: Pick<AuthorizationScopeStore, 'findBinding' | 'findAssignments' | 'userInProject'>;
  policies: Pick<PolicyStore, 'listAllActive'>;
  clock: Clock;
  /** Requirement configuration per scope (wired to the configuration routes at merge; `async () => null` until then). */
  configuredValues: ConfiguredApprovalValues;
  /** Frozen transfer preparations, for the nonces open cases hold. */
  preparations: NonceHoldDeps['preparations'];
}

const location = (caller: PolicyLocation): PolicyLocation => ({ projectId: caller.projectId, environment: caller.environment });
const inLocation = (record: ApprovalCaseRecord, at: PolicyLocation) => record.projectId === at.projectId && record.environment === at.environment;

export function createApprovalCaseService(deps: ApprovalCaseServiceDeps): {
  gate: ApprovalGate;
  openNonceHold: OpenNonceHold;
  list(caller: Caller, query: unknown): Promise<{ cases: ReturnType<typeof approvalCaseView>[]; nextBeforeCaseId: string | null }>;
  get(caller: Caller, caseId: string): Promise<ReturnType<typeof approvalCaseView>>;
  cancel(caller: Caller, caseId: string): Promise<ReturnType<typeof approvalCaseView>>;
  decide(input: unknown, decision: 'approve' | 'reject'): Promise<ReturnType<typeof approvalCaseView>>;
} {
  const { store, scopes, clock } = deps;
  const refresh = createCaseRefresh(deps);
  const gate = createApprovalGate({ store, scopes, refresh, clock, configuredValues: deps.configuredValues });

  /** The refreshed case of the caller's project and environment; a foreign or malformed id is 404 like a missing one. */
  async function load(caller: Caller, caseId: string): Promise<ApprovalCaseRecord> {
    const record = uuidSchema.safeParse(caseId).success ? await store.find(caseId) : null;
    if (!record || !inLocation(record, caller)) throw notFound('Approval case');
    return refresh.refresh(record);
  }

  return {
    gate,
    openNonceHold: createNonceHoldCheck({ preparations: deps.preparations, store, refresh, clock }),

    async list(caller, query) {
      const input = parseInput(approvalCaseListQuery, query);
      let before: { createdAt: Date; id: string } | null = null;
      if (input.beforeCaseId !== undefined) {
        const anchor = await store.find(input.beforeCaseId);
        if (!anchor || !inLocation(anchor, caller)) {
          throw invalidRequest('Invalid request: beforeCaseId: not a case of this project and environment', { details: [{ path: 'beforeCaseId', message: 'unknown case' }] });
        }
        before = { createdAt: anchor.createdAt, id: anchor.id };
      }
      // Expiry first, so a status filter sees it; a case a policy change invalidates is refreshed as it is listed.
      await store.expireDue(location(caller), clock.now());
      const rows = await store.list(location(caller), { status: input.status, walletId: input.walletId }, before, input.limit + 1);
      const shown = await refresh.refreshAll(rows.slice(0, input.limit));
      return { cases: shown.map(approvalCaseView), nextBeforeCaseId: rows.length > input.limit ? (shown.at(-1)?.id ?? null) : null };
    },

    async get(caller, caseId) {
      return approvalCaseView(await load(caller, caseId));
    },

    /** Pending only: `cancelled` with terminalReason `case_cancelled`; otherwise 409 with the current status. */
    async cancel(caller, caseId) {
      const record = await load(caller, caseId);
      const moved = record.status === 'pending' ? await store.transition(record.id, ['pending'], 'cancelled', clock.now(), 'case_cancelled') : null;
      if (!moved) {
        const now = (await store.find(record.id)) ?? record;
        throw new ApiError(409, 'CONFLICT', `Only a pending case can be cancelled; this one is ${now.status}`, { status: now.status });
      }
      return approvalCaseView(moved);
    },

    /**
     * A user's approval or rejection (users CLI): the case must be pending and unexpired, the
     * user must hold one of the current stage's roles in the case's scope now, must not be the
     * initiator and must not have decided before. Decisions on one case are serialized by its row lock.
     */
    async decide(input, decision) {
      const { caseId, userId } = parseInput(decideCaseInput, input);
      const found = await store.find(caseId);
      if (!found) throw notFound('Approval case');
      const record = await refresh.refresh(found);
      const at = { projectId: record.projectId, environment: record.environment };
      if (!(await scopes.userInProject(record.projectId, userId))) throw notFound('User');
      const assignments = record.scopeId ? await scopes.findAssignments(at, record.scopeId, userId) : null;
      const held = heldAssignments(assignments?.assignments ?? []);
      const decided = await store.decide(record.id, (locked) => planDecision(locked, userId, decision, held, clock.now()));
      return approvalCaseView(decided);
    },
  };
}

export type ApprovalCaseService = ReturnType<typeof createApprovalCaseService>;
