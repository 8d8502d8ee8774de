import { approvalCasesRouter } from './approval-cases.ts';
import { approvalConfigurationsRouter } from './approval-configurations.ts';
import { authRouter } from './auth.ts';
import { apiKeysRouter, chainsRouter, overviewRouter, projectsRouter, transactionsRouter, walletsRouter, webhooksRouter, yieldRouter } from './console.ts';
import { partnerReviewsRouter } from './partner-reviews.ts';
import { policiesRouter } from './policies.ts';
import { scopesRouter } from './authorization-scopes.ts';
import { searchRouter } from './search.ts';
import { sponsorshipRouter } from './sponsorship.ts';
import { autoRetryRouter } from './auto-retry.ts';
import { balancesRouter } from './balances.ts';
import { requestLogRouter } from './request-log.ts';
import { router } from './trpc.ts';

/** The console's API. Every procedure calls a domain use case; no business rule lives here. */
export const appRouter = router({
  auth: authRouter,
  projects: projectsRouter,
  apiKeys: apiKeysRouter,
  wallets: walletsRouter,
  transactions: transactionsRouter,
  webhooks: webhooksRouter,
  overview: overviewRouter,
  policies: policiesRouter,
  scopes: scopesRouter,
  approvalConfigurations: approvalConfigurationsRouter,
  approvalCases: approvalCasesRouter,
  partnerReviews: partnerReviewsRouter,
  yield: yieldRouter,
  chains: chainsRouter,
  search: searchRouter,
  requestLog: requestLogRouter,
  sponsorship: sponsorshipRouter,
  autoRetry: autoRetryRouter,
  balances: balancesRouter,
});

export type AppRouter = typeof appRouter;
