import { approvalCaseInput, approvalCaseListInput, recordApprovalCaseInput, type StaffPrincipal } from '@wallet/domain';
import type { TrpcContext } from './context.ts';
import { router, staffProcedure, writeProcedure } from './trpc.ts';

/**
 * Conditional approval cases in the console (issue #14, "Reviews & cases"): reads for every staff
 * role, the cancel for owners and developers. Each procedure calls one use case of
 * `services.consoleApprovalCases`, which runs the REST use case as the staff member.
 */
const principal = (ctx: TrpcContext & { staff: StaffPrincipal }) => ({ ...ctx.staff, requestId: ctx.requestId });

export const approvalCasesRouter = router({
  /** Newest first, optionally by status and wallet; `cursor` is the previous page's `nextCursor`. */
  list: staffProcedure.input(approvalCaseListInput).query(({ ctx, input }) => ctx.services.consoleApprovalCases.list(principal(ctx), input)),
  get: staffProcedure.input(approvalCaseInput).query(({ ctx, input }) => ctx.services.consoleApprovalCases.get(principal(ctx), input)),
  /** The case a transaction record's request consumed, or null (GraphQL `Transaction.approvalCase`). */
  ofRecord: staffProcedure.input(recordApprovalCaseInput).query(({ ctx, input }) => ctx.services.consoleApprovalCases.ofRecord(principal(ctx), input.transactionId)),
  /** Pending cases only (409 CONFLICT with the current status otherwise); audited `approval_case.cancel`. */
  cancel: writeProcedure.input(approvalCaseInput).mutation(({ ctx, input }) => ctx.services.consoleApprovalCases.cancel(principal(ctx), input)),
});
