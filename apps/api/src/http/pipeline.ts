import { randomUUID } from 'node:crypto';
import express, { type ErrorRequestHandler, type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import {
  ApiError,
  callerOf,
  checkIdempotencyKey,
  internalError,
  invalidRequest,
  requestFingerprint,
  requestsPerMinute,
  type ApiKeyService,
  type Caller,
  type RateLimiter,
  type RunIdempotent,
  refusalFacts,
  uuidOrNull,
  type RefusalFacts,
  type RequestLogEntry,
} from '@wallet/domain';
import type { Logger } from '../logger.ts';
import type { Metrics } from './metrics.ts';
import type { RouteDef, RouteResult } from './route.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

interface Locals {
  requestId: string;
  caller?: Caller;
  /** The matched route's metrics label, set by dispatchRoutes. */
  route?: string;
  /** For the request log: the route's `walletId` param (dispatchRoutes) or the created wallet's id (sendJson). */
  walletId?: string;
  /** For the request log: the route's `transactionId` param, or the record the answer names (sendJson). */
  transactionId?: string;
  /** For the request log: the refusal's code, deciding rules and ids (errorHandler). */
  refusal?: RefusalFacts;
}

const locals = (res: Response) => res.locals as Locals;

interface Timed extends Locals {
  started: bigint;
}

/** Where finished /v1 requests leave their request log entry (the request-log writer); absent when REQUEST_LOG=off. */
export interface RequestLogHook {
  record(entry: RequestLogEntry): void;
  /** The route template of a request refused before dispatch (dispatch.ts routeTemplateOf). */
  routeTemplate(method: string, url: string): string | undefined;
}

const V1 = /^\/v1(?:[/?]|$)/i;
const CHANGES_STATE: Record<string, true> = { POST: true, PUT: true, PATCH: true, DELETE: true };

/** The request log's entry of a finished /v1 request that changed state or was refused; never its body or key. */
function logEntry(req: Request, res: Response, route: string, seconds: number): RequestLogEntry {
  const facts = res.locals as Timed;
  const refusal = facts.refusal;
  const latencyMs = seconds * 1000;
  return {
    projectId: facts.caller?.projectId ?? null,
    requestId: facts.requestId,
    method: req.method,
    route,
    status: res.statusCode,
    code: refusal?.code ?? null,
    apiKeyId: uuidOrNull(facts.caller?.apiKeyId),
    walletId: uuidOrNull(facts.walletId),
    transactionId: uuidOrNull(facts.transactionId) ?? refusal?.transactionId ?? null,
    caseId: refusal?.caseId ?? null,
    latencyMs,
    deniedBy: refusal?.deniedBy ?? null,
    at: new Date(Date.now() - latencyMs),
  };
}

/**
 * Echoes a uuid X-Request-Id or makes one; logs and measures every request when it ends, and hands
 * every /v1 request that changed state (a 2xx POST, PUT, PATCH or DELETE) or was refused (non-2xx)
 * to the request log.
 */
export function requestContext(logger: Logger, metrics: Metrics, requestLog?: RequestLogHook): RequestHandler {
  // One listener for every response (no closure per request); the request's facts are in res.locals.
  function finished(this: Response) {
    const res = this;
    const req = res.req;
    const { requestId, started, route: dispatched } = res.locals as Timed;
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    const route = dispatched ?? (req.route ? `${req.baseUrl}${req.route.path}` : 'unmatched');
    metrics.observe(req.method, route, res.statusCode, seconds);
    const status = res.statusCode;
    if (requestLog && (status < 200 || status > 299 || CHANGES_STATE[req.method]) && V1.test(req.originalUrl)) {
      requestLog.record(logEntry(req, res, dispatched ?? requestLog.routeTemplate(req.method, req.originalUrl) ?? route, seconds));
    }
    if (logger.isLevelEnabled('info')) {
      logger.info({ requestId, method: req.method, route, status: res.statusCode, ms: Math.round(seconds * 1e4) / 10 }, 'request');
    }
  }
  return (req, res, next) => {
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && UUID.test(given) ? given : randomUUID();
    const timed = res.locals as Timed;
    timed.requestId = requestId;
    timed.started = process.hrtime.bigint();
    res.setHeader('X-Request-Id', requestId);
    res.on('finish', finished);
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

/** Deepest nesting of arrays and objects a JSON body may have (policy documents and typed data stay far below). */
export const MAX_BODY_DEPTH = 64;

/**
 * express.json() for requests that have a body; the others skip it, as it would itself (type-is's
 * hasBody: a Transfer-Encoding or a Content-Length header). A GET's or HEAD's body has no meaning
 * (RFC 9110) and no route reads one, so it is never read: those answer no 413 and no body error. A body nested deeper
 * than MAX_BODY_DEPTH is a 400 here: recursive code downstream (the idempotency fingerprint's
 * canonical JSON, zod) would overflow the stack on it.
 */
export function jsonBody(options: Parameters<typeof express.json>[0]): RequestHandler {
  const parse = express.json(options);
  return (req, res, next) => {
    if (req.method === 'GET' || req.method === 'HEAD') return next();
    if (req.headers['transfer-encoding'] === undefined && req.headers['content-length'] === undefined) return next();
    parse(req, res, (error?: unknown) => {
      if (error === undefined && nestedDeeperThan(req.body, MAX_BODY_DEPTH)) {
        next(invalidRequest(`Invalid request: body is nested deeper than ${MAX_BODY_DEPTH} levels`));
        return;
      }
      next(error);
    });
  };
}

/** Whether `value` nests arrays and objects more than `limit` levels deep (the top level is 1); iterative. */
export function nestedDeeperThan(value: unknown, limit: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const stack: Array<[object, number]> = [[value, 1]];
  for (let top = stack.pop(); top; top = stack.pop()) {
    const [node, depth] = top;
    if (depth > limit) return true;
    for (const child of Array.isArray(node) ? node : Object.values(node)) {
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
    }
  }
  return false;
}

/** Runs a route: POSTs and PUTs with an Idempotency-Key go through the shared idempotency store. */
export function routeHandler(route: RouteDef, runIdempotent: RunIdempotent): (req: Request, res: Response) => Promise<void> {
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
    const key = req.headers['idempotency-key'];
    let result: RouteResult;
    if ((route.method === 'post' || route.method === 'put') && typeof key === 'string' && !route.ownIdempotency) {
      checkIdempotencyKey(key);
      const fingerprint = requestFingerprint(req.method, `${req.baseUrl}${req.path}`, req.body ?? null);
      const outcome = await runIdempotent(caller.projectId, key, fingerprint, () => route.handler({ ...context, caller: { ...caller, idempotencyKey: key } }));
      if (outcome.replayed) res.setHeader('Idempotent-Replayed', 'true');
      result = outcome;
    } else {
      result = await route.handler(context);
    }
    sendJson(req, res, result);
  };
}

/**
 * What res.status(s).set(h).json(body) sends for a route result (no ETag: the app disables it,
 * so no 304 either), without express's per-call header lookups and content-type parsing.
 */
function sendJson(req: Request, res: Response, result: RouteResult): void {
  res.statusCode = result.status;
  const body = result.body as { id?: unknown; transactionId?: unknown } | null | undefined;
  if (typeof body === 'object' && body !== null) {
    const facts = locals(res);
    if (typeof body.transactionId === 'string') facts.transactionId = body.transactionId;
    else if (facts.walletId === undefined && facts.route === '/v1/wallets' && req.method === 'POST' && typeof body.id === 'string') facts.walletId = body.id;
  }
  if (result.headers) for (const name in result.headers) res.setHeader(name, result.headers[name]!);
  if (result.status === 204 || result.status === 205) {
    res.status(result.status).json(result.body);
    return;
  }
  const json = JSON.stringify(result.body) ?? '';
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(json));
  if (req.method === 'HEAD') res.end();
  else res.end(json);
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
    locals(res).refusal = refusalFacts(apiError);
    res.status(apiError.status).json(apiError.toBody());
  };
}
