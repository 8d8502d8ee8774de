import {
  approvalConfigurationHistoryInput,
  approvalRequirementInput,
  approvalScopeInput,
  saveApprovalConfigurationInput,
  type StaffPrincipal,
} from '@wallet/domain';
import type { TrpcContext } from './context.ts';
import { router, staffProcedure, writeProcedure } from './trpc.ts';

/**
 * Approval configurations in the console (issue #14): reads for every staff role, the save for
 * owners and developers. Each procedure calls one use case of `services.consoleApprovalConfigurations`,
 * which runs the REST use case as the staff member.
 */
const principal = (ctx: TrpcContext & { staff: StaffPrincipal }) => ({ ...ctx.staff, requestId: ctx.requestId });

export const approvalConfigurationsRouter = router({
  /** The approval requirements of the environment's active policies, as seen from the scope. */
  requirements: staffProcedure
    .input(approvalScopeInput)
    .query(({ ctx, input }) => ctx.services.consoleApprovalConfigurations.requirements(principal(ctx), input)),
  /** One requirement with the scope's configuration applied (`configuration: null` before the first write). */
  effective: staffProcedure
    .input(approvalRequirementInput)
    .query(({ ctx, input }) => ctx.services.consoleApprovalConfigurations.effective(principal(ctx), input)),
  history: staffProcedure
    .input(approvalConfigurationHistoryInput)
    .query(({ ctx, input }) => ctx.services.consoleApprovalConfigurations.history(principal(ctx), input)),
  /** `expectedRevision` is the revision shown (stale = 409 CONFLICT); 409 APPROVAL_CASES_AFFECTED until resent with `force: true`. */
  save: writeProcedure
    .input(saveApprovalConfigurationInput)
    .mutation(({ ctx, input }) => ctx.services.consoleApprovalConfigurations.save(principal(ctx), input)),
});
