import express, { type Express, type Router } from 'express';
import type { Logger } from './logger.ts';
import { createMetrics } from './http/metrics.ts';
import { buildOpenApi } from './http/openapi.ts';
import { authenticate, errorHandler, notFoundHandler, requestContext, routeHandler } from './http/pipeline.ts';
import { toExpressPath, type RouteDef } from './http/route.ts';
import { docsRouter } from './routes/docs.ts';
import { chainRoutes } from './routes/chains.ts';
import { migrationRoutes } from './routes/migration.ts';
import { transactionRoutes } from './routes/transactions.ts';
import { signingRoutes } from './routes/signing.ts';
import { walletRoutes } from './routes/wallets.ts';
import type { Services } from './services.ts';

export interface AppOptions {
  services: Services;
  logger: Logger;
  trustProxy?: boolean;
  /** Routers mounted before /v1, e.g. the local control routes of the CLI. */
  extraRouters?: Router[];
}

export function allRoutes(services: Services): RouteDef[] {
  return [
    ...walletRoutes(services.wallets),
    ...signingRoutes(services.signing),
    ...transactionRoutes(services.transactions),
    ...migrationRoutes(services.migration),
    ...chainRoutes(services.chains, { localFaucet: services.localFaucet !== undefined }),
  ];
}

export function createApp({ services, logger, trustProxy = false, extraRouters = [] }: AppOptions): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', trustProxy);
  app.set('etag', false);
  const metrics = createMetrics();
  const routes = allRoutes(services);
  const openApi = buildOpenApi(routes);

  app.use(requestContext(logger, metrics));
  app.get('/health', async (_req, res) => {
    await services.database.prisma.$queryRaw`SELECT 1`;
    res.json({ status: 'ok' });
  });
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.get('/v1/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  app.use(docsRouter());
  for (const router of extraRouters) app.use(router);

  const v1 = express.Router();
  v1.use(authenticate(services.apiKeys, services.rateLimit));
  v1.use(express.json({ limit: '1mb' }));
  for (const route of routes) {
    v1[route.method](toExpressPath(route.path).replace(/^\/v1/, ''), routeHandler(route, services.runIdempotent));
  }
  app.use('/v1', v1);
  app.use(notFoundHandler);
  app.use(errorHandler(logger));
  return app;
}
