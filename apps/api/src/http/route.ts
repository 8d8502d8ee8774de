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
 * The tags of the /v1 operations, in the order the reference lists them, each with what its
 * operations have in common (the document's top-level `tags`).
 */
export const apiTags = {
  Wallets: 'Wallets of a user identifier, one per wallet type and scheme: created with their key inside the request, listed, read and re-assigned to another identifier.',
  Signing: "Signatures with a wallet's key in its chain's form (messages, raw bytes, transactions, EIP-712 typed data, EIP-7702 authorizations), each checked against the project's policies first and audited.",
  Transfers: 'Transfers the service builds, signs and broadcasts from a wallet (EVM, Solana), and their fee estimates.',
  'Transaction history': "The wallet's transaction records, from the broadcast to the final outcome the transaction monitor stores, and cancelling a pending EVM transaction.",
  Yield: "USDC in yield markets: the markets of this environment, the wallet's position, and deposits and withdrawals run as durable operations.",
  Permissions:
    "Permissions v2 for the calling key's project and environment: the active policies, spend meters and the dry run, approval cases and partner reviews, authorization scopes and approval configuration, and users' delegation consents and parameters.",
  Migration: 'Moving a client-side pregenerated wallet to signing through REST: the public key its share is encrypted to, and the migration.',
  Chains: 'The chains this deployment is configured for.',
  Local: "Local mode only (`APP_ENV=local`, the default): the local devnets' faucet and JSON-RPC URLs. Beta and production processes serve neither.",
} as const;

export type ApiTag = keyof typeof apiTags;

/** An OpenAPI header object of an answer. */
export interface ResponseHeader {
  description: string;
  schema: Record<string, unknown>;
  example?: unknown;
}

/**
 * One REST route: the HTTP facts, the zod schemas the domain validates with (reused here for the
 * OpenAPI document), and a handler that only calls a domain use case.
 */
export interface RouteDef {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** OpenAPI-style path, e.g. /v1/wallets/{walletId}. */
  path: string;
  /** Unique across the document. */
  operationId: string;
  /** A short title. */
  summary: string;
  /** What it does and the rules a caller must know (idempotency, policy checks, gates), in CommonMark. */
  description: string;
  tag: ApiTag;
  body?: z.ZodType;
  query?: z.ZodType;
  /**
   * Success statuses give their body's `schema`; error statuses the `errors` they answer besides
   * the ones every operation can (openapi.ts, commonErrors), each an error body from errorBodies.
   * `headers` are OpenAPI header objects the answer carries (e.g. a 201's Location).
   */
  responses: Record<number, { description: string; schema?: z.ZodType; errors?: ErrorBody[]; headers?: Record<string, ResponseHeader> }>;
  /**
   * The use case keeps its own Idempotency-Key (yield POSTs: durable, never replayed from the
   * generic 24-hour store); the handler reads the header itself.
   */
  ownIdempotency?: true;
  /**
   * Its path parameters name no stored object, so an unknown one is no 404 (an authorization scope
   * is a label: an id never used is an empty scope).
   */
  pathNamesNoObject?: true;
  /** Examples the document shows for this operation (openapi.test.ts checks each against its schema). */
  examples?: RouteExamples;
  handler(ctx: RouteContext): Promise<RouteResult>;
}

/** One example: a short title and the JSON value. */
export interface Example {
  summary: string;
  value: unknown;
}

/**
 * A request and its answers, written by openapi.ts as OpenAPI 3.1 `examples`: `request.body` on the
 * request body, `request.parameters` (path and query parameter name → value) on each parameter, and
 * `response` (status → example) on each answer.
 */
export interface RouteExamples {
  request?: { summary: string; body?: unknown; parameters?: Record<string, unknown> };
  response: Record<number, Example>;
}

export const defineRoutes = (routes: RouteDef[]) => routes;

export const toExpressPath = (path: string) => path.replace(/\{(\w+)\}/g, ':$1');
