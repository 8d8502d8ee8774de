/**
 * The console's authorization scopes: the permissions v2 extension switch (owners), the scope ids
 * in use, a scope's members, a user's assignments and their history, and a wallet's binding and its
 * history. Every read and write goes through the REST use cases (`AuthorizationScopeService`,
 * `PermissionsExtension`) with a caller of the project naming the staff member as the actor, so the
 * revision check, the extension gate, validation and audit rows are the REST ones. Projects and
 * wallets of another partner are the 404 of a missing one.
 */
import { z } from 'zod';
import { environments } from '../api-keys/plans.ts';
import type { PermissionsExtension, PermissionsExtensionView } from '../authorization-scopes/extension.ts';
import type { AuthorizationScopeReads } from '../authorization-scopes/reads.ts';
import type { AuthorizationScopeService } from '../authorization-scopes/service.ts';
import { forbidden } from '../errors.ts';
import type { Environment } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import { parseInput } from '../shared/zod.ts';
import { requireWriteAccess, type StaffPrincipal } from '../staff/service.ts';
import { staffCaller, type PartnerScope } from './scope.ts';

const id = z.string().trim().min(1).max(200);
const page = { cursor: z.string().min(1).max(200).optional(), limit: z.number().int().min(1).max(100).optional() };

export const scopeLocationInput = z.strictObject({ projectId: id, environment: z.enum(environments) });
export const extensionSwitchInput = scopeLocationInput.extend({ enabled: z.boolean() });
export const scopeMembersInput = scopeLocationInput.extend({ scopeId: id, ...page });
export const scopeUserInput = scopeLocationInput.extend({ scopeId: id, userId: id });
export const scopeUserHistoryInput = scopeUserInput.extend(page);
/** The body fields are checked by the REST body schema (`replaceAssignmentsBody`), not here. */
export const replaceScopeAssignmentsInput = scopeUserInput.extend({ expectedRevision: z.unknown(), assignments: z.unknown() });
export const walletScopeInput = z.strictObject({ walletId: id, environment: z.enum(environments) });
export const walletScopeHistoryInput = walletScopeInput.extend(page);
export const bindWalletScopeInput = walletScopeInput.extend({ expectedRevision: z.unknown(), authorizationScopeId: z.unknown() });

/** The staff member acting, and the console request's id for the audit rows. */
export type ScopeConsolePrincipal = Pick<StaffPrincipal, 'partnerId' | 'staffId' | 'role'> & { requestId?: string | null };

/** Only owners switch the extension (it changes what every API key of the environment may call) or decide partner reviews. */
export function requireOwner(principal: Pick<StaffPrincipal, 'role'>, message = 'Only owners may switch the permissions v2 extension'): void {
  if (principal.role !== 'owner') throw forbidden(message);
}

const listQuery = (input: { cursor?: string | undefined; limit?: number | undefined }) => ({
  ...(input.cursor !== undefined ? { cursor: input.cursor } : {}),
  ...(input.limit !== undefined ? { limit: input.limit } : {}),
});

export function createConsoleAuthorizationScopes(deps: {
  scope: PartnerScope;
  scopes: AuthorizationScopeService;
  extension: PermissionsExtension;
  reads: AuthorizationScopeReads;
}) {
  const { scope, scopes } = deps;

  const projectCaller = scope.projectCaller;

  async function walletCaller(principal: ScopeConsolePrincipal, input: { walletId: string; environment: Environment }): Promise<Caller> {
    const wallet = await scope.wallet(principal, input.walletId);
    return staffCaller(principal, wallet.projectId, input.environment);
  }

  const writer = (principal: ScopeConsolePrincipal) => requireWriteAccess(principal as StaffPrincipal);

  return {
    /** Enabled or disabled, and who switched it when (null before the first switch). */
    async extension(principal: ScopeConsolePrincipal, input: z.input<typeof scopeLocationInput>): Promise<PermissionsExtensionView> {
      return deps.reads.extensionState(await projectCaller(principal, parseInput(scopeLocationInput, input)));
    },

    /** Owners only; audited by `PermissionsExtension.set` (`permissions.extension.enable|disable`). */
    async setExtension(principal: ScopeConsolePrincipal, input: z.input<typeof extensionSwitchInput>): Promise<PermissionsExtensionView> {
      requireOwner(principal);
      const parsed = parseInput(extensionSwitchInput, input);
      const caller = await projectCaller(principal, parsed);
      return deps.extension.set({ projectId: caller.projectId, environment: caller.environment, actor: caller.actor!, requestId: caller.requestId }, parsed.enabled);
    },

    /** Scope ids with members or bound wallets, sorted. */
    async scopeIds(principal: ScopeConsolePrincipal, input: z.input<typeof scopeLocationInput>) {
      return deps.reads.scopeIds(await projectCaller(principal, parseInput(scopeLocationInput, input)));
    },

    async members(principal: ScopeConsolePrincipal, input: z.input<typeof scopeMembersInput>) {
      const parsed = parseInput(scopeMembersInput, input);
      return scopes.members(await projectCaller(principal, parsed), parsed.scopeId, listQuery(parsed));
    },

    async assignments(principal: ScopeConsolePrincipal, input: z.input<typeof scopeUserInput>) {
      const parsed = parseInput(scopeUserInput, input);
      return scopes.getAssignments(await projectCaller(principal, parsed), parsed.scopeId, parsed.userId);
    },

    /** Owners and developers; `expectedRevision` is the revision the console showed (stale = 409 with `currentRevision`). */
    async replaceAssignments(principal: ScopeConsolePrincipal, input: z.input<typeof replaceScopeAssignmentsInput>) {
      writer(principal);
      const parsed = parseInput(replaceScopeAssignmentsInput, input);
      const body = { expectedRevision: parsed.expectedRevision, assignments: parsed.assignments };
      return scopes.replaceAssignments(await projectCaller(principal, parsed), parsed.scopeId, parsed.userId, body);
    },

    async assignmentHistory(principal: ScopeConsolePrincipal, input: z.input<typeof scopeUserHistoryInput>) {
      const parsed = parseInput(scopeUserHistoryInput, input);
      return scopes.assignmentHistory(await projectCaller(principal, parsed), parsed.scopeId, parsed.userId, listQuery(parsed));
    },

    async walletScope(principal: ScopeConsolePrincipal, input: z.input<typeof walletScopeInput>) {
      const parsed = parseInput(walletScopeInput, input);
      return scopes.getWalletScope(await walletCaller(principal, parsed), parsed.walletId);
    },

    /** Owners and developers; binds (`authorizationScopeId`) or unbinds (null), revision-checked like REST. */
    async bindWallet(principal: ScopeConsolePrincipal, input: z.input<typeof bindWalletScopeInput>) {
      writer(principal);
      const parsed = parseInput(bindWalletScopeInput, input);
      const body = { expectedRevision: parsed.expectedRevision, authorizationScopeId: parsed.authorizationScopeId };
      return scopes.setWalletScope(await walletCaller(principal, parsed), parsed.walletId, body);
    },

    async walletScopeHistory(principal: ScopeConsolePrincipal, input: z.input<typeof walletScopeHistoryInput>) {
      const parsed = parseInput(walletScopeHistoryInput, input);
      return scopes.walletScopeHistory(await walletCaller(principal, parsed), parsed.walletId, listQuery(parsed));
    },
  };
}

export type ConsoleAuthorizationScopes = ReturnType<typeof createConsoleAuthorizationScopes>;
