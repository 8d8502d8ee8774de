import { ApiError, internalError } from '@wallet/domain';
import type { Request, Response } from 'express';
import { GraphQLError } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import { readCookie, SESSION_COOKIE } from '../trpc/context.ts';
import { queryLimitsRule } from './limits.ts';
import { graphqlSchema, type GraphQLContext } from './schema.ts';

type ServerContext = { req: Request; res: Response };

/** A domain ApiError as a GraphQL error: `extensions` carry the spec body plus `code` and `status`. */
function toGraphQLError(error: GraphQLError, logger: Logger): GraphQLError {
  const original = error.originalError;
  if (original instanceof GraphQLError) return original;
  if (!original) return error; // parse/validation errors
  const apiError = original instanceof ApiError ? original : internalError();
  if (!(original instanceof ApiError)) logger.error({ err: original }, 'graphql resolver failed');
  return new GraphQLError(apiError.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    extensions: { ...apiError.toBody(), code: apiError.code, status: apiError.status },
  });
}

const limits: Plugin = {
  onValidate({ addValidationRule }) {
    addValidationRule(queryLimitsRule);
  },
};

/** Without a session the answer is HTTP 401, like REST and tRPC (yoga reads `extensions.http` and strips it). */
const unauthorizedStatus: Plugin = {
  onExecute() {
    return {
      onExecuteDone({ result, setResult }) {
        if (!('errors' in result) || !result.errors?.some((e) => e.extensions?.status === 401)) return;
        setResult({ ...result, extensions: { ...result.extensions, http: { status: 401 } } });
      },
    };
  },
};

/**
 * `/graphql`: graphql-yoga over the Pothos schema, authenticated by the console's session cookie.
 * Read-only (queries only; GET and POST), batching off, depth and cost limited, GraphiQL only
 * when enabled (local mode).
 */
export function graphqlHandler(services: Services, { graphiql, logger }: { graphiql: boolean; logger: Logger }) {
  return createYoga<ServerContext, GraphQLContext>({
    schema: graphqlSchema,
    graphqlEndpoint: '/graphql',
    graphiql,
    landingPage: false,
    batching: false,
    logging: false,
    plugins: [limits, unauthorizedStatus],
    maskedErrors: { maskError: (error) => toGraphQLError(error as GraphQLError, logger) },
    context: async ({ req }) => ({
      services,
      staff: await services.staff.authenticate(readCookie(req.headers.cookie, SESSION_COOKIE)),
    }),
  });
}
