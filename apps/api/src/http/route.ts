import type { Request } from 'express';
import type { z } from 'zod';
import type { Caller, ErrorBody } from '@wallet/domain';

export interface RouteResult {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface RouteContext {
  caller: Caller;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body: unknown;
  req: Request;
}

/**
 * One REST route: the HTTP facts, the zod schemas the domain validates with (reused here for the
 * OpenAPI document), and a handler that only calls a domain use case.
 */
export interface RouteDef {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** OpenAPI-style path, e.g. /v1/wallets/{walletId}. */
  path: string;
  operationId: string;
  summary: string;
  tag: string;
  body?: z.ZodType;
  query?: z.ZodType;
  /**
   * Success statuses give their body's `schema`; error statuses the `errors` they answer besides
   * the ones every operation can (openapi.ts, commonErrors), each an error body from errorBodies.
   */
  responses: Record<number, { description: string; schema?: z.ZodType; errors?: ErrorBody[] }>;
  /**
   * The use case keeps its own Idempotency-Key (yield POSTs: durable, never replayed from the
   * generic 24-hour store); the handler reads the header itself.
   */
  ownIdempotency?: true;
  handler(ctx: RouteContext): Promise<RouteResult>;
}

export const defineRoutes = (routes: RouteDef[]) => routes;

export const toExpressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
