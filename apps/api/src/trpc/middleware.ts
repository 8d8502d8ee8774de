import type express from 'express';
import { getTRPCErrorShape, TRPCError, transformTRPCResponse } from '@trpc/server';
import { createExpressMiddleware } from '@trpc/server/adapters/express';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import { createContextFactory } from './context.ts';
import { appRouter } from './router.ts';
import { MAX_BODY_BYTES } from './client-error.ts';
import { apiErrorOf } from './trpc.ts';

/** Queries are GETs, mutations POSTs; HEAD is tRPC's own (204, no body). */
const ALLOWED_METHODS = new Set(['GET', 'POST', 'HEAD']);
const ALLOW = 'GET, POST';

/** tRPC's error body (`{error: {message, code, data: {code, httpStatus, apiError}}}`) for an error raised before tRPC runs. */
function errorBody(error: TRPCError): string {
  const config = appRouter._def._config;
  const shape = getTRPCErrorShape({ config, error, type: 'unknown', path: undefined, input: undefined, ctx: undefined });
  return JSON.stringify(transformTRPCResponse(config, { error: shape }));
}

/**
 * The `/trpc` handler (JSON bodies up to 1 MB). Every client error is a JSON 4xx in tRPC's error
 * shape with the spec body in `data.apiError` (trpc.ts): a method other than GET and POST (an
 * OPTIONS preflight too: no CORS is ever approved) is 405 with `Allow: GET, POST`, a body tRPC
 * cannot read (`text/plain`, a form) 415. Only server errors (5xx) are logged as errors.
 */
export function trpcHandler(services: Services, options: { secureCookies: boolean; logger: Logger }): express.RequestHandler {
  const { logger } = options;
  const handle = createExpressMiddleware({
    router: appRouter,
    createContext: createContextFactory(services, options),
    maxBodySize: MAX_BODY_BYTES,
    onError({ error, path, ctx }) {
      if (apiErrorOf(error).status < 500) return;
      const cause = error.cause ?? error;
      logger.error(
        { requestId: ctx?.requestId ?? null, path, err: { name: cause.name, message: String(cause.message).slice(0, 500), stack: cause.stack } },
        'trpc procedure failed',
      );
    },
    // tRPC answers an error it raises while reading the request (content type, JSON) with a JSON
    // body but no content type (so text/plain); streamed answers set their own. Its 405 (a query
    // by POST, a mutation by GET) names the method the procedure takes.
    responseMeta: ({ eagerGeneration, errors, type }) => {
      if (eagerGeneration) return {};
      const refusedMethod = errors.some((error) => error.code === 'METHOD_NOT_SUPPORTED') && (type === 'query' || type === 'mutation');
      return { headers: { 'content-type': 'application/json', ...(refusedMethod ? { allow: type === 'query' ? 'GET' : 'POST' } : {}) } };
    },
  });
  return (req, res, next) => {
    if (ALLOWED_METHODS.has(req.method)) {
      handle(req, res, next);
      return;
    }
    const body = errorBody(new TRPCError({ code: 'METHOD_NOT_SUPPORTED', message: `Unsupported ${req.method} request: queries are GET, mutations POST` }));
    res.status(405).set({ Allow: ALLOW, 'Content-Type': 'application/json' }).send(body);
  };
}
