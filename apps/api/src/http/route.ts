import type { Request } from 'express';
import { z } from 'zod';
import type { Caller } from '@wallet/domain';

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
  responses: Record<number, { description: string; schema?: z.ZodType }>;
  /**
   * The use case keeps its own Idempotency-Key (yield POSTs: durable, never replayed from the
   * generic 24-hour store); the handler reads the header itself.
   */
  ownIdempotency?: true;
  handler(ctx: RouteContext): Promise<RouteResult>;
}

export const defineRoutes = (routes: RouteDef[]) => routes;

export const toExpressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');

export const errorSchema = z
  .object({
    code: z.string(),
    message: z.string(),
  })
  .catchall(z.unknown())
  .meta({ id: 'Error' });
