/**
 * Authorization scopes (permissions v2): partner-chosen scope ids, each user's roles and attributes
 * in a scope, and the scope a wallet is bound to. Every write names the revision it replaces
 * (`expectedRevision`, 0 before the first write) and a stale one is refused with 409 and the
 * current revision; every revision is kept with who wrote it and when.
 */
import { notFound } from '../errors.ts';
import type { AuditEntry, WalletRecord } from '../ports.ts';
import type { PolicyLocation } from '../policies/ports.ts';
import { policyScopeOfCaller, type PolicyScope } from '../policies/service.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput, uuidSchema } from '../shared/zod.ts';
import type { PermissionsExtension } from './extension.ts';
import { badCursor, checkScopeId, decodeRevisionCursor, staleRevision } from './revisions.ts';
import type { AssignmentSetRecord, AuthorizationScopeStore, RevisionMeta, RevisionOutcome, WalletBindingRecord } from './ports.ts';
import { bindWalletBody, replaceAssignmentsBody, revisionListQuery } from './schemas.ts';

export interface AuthorizationScopeServiceDeps {
  store: AuthorizationScopeStore;
  extension: PermissionsExtension;
  clock: Clock;
  /** The wallet of the caller's project (404 for a missing, malformed or foreign id). */
  loadWallet(caller: Caller, walletId: string): Promise<WalletRecord>;
}

// Opaque cursors of the two list kinds: a revision number, or the last user id of a members page.
const encode = (text: string) => Buffer.from(text, 'utf8').toString('base64url');
function decodeUserCursor(cursor: string): string {
  const match = /^user:(.+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || !uuidSchema.safeParse(match[1]).success) throw badCursor();
  return match[1]!;
}

function page<Row, View>(rows: Row[], limit: number, cursorOf: (row: Row) => string, view: (row: Row) => View) {
  const hasMore = rows.length > limit;
  const shown = rows.slice(0, limit);
  const last = shown.at(-1);
  return { data: shown.map(view), pagination: { cursor: hasMore && last !== undefined ? encode(cursorOf(last)) : null, hasMore, limit } };
}

const revisionView = (row: RevisionMeta) => ({ revision: row.revision, createdAt: row.createdAt.toISOString(), createdBy: row.createdBy, requestId: row.requestId });

const assignmentSetView = (record: AssignmentSetRecord) => ({
  authorizationScopeId: record.scopeId,
  userId: record.userId,
  revision: record.revision,
  assignments: record.assignments,
  updatedAt: record.updatedAt ? record.updatedAt.toISOString() : null,
});

const bindingView = (record: WalletBindingRecord) => ({
  walletId: record.walletId,
  authorizationScopeId: record.scopeId,
  revision: record.revision,
  updatedAt: record.updatedAt ? record.updatedAt.toISOString() : null,
});



const location = (scope: PolicyLocation): PolicyLocation => ({ projectId: scope.projectId, environment: scope.environment });

export function createAuthorizationScopeService({ store, extension, clock, loadWallet }: AuthorizationScopeServiceDeps) {
  async function requireUser(caller: Caller, userId: string): Promise<void> {
    if (!uuidSchema.safeParse(userId).success || !(await store.userInProject(caller.projectId, userId))) throw notFound('User');
  }

  const audit = (scope: PolicyScope, walletId: string | null, action: string, details: Record<string, unknown>): AuditEntry => ({
    projectId: scope.projectId,
    apiKeyId: scope.actor.type === 'api_key' ? scope.actor.id : null,
    walletId,
    requestId: scope.requestId ?? null,
    action,
    details: { environment: scope.environment, actor: scope.actor, ...details },
  });

  function written<T>(outcome: RevisionOutcome<T>, expected: number): T {
    if (!outcome.ok) throw staleRevision(expected, outcome.currentRevision);
    return outcome.record;
  }

  async function getAssignments(caller: Caller, scopeId: string, userId: string) {
    checkScopeId(scopeId);
    await requireUser(caller, userId);
    const record = await store.findAssignments(location(caller), scopeId, userId);
    return assignmentSetView(record ?? { scopeId, userId, revision: 0, assignments: [], updatedAt: null });
  }

  return {
    getAssignments,

    /** PUT: replaces the whole set (an empty array removes every assignment); gated by the extension. */
    async replaceAssignments(caller: Caller, scopeId: string, userId: string, body: unknown) {
      await extension.requireEnabled(caller);
      checkScopeId(scopeId);
      await requireUser(caller, userId);
      const input = parseInput(replaceAssignmentsBody, body);
      if (input.expectedRevision === undefined) throw staleRevision(undefined, (await getAssignments(caller, scopeId, userId)).revision);
      const scope = policyScopeOfCaller(caller);
      const outcome = await store.replaceAssignments(
        location(scope),
        scopeId,
        userId,
        { expectedRevision: input.expectedRevision, assignments: input.assignments, at: clock.now(), by: scope.actor, requestId: scope.requestId ?? null },
        (record) => audit(scope, null, 'authorization_scope.assignments.replace', { authorizationScopeId: scopeId, userId, revision: record.revision, assignments: record.assignments }),
      );
      return assignmentSetView(written(outcome, input.expectedRevision));
    },

    async assignmentHistory(caller: Caller, scopeId: string, userId: string, query: unknown) {
      checkScopeId(scopeId);
      await requireUser(caller, userId);
      const input = parseInput(revisionListQuery, query);
      const before = input.cursor === undefined ? undefined : decodeRevisionCursor(input.cursor);
      const rows = await store.assignmentHistory(location(caller), scopeId, userId, before, input.limit + 1);
      return page(rows, input.limit, (row) => `rev:${row.revision}`, (row) => ({ ...revisionView(row), assignments: row.assignments }));
    },

    /** Users with at least one assignment in the scope, by user id. */
    async members(caller: Caller, scopeId: string, query: unknown) {
      checkScopeId(scopeId);
      const input = parseInput(revisionListQuery, query);
      const after = input.cursor === undefined ? undefined : decodeUserCursor(input.cursor);
      const rows = await store.members(location(caller), scopeId, after, input.limit + 1);
      return {
        authorizationScopeId: scopeId,
        ...page(rows, input.limit, (row) => `user:${row.userId}`, (row) => ({
          userId: row.userId,
          revision: row.revision,
          assignments: row.assignments,
          updatedAt: row.updatedAt!.toISOString(),
        })),
      };
    },

    async getWalletScope(caller: Caller, walletId: string) {
      const wallet = await loadWallet(caller, walletId);
      const record = await store.findBinding(location(caller), wallet.id);
      return bindingView(record ?? { walletId: wallet.id, scopeId: null, revision: 0, updatedAt: null });
    },

    /** PUT: binds the wallet to a scope, or unbinds it with `authorizationScopeId: null`; gated by the extension. */
    async setWalletScope(caller: Caller, walletId: string, body: unknown) {
      await extension.requireEnabled(caller);
      const wallet = await loadWallet(caller, walletId);
      const input = parseInput(bindWalletBody, body);
      if (input.expectedRevision === undefined) {
        throw staleRevision(undefined, (await store.findBinding(location(caller), wallet.id))?.revision ?? 0);
      }
      const scope = policyScopeOfCaller(caller);
      const outcome = await store.bindWallet(
        location(scope),
        wallet.id,
        { expectedRevision: input.expectedRevision, scopeId: input.authorizationScopeId, at: clock.now(), by: scope.actor, requestId: scope.requestId ?? null },
        (record) => audit(scope, wallet.id, 'wallet.authorization_scope.set', { authorizationScopeId: record.scopeId, revision: record.revision }),
      );
      return bindingView(written(outcome, input.expectedRevision));
    },

    async walletScopeHistory(caller: Caller, walletId: string, query: unknown) {
      const wallet = await loadWallet(caller, walletId);
      const input = parseInput(revisionListQuery, query);
      const before = input.cursor === undefined ? undefined : decodeRevisionCursor(input.cursor);
      const rows = await store.bindingHistory(location(caller), wallet.id, before, input.limit + 1);
      return page(rows, input.limit, (row) => `rev:${row.revision}`, (row) => ({ ...revisionView(row), authorizationScopeId: row.scopeId }));
    },
  };
}

export type AuthorizationScopeService = ReturnType<typeof createAuthorizationScopeService>;
