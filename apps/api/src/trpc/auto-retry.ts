import { autoRetryChangeInput, autoRetryLocationInput, type StaffPrincipal } from '@wallet/domain';
import type { TrpcContext } from './context.ts';
import { router, staffProcedure, writeProcedure } from './trpc.ts';

/**
 * Managed automatic retry of transfers in the console: every staff role reads the project's
 * default; owners change it (developers get 403 FORBIDDEN from the use case, support from the procedure).
 */
const principal = (ctx: TrpcContext & { staff: StaffPrincipal }) => ({ ...ctx.staff, requestId: ctx.requestId });

export const autoRetryRouter = router({
  get: staffProcedure.input(autoRetryLocationInput).query(({ ctx, input }) => ctx.services.consoleAutoRetry.get(principal(ctx), input)),
  /** `enabled` and `maxFeePerGas` (decimal wei per gas, null: the built-in ceiling) replace the setting; audited `auto_retry.change`. */
  change: writeProcedure.input(autoRetryChangeInput).mutation(({ ctx, input }) => ctx.services.consoleAutoRetry.change(principal(ctx), input)),
});
