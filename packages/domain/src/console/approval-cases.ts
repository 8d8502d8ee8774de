/**
 * The console's conditional approval cases ("Reviews & cases" page, support GraphQL): a project
 * environment's cases, one case, the cancel (owners and developers), a case by id across the
 * partner's projects, a wallet's cases and the case a transaction record was signed under. Every read and the cancel go through
 * `ApprovalCaseService` (the REST use cases) with a caller of the case's project naming the staff
 * member, so refresh (expiry, invalidation), paging rules and the 409 of a case that is no longer
 * pending are the REST ones. Another partner's project, wallet or case is the 404 of a missing one.
 */
import { z } from 'zod';
import { environments } from '../api-keys/plans.ts';
import { approvalCaseStatuses, type ApprovalCaseStore } from '../approvals/ports.ts';
import type { ApprovalCaseService } from '../approvals/service.ts';
import type { ApprovalCaseView } from '../approvals/stages.ts';
import { ApiError, notFound } from '../errors.ts';
import type { AuditStore, Environment } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { parseInput, uuidSchema } from '../shared/zod.ts';
import { requireWriteAccess, type StaffPrincipal } from '../staff/service.ts';
import { scopeLocationInput, type ScopeConsolePrincipal } from './authorization-scopes.ts';
import { direction } from './schemas.ts';
import { staffCaller, type PartnerScope } from './scope.ts';

/** `cursor` is the previous page's `nextCursor` (the REST `beforeCaseId`). */
export const approvalCaseListInput = scopeLocationInput.extend({
  status: z.enum(approvalCaseStatuses).optional(),
  walletId: z.string().trim().min(1).max(200).optional(),
  cursor: z.string().min(1).max(200).optional(),
  direction,
  limit: z.number().int().min(1).max(100).optional(),
});
export const approvalCaseInput = scopeLocationInput.extend({ caseId: z.string().trim().min(1).max(200) });
export const recordApprovalCaseInput = z.strictObject({ transactionId: z.string().trim().min(1).max(200) });
export const walletApprovalCasesInput = z.strictObject({
  walletId: z.string().trim().min(1).max(200),
  /** Both environments when absent. */
  environment: z.enum(environments).optional(),
  limit: z.number().int().min(1).max(20).optional(),
});

/** A case with the environment it lives in (the REST view leaves it out: the key names it). */
export type ConsoleApprovalCaseView = ApprovalCaseView & { projectId: string; environment: Environment };

export function createConsoleApprovalCases(deps: {
  scope: PartnerScope;
  cases: ApprovalCaseService;
  store: Pick<ApprovalCaseStore, 'find' | 'findConsumedByRequest'>;
  audit: AuditStore;
}) {
  const { scope, cases, store } = deps;

  const projectCaller = scope.projectCaller;

  const withLocation = (view: ApprovalCaseView, caller: Caller): ConsoleApprovalCaseView => ({ ...view, projectId: caller.projectId, environment: caller.environment });

  return {
    /** Newest first, by status and wallet; `nextCursor` continues the list (null on the last page). */
    async list(principal: ScopeConsolePrincipal, input: z.input<typeof approvalCaseListInput>) {
      const parsed = parseInput(approvalCaseListInput, input);
      const caller = await projectCaller(principal, parsed);
      const query = {
        ...(parsed.status !== undefined ? { status: parsed.status } : {}),
        ...(parsed.walletId !== undefined ? { walletId: parsed.walletId } : {}),
        ...(parsed.cursor !== undefined ? { beforeCaseId: parsed.cursor } : {}),
        ...(parsed.limit !== undefined ? { limit: parsed.limit } : {}),
      };
      const page = await cases.list(caller, query);
      return { data: page.cases.map((c) => withLocation(c, caller)), nextCursor: page.nextBeforeCaseId };
    },

    async get(principal: ScopeConsolePrincipal, input: z.input<typeof approvalCaseInput>): Promise<ConsoleApprovalCaseView> {
      const parsed = parseInput(approvalCaseInput, input);
      const caller = await projectCaller(principal, parsed);
      return withLocation(await cases.get(caller, parsed.caseId), caller);
    },

    /** Owners and developers; pending cases only (409 CONFLICT with the case's status otherwise). Audited with the staff member. */
    async cancel(principal: ScopeConsolePrincipal, input: z.input<typeof approvalCaseInput>): Promise<ConsoleApprovalCaseView> {
      requireWriteAccess(principal as StaffPrincipal);
      const parsed = parseInput(approvalCaseInput, input);
      const caller = await projectCaller(principal, parsed);
      const cancelled = await cases.cancel(caller, parsed.caseId);
      await deps.audit.append({
        projectId: caller.projectId,
        apiKeyId: null,
        walletId: cancelled.walletId,
        requestId: caller.requestId,
        action: 'approval_case.cancel',
        details: { environment: caller.environment, caseId: cancelled.caseId, actor: caller.actor },
      });
      return withLocation(cancelled, caller);
    },

    /** A case by id in any project of the partner (support GraphQL). */
    async byId(principal: ScopeConsolePrincipal, caseId: string): Promise<ConsoleApprovalCaseView> {
      const record = uuidSchema.safeParse(caseId).success ? await store.find(caseId) : null;
      if (!record) throw notFound('Approval case');
      // A case of another partner's project is a missing case, not a missing project.
      await scope.project(principal, record.projectId).catch((error: unknown) => {
        throw error instanceof ApiError && error.status === 404 ? notFound('Approval case') : error;
      });
      const caller = staffCaller(principal, record.projectId, record.environment);
      return withLocation(await cases.get(caller, caseId), caller);
    },

    /**
     * The case consumed for a transaction record, or null: the case claimed by the request that
     * created the record (the case keeps the consuming request's id, the record its request id), of
     * the same wallet, API key and Idempotency-Key when the record has one.
     */
    async ofRecord(principal: ScopeConsolePrincipal, transactionId: string): Promise<ConsoleApprovalCaseView | null> {
      const record = await scope.transaction(principal, transactionId);
      if (!record.requestId) return null;
      const found = await store.findConsumedByRequest(record.walletId, record.requestId);
      if (!found || found.apiKeyId !== record.apiKeyId || (record.idempotencyKey && found.idempotencyKey !== record.idempotencyKey)) return null;
      const caller = staffCaller(principal, record.projectId, found.environment);
      return withLocation(await cases.get(caller, found.id), caller);
    },

    /** A wallet's newest cases (default 5, at most 20), of one environment or both. */
    async ofWallet(principal: ScopeConsolePrincipal, input: z.input<typeof walletApprovalCasesInput>): Promise<ConsoleApprovalCaseView[]> {
      const parsed = parseInput(walletApprovalCasesInput, input);
      const wallet = await scope.wallet(principal, parsed.walletId);
      const limit = parsed.limit ?? 5;
      const pages = await Promise.all(
        (parsed.environment ? [parsed.environment] : environments).map(async (environment) => {
          const caller = staffCaller(principal, wallet.projectId, environment);
          const page = await cases.list(caller, { walletId: wallet.id, limit });
          return page.cases.map((c) => withLocation(c, caller));
        }),
      );
      return pages
        .flat()
        .sort((x, y) => y.createdAt.localeCompare(x.createdAt) || y.caseId.localeCompare(x.caseId))
        .slice(0, limit);
    },
  };
}

export type ConsoleApprovalCases = ReturnType<typeof createConsoleApprovalCases>;
