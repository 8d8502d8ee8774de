import { balancesInput } from '@wallet/domain';
import { router, staffProcedure } from './trpc.ts';

/** The wallet page's balances: the REST use case, for any wallet of the staff member's partner. */
export const balancesRouter = router({
  /** One chain's balances (`chainId` for EVM, `network` for Solana), read from the chain now. */
  get: staffProcedure.input(balancesInput).query(({ ctx, input }) => ctx.services.balances.forStaff(ctx.staff, input)),
});
