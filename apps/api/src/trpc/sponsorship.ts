import { sponsorshipChangeInput, sponsorshipLocationInput, type StaffPrincipal } from '@wallet/domain';
import type { TrpcContext } from './context.ts';
import { router, staffProcedure, writeProcedure } from './trpc.ts';

/**
 * Gas sponsorship in the console: every staff role reads the settings and today's budget; owners
 * change them (developers get 403 FORBIDDEN from the use case, support from the procedure).
 */
const principal = (ctx: TrpcContext & { staff: StaffPrincipal }) => ({ ...ctx.staff, requestId: ctx.requestId });

export const sponsorshipRouter = router({
  get: staffProcedure.input(sponsorshipLocationInput).query(({ ctx, input }) => ctx.services.consoleSponsorship.get(principal(ctx), input)),
  /** `verb`: enable, disable, pause or resume, with `gasCapWei` / `dailyBudgetWei` (decimal wei strings) when they change; audited `sponsorship.<verb>`. */
  /**
   * The deployment's sponsorship funding per chain: the paymaster's EntryPoint deposit and the
   * relayer's balance, flagged below their thresholds (or `unavailable` when the RPC does not answer).
   */
  funding: staffProcedure.query(({ ctx }) => ctx.services.sponsorshipStatus.read()),
  change: writeProcedure.input(sponsorshipChangeInput).mutation(({ ctx, input }) => ctx.services.consoleSponsorship.change(principal(ctx), input)),
});
