import { authRouter } from './auth.ts';
import { router } from './trpc.ts';

/** The console's API. Every procedure calls a domain use case; no business rule lives here. */
export const appRouter = router({
  auth: authRouter,
});

export type AppRouter = typeof appRouter;
