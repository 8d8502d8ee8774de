import { randomUUID } from 'node:crypto';
import type { ErrorRequestHandler, NextFunction, Request, RequestHandler, Response } from 'express';
import {
  ApiError,
  callerOf,
  checkIdempotencyKey,
  internalError,
  requestFingerprint,
  requestsPerMinute,
  type ApiKeyService,
  type Caller,
  type RateLimiter,
  type RunIdempotent,
} from '@wallet/domain';
import type { Logger } from '../logger.ts';
import type { Metrics } from './metrics.ts';
import type { RouteDef, RouteResult } from './route.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Locals {
  requestId: string;
  caller?: Caller;
}

const locals = (res: Response) => res.locals as Locals;

/** Echoes a uuid X-Request-Id or makes one; logs and measures every request when it ends. */
export function requestContext(logger: Logger, metrics: Metrics): RequestHandler {
  return (req, res, next) => {
    const given = req.get('x-request-id');
    const requestId = given && UUID.test(given) ? given : randomUUID();
    locals(res).requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = req.route ? `${req.baseUrl}${req.route.path}` : 'unmatched';
      metrics.observe(req.method, route, res.statusCode, seconds);
      logger.info(
        { requestId, method: req.method, route, status: res.statusCode, ms: Math.round(seconds * 1e4) / 10 },
        'request',
      );
    });
    next();
  };
}

/** X-API-Key authentication, then the per-key rate limit shared by every /v1 request of that key. */
export function authenticate(apiKeys: ApiKeyService, rateLimit: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    const record = await apiKeys.authenticate(req.get('x-api-key'), req.ip ?? req.socket.remoteAddress);
    const usage = await rateLimit(record.id, requestsPerMinute(record.plan, record.rateLimitPerMinute));
    if (usage) {
      res.setHeader('RateLimit-Limit', String(usage.limit));
      res.setHeader('RateLimit-Remaining', String(usage.remaining));
      res.setHeader('RateLimit-Reset', String(usage.resetSeconds));
    }
    locals(res).caller = callerOf(record, locals(res).requestId);
    next();
  };
}

/** Runs a route: POSTs with an Idempotency-Key go through the shared idempotency store. */
export function routeHandler(route: RouteDef, runIdempotent: RunIdempotent): RequestHandler {
  return async (req: Request, res: Response) => {
    const caller = locals(res).caller;
    if (!caller) throw internalError();
    const context = {
      caller,
      params: req.params as Record<string, string>,
      query: req.query as Record<string, unknown>,
      body: req.body,
      req,
    };
    const key = req.get('idempotency-key');
    let result: RouteResult;
    if (route.method === 'post' && key !== undefined) {
      checkIdempotencyKey(key);
      const fingerprint = requestFingerprint('POST', `${req.baseUrl}${req.path}`, req.body ?? null);
      const outcome = await runIdempotent(caller.projectId, key, fingerprint, () => route.handler(context));
      if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
      result = outcome;
    } else {
      result = await route.handler(context);
    }
    res.status(result.status).set(result.headers ?? {}).json(result.body);
  };
}

export const notFoundHandler: RequestHandler = (_req, _res, next: NextFunction) => {
  next(new ApiError(404, 'NOT_FOUND', 'Route not found'));
};

/** Every error leaves as the spec's JSON error object. Unknown errors are logged (never a secret) and hidden. */
export function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, _req, res, _next) => {
    let apiError: ApiError;
    if (error instanceof ApiError) {
      apiError = error;
    } else if (error?.type === 'entity.parse.failed') {
      apiError = new ApiError(400, 'INVALID_REQUEST', 'Invalid request: body is not valid JSON');
    } else if (error?.type === 'entity.too.large') {
      apiError = new ApiError(413, 'PAYLOAD_TOO_LARGE', 'Request body is larger than 1 MB');
    } else if (typeof error?.status === 'number' && error.status >= 400 && error.status < 500) {
      apiError = new ApiError(400, 'INVALID_REQUEST', 'Invalid request: body could not be read');
    } else {
      logger.error(
        { requestId: locals(res).requestId, err: { name: error?.name, message: String(error?.message).slice(0, 500), stack: error?.stack } },
        'unhandled error',
      );
      apiError = internalError();
    }
    if (apiError.status === 429 && typeof apiError.extra.retryAfter === 'number') {
      res.setHeader('Retry-After', String(apiError.extra.retryAfter));
    }
    // A broadcast that failed after its record was created names the record (spec: Errors).
    if (typeof apiError.extra.transactionId === 'string') res.setHeader('x-transaction-id', apiError.extra.transactionId);
    res.status(apiError.status).json(apiError.toBody());
  };
}
