import { signInInput } from '@wallet/domain';
import { publicProcedure, router, staffProcedure } from './trpc.ts';

export const authRouter = router({
  /** Sets the httpOnly session cookie; the token never appears in a response body. */
  signIn: publicProcedure.input(signInInput).mutation(async ({ ctx, input }) => {
    const { token, expiresAt, staff } = await ctx.services.staff.signIn(input);
    ctx.setSessionCookie(token, expiresAt);
    return { staff, expiresAt: expiresAt.toISOString() };
  }),
  signOut: publicProcedure.mutation(async ({ ctx }) => {
    await ctx.services.staff.signOut(ctx.sessionToken);
    ctx.clearSessionCookie();
    return { signedOut: true };
  }),
  /** The signed-in staff member, or null (the console shows its sign-in page). */
  me: publicProcedure.query(({ ctx }) =>
    ctx.staff ? { staffId: ctx.staff.staffId, partnerId: ctx.staff.partnerId, partnerName: ctx.staff.partnerName, email: ctx.staff.email, role: ctx.staff.role } : null,
  ),
  /** Ends every session of the signed-in account, this one included. */
  signOutEverywhere: staffProcedure.mutation(async ({ ctx }) => {
    const result = await ctx.services.staff.revokeSessions(ctx.staff.staffId);
    ctx.clearSessionCookie();
    return result;
  }),
});
