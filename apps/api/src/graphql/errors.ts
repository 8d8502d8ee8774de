import { ApiError, internalError } from '@wallet/domain';
import { GraphQLError, type ASTNode } from 'graphql';
import { createGraphQLError } from 'graphql-yoga';
import type { Logger } from '../logger.ts';
import { clientError } from '../trpc/client-error.ts';

/**
 * A GraphQLError of any copy of graphql: under vitest our sources get its ESM build while yoga and
 * graphql-tools (loaded by Node) get its CommonJS one, two GraphQLError classes; production loads
 * one. The errors made here are yoga's (`createGraphQLError`), so yoga reads their `extensions.http`
 * and strips it from the answer in tests as in production.
 */
export function isGraphQLError(value: unknown): value is GraphQLError {
  return value instanceof GraphQLError || (value instanceof Error && value.name === 'GraphQLError');
}

type Located = Pick<GraphQLError, 'nodes' | 'source' | 'positions' | 'path'>;

/** An ApiError as a GraphQL error: `extensions` carry the spec body plus `code` and `status`, and `http` (the HTTP status) when given. */
export function fromApiError(apiError: ApiError, at: Located, http?: Record<string, unknown>): GraphQLError {
  return createGraphQLError(apiError.message, {
    nodes: at.nodes,
    source: at.source,
    positions: at.positions,
    path: at.path,
    extensions: { ...apiError.toBody(), code: apiError.code, status: apiError.status, ...(http ? { http } : {}) },
  });
}

/** A request refused before anything runs: the spec body, and its status as the HTTP status. */
export function refusal(apiError: ApiError, nodes?: readonly ASTNode[]): GraphQLError {
  return fromApiError(apiError, { nodes, source: undefined, positions: undefined, path: undefined }, { status: apiError.status });
}

/** Whether the error already carries a spec body (ours: a domain error, unauthenticated, the limits). */
export const hasSpecBody = (error: GraphQLError) => typeof error.extensions.code === 'string' && typeof error.extensions.status === 'number';

/** A request graphql-js or yoga refused before anything ran, with the spec body of `clientError` (400 unless yoga named another status). */
export function refusedRequest(error: GraphQLError, inner: GraphQLError = error): GraphQLError {
  const http = (inner.extensions.http ?? error.extensions.http) as Record<string, unknown> | undefined;
  const status = typeof http?.status === 'number' ? http.status : 400;
  return fromApiError(clientError(status, error.message), error, { ...http, status });
}

/**
 * yoga's `maskError`: every error of an answer carries the spec body in `extensions`. A domain
 * ApiError its own; a request graphql-js or yoga refused before anything ran (syntax, variable
 * values, method, content type, size: no `path`) the 4xx of `clientError`; anything unexpected
 * INTERNAL_ERROR, logged.
 */
export function toGraphQLError(error: unknown, logger: Logger): GraphQLError {
  if (!isGraphQLError(error)) {
    logger.error({ err: error }, 'graphql request failed');
    return refusal(internalError());
  }
  const original = error.originalError;
  if (original && !isGraphQLError(original)) {
    if (original instanceof ApiError) return fromApiError(original, error);
    logger.error({ err: original }, 'graphql resolver failed');
    return fromApiError(internalError(), error);
  }
  const inner = original ?? error;
  if (hasSpecBody(inner) || error.path !== undefined) return inner;
  return refusedRequest(error, inner);
}
