import type express from 'express';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { Services } from '../services.ts';
import { createContextFactory } from './context.ts';
import { appRouter } from './router.ts';

/** The `/trpc` handler (JSON bodies up to 1 MB). */
export function trpcHandler(services: Services, options: { secureCookies: boolean }): express.RequestHandler {
  return createExpressMiddleware({ router: appRouter, createContext: createContextFactory(services, options), maxBodySize: 1024 * 1024 });
}
