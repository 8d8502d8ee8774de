import express, { type Express, type Router } from 'express';
import type { Logger } from './logger.ts';
import { createMetrics, type Metrics } from './http/metrics.ts';
import { securityHeaders } from './http/security-headers.ts';
import { buildOpenApi } from './http/openapi.ts';
import { authenticate, errorHandler, jsonBody, notFoundHandler, requestContext, routeHandler } from './http/pipeline.ts';
import { dispatchRoutes, routeTemplateOf } from './http/dispatch.ts';
import type { RouteDef } from './http/route.ts';
import { docsRouter } from './routes/docs.ts';
import { chainRoutes } from './routes/chains.ts';
import { migrationRoutes } from './routes/migration.ts';
import { policyRoutes } from './routes/policies.ts';
import { authorizationScopeRoutes } from './routes/authorization-scopes.ts';
import { approvalConfigurationRoutes } from './routes/approval-configurations.ts';
import { approvalCaseRoutes } from './routes/approval-cases.ts';
import { partnerReviewRoutes } from './routes/partner-reviews.ts';
import { userPermissionRoutes } from './routes/user-permissions.ts';
import { transactionRoutes } from './routes/transactions.ts';
import { signingRoutes } from './routes/signing.ts';
import { walletRoutes } from './routes/wallets.ts';
import { yieldRoutes } from './routes/yield.ts';
import { yieldPositionRoutes } from './routes/yield-position.ts';
import { balanceRoutes } from './routes/balances.ts';
import { callsRoutes } from './routes/calls.ts';
import type { Services } from './services.ts';
import { trpcHandler } from './trpc/middleware.ts';
import type { graphqlHandler } from './graphql/handler.ts';

export interface AppOptions {
  services: Services;
  logger: Logger;
  trustProxy?: boolean;
  /** Routers outside /v1 (mounted after it, so no /v1 paths), e.g. the local control routes of the CLI. */
  extraRouters?: Router[];
  /** Session cookies with `Secure` (everywhere but local mode). */
  secureCookies?: boolean;
  /** GraphiQL at /graphql (default: only where cookies are not `Secure`, i.e. local mode). */
  graphiql?: boolean;
  /** GraphQL introspection without a staff session (default: with GraphiQL, i.e. local mode only). */
  publicIntrospection?: boolean;
  /** The process's metrics at /metrics (the workers report into the same registry); a new one by default. */
  metrics?: Metrics;
}

export function allRoutes(services: Services): RouteDef[] {
  return [
    ...walletRoutes(services.wallets),
    ...balanceRoutes(services.balances),
    ...signingRoutes(services.signing),
    ...transactionRoutes(services.transactions),
    ...callsRoutes(services.calls),
    ...migrationRoutes(services.migration),
    ...policyRoutes(services.policies, services.policyUsage, services.policyDryRun),
    ...authorizationScopeRoutes(services.authorizationScopes),
    ...approvalConfigurationRoutes(services.approvalConfigurations),
    ...approvalCaseRoutes(services.approvalCases),
    ...partnerReviewRoutes(services.partnerReviews),
    ...userPermissionRoutes(services.delegation),
    ...yieldRoutes(services.yield),
    ...yieldPositionRoutes(services.yieldPositions),
    ...chainRoutes(services.chains, { localFaucet: services.localFaucet !== undefined, localDevnets: services.localDevnets !== undefined }),
  ];
}

export function createApp({
  services,
  logger,
  trustProxy = false,
  extraRouters = [],
  secureCookies = true,
  graphiql = !secureCookies,
  publicIntrospection = graphiql,
  metrics = createMetrics(),
}: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  app.set('etag', false);
  // nosniff on every answer, no-store on every one but a public document's (docs/operations.md).
  app.use(securityHeaders());
  const routes = allRoutes(services);
  // Built on first request (converting every zod schema costs start time most processes never need).
  let openApi: ReturnType<typeof buildOpenApi> | undefined;

  const requestLog = services.requestLog;
  if (requestLog) metrics.watchRequestLog(requestLog);
  app.use(requestContext(logger, metrics, requestLog && { record: requestLog.record, routeTemplate: routeTemplateOf(routes, '/v1') }));
  // The driver directly: a Prisma query would load Prisma's query compiler (WebAssembly, ~45 MB
  // resident) into a process that otherwise may not need it.
  app.get('/health', async (_req, res) => {
    const [, signer] = await Promise.all([services.database.query('SELECT 1'), services.signerHealth()]);
    // The API serves while the signer is away (signing answers 503 SIGNER_UNAVAILABLE until it is back).
    res.json({ status: 'ok', signer: { reachable: signer.reachable, ...(signer.latencyMs !== undefined ? { latencyMs: signer.latencyMs } : {}) } });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.get('/v1/openapi.json', (_req, res) => {
    res.json((openApi ??= buildOpenApi(routes)));
  });

  const v1 = express.Router();
  v1.use(authenticate(services.apiKeys, services.rateLimit));
  v1.use(jsonBody({ limit: '1mb' }));
  v1.use(dispatchRoutes(routes, '/v1', (route) => routeHandler(route, services.runIdempotent)));
  app.use('/v1', v1);
  app.use('/trpc', trpcHandler(services, { secureCookies, logger }));
  // GraphQL (yoga, Pothos, the schema) loads on its first request: most processes never serve one.
  let graphql: Promise<ReturnType<typeof graphqlHandler>> | undefined;
  app.use('/graphql', (req, res, next) => {
    graphql ??= import('./graphql/handler.ts').then((module) => module.graphqlHandler(services, { graphiql, publicIntrospection, logger }));
    graphql.then((handler) => handler(req, res, { req, res })).catch(next);
  });
  // Outside /v1 (so /v1 requests do not walk their layers); the extra routers must not use /v1 paths.
  app.use(docsRouter());
  for (const router of extraRouters) app.use(router);
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
