/**
 * The console's approval configurations: the approval requirements of a scope's active policies,
 * one requirement with the configuration applied (effective), its configuration history, and the
 * save (owners and developers). Every read and write goes through `ApprovalConfigurationService`
 * (the REST use cases) with a caller of the project naming the staff member as the actor, so the
 * bounds, the revision check, the extension gate, the open-cases refusal (409
 * `APPROVAL_CASES_AFFECTED` with `affectedCaseIds`, unless `force: true`) and the audit rows are the
 * REST ones. Projects of another partner are the 404 of a missing one.
 */
import { z } from 'zod';
import type { ApprovalConfigurationService, RequirementPath } from '../approval-configurations/service.ts';
import { parseInput } from '../shared/zod.ts';
import { requireWriteAccess, type StaffPrincipal } from '../staff/service.ts';
import { scopeLocationInput, type ScopeConsolePrincipal } from './authorization-scopes.ts';
import type { PartnerScope } from './scope.ts';

const id = z.string().trim().min(1).max(200);

/** The scope id itself is checked by the REST use case (400 naming `authorizationScopeId`). */
export const approvalScopeInput = scopeLocationInput.extend({ scopeId: id });
export const approvalRequirementInput = approvalScopeInput.extend({ policyId: id, policyVersion: id, requirementId: id });
export const approvalConfigurationHistoryInput = approvalRequirementInput.extend({
  cursor: z.string().min(1).max(200).optional(),
  limit: z.number().int().min(1).max(100).optional(),
});
/** The body fields are checked by the REST body schema (`configurationBody`) and the declarations, not here. */
export const saveApprovalConfigurationInput = approvalRequirementInput.extend({ expectedRevision: z.unknown(), values: z.unknown(), force: z.unknown().optional() });

export function createConsoleApprovalConfigurations(deps: { scope: PartnerScope; configurations: ApprovalConfigurationService }) {
  const { scope, configurations } = deps;

  const projectCaller = scope.projectCaller;

  const pathOf = (input: z.output<typeof approvalRequirementInput>): RequirementPath => ({
    authorizationScopeId: input.scopeId,
    policyId: input.policyId,
    policyVersion: input.policyVersion,
    requirementId: input.requirementId,
  });

  return {
    /** Every approval requirement of the environment's active policies, as seen from the scope. */
    async requirements(principal: ScopeConsolePrincipal, input: z.input<typeof approvalScopeInput>) {
      const parsed = parseInput(approvalScopeInput, input);
      return configurations.list(await projectCaller(principal, parsed), parsed.scopeId);
    },

    /** The requirement with the scope's configuration applied; `configuration: null` before the first write. */
    async effective(principal: ScopeConsolePrincipal, input: z.input<typeof approvalRequirementInput>) {
      const parsed = parseInput(approvalRequirementInput, input);
      return configurations.effective(await projectCaller(principal, parsed), pathOf(parsed));
    },

    async history(principal: ScopeConsolePrincipal, input: z.input<typeof approvalConfigurationHistoryInput>) {
      const parsed = parseInput(approvalConfigurationHistoryInput, input);
      const query = { ...(parsed.cursor !== undefined ? { cursor: parsed.cursor } : {}), ...(parsed.limit !== undefined ? { limit: parsed.limit } : {}) };
      return configurations.history(await projectCaller(principal, parsed), pathOf(parsed), query);
    },

    /**
     * Owners and developers. `expectedRevision` is the revision the console showed (stale = 409
     * CONFLICT with `currentRevision`); `values: {}` resets to the defaults; open cases reached =
     * 409 APPROVAL_CASES_AFFECTED with `affectedCaseIds` until resent with `force: true`.
     */
    async save(principal: ScopeConsolePrincipal, input: z.input<typeof saveApprovalConfigurationInput>) {
      requireWriteAccess(principal as StaffPrincipal);
      const parsed = parseInput(saveApprovalConfigurationInput, input);
      const body = { expectedRevision: parsed.expectedRevision, values: parsed.values, ...(parsed.force !== undefined ? { force: parsed.force } : {}) };
      return configurations.put(await projectCaller(principal, parsed), pathOf(parsed), body);
    },
  };
}

export type ConsoleApprovalConfigurations = ReturnType<typeof createConsoleApprovalConfigurations>;
