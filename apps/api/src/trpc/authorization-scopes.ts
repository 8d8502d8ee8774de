import {
  bindWalletScopeInput,
  extensionSwitchInput,
  replaceScopeAssignmentsInput,
  scopeLocationInput,
  scopeMembersInput,
  scopeUserHistoryInput,
  scopeUserInput,
  walletScopeHistoryInput,
  walletScopeInput,
  type StaffPrincipal,
} from '@wallet/domain';
import type { TrpcContext } from './context.ts';
import { router, staffProcedure, writeProcedure } from './trpc.ts';

/**
 * Authorization scopes in the console (issue #14): reads for every staff role; assignment and
 * binding writes for owners and developers; the extension switch for owners. Each procedure calls
 * one use case of `services.consoleScopes`, which runs the REST use case as the staff member.
 */
const principal = (ctx: TrpcContext & { staff: StaffPrincipal }) => ({ ...ctx.staff, requestId: ctx.requestId });

export const scopesRouter = router({
  /** The permissions v2 extension of the project and environment: enabled, who switched it when. */
  extension: staffProcedure.input(scopeLocationInput).query(({ ctx, input }) => ctx.services.consoleScopes.extension(principal(ctx), input)),
  /** Owners only (developers get 403 FORBIDDEN from the use case, support from the procedure). */
  setExtension: writeProcedure.input(extensionSwitchInput).mutation(({ ctx, input }) => ctx.services.consoleScopes.setExtension(principal(ctx), input)),
  /** Scope ids with members or bound wallets. */
  ids: staffProcedure.input(scopeLocationInput).query(({ ctx, input }) => ctx.services.consoleScopes.scopeIds(principal(ctx), input)),
  members: staffProcedure.input(scopeMembersInput).query(({ ctx, input }) => ctx.services.consoleScopes.members(principal(ctx), input)),
  assignments: staffProcedure.input(scopeUserInput).query(({ ctx, input }) => ctx.services.consoleScopes.assignments(principal(ctx), input)),
  /** Replaces the user's whole set; `expectedRevision` is the revision shown (stale = 409 CONFLICT with `currentRevision`). */
  replaceAssignments: writeProcedure
    .input(replaceScopeAssignmentsInput)
    .mutation(({ ctx, input }) => ctx.services.consoleScopes.replaceAssignments(principal(ctx), input)),
  assignmentHistory: staffProcedure
    .input(scopeUserHistoryInput)
    .query(({ ctx, input }) => ctx.services.consoleScopes.assignmentHistory(principal(ctx), input)),
  walletScope: staffProcedure.input(walletScopeInput).query(({ ctx, input }) => ctx.services.consoleScopes.walletScope(principal(ctx), input)),
  /** Binds (`authorizationScopeId`) or unbinds (null), revision-checked. */
  bindWallet: writeProcedure.input(bindWalletScopeInput).mutation(({ ctx, input }) => ctx.services.consoleScopes.bindWallet(principal(ctx), input)),
  walletScopeHistory: staffProcedure
    .input(walletScopeHistoryInput)
    .query(({ ctx, input }) => ctx.services.consoleScopes.walletScopeHistory(principal(ctx), input)),
});
