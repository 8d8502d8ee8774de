import { ApiError, internalError } from '@wallet/domain';
import type { Request, Response } from 'express';
import { BREAK, GraphQLError, visit, type DocumentNode } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import { readCookie, SESSION_COOKIE } from '../trpc/context.ts';
import { queryLimitsRule } from './limits.ts';
import { graphqlSchema, unauthenticated, type GraphQLContext } from './schema.ts';

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

/** Whether the document (fragments included) asks for the schema (`__schema`, `__type`; `__typename` is not introspection). */
export function introspects(document: DocumentNode): boolean {
  let found = false;
  visit(document, {
    Field(node) {
      if (node.name.value === '__schema' || node.name.value === '__type') {
        found = true;
        return BREAK;
      }
      return undefined;
    },
  });
  return found;
}

/** Outside local mode the schema is described only to signed-in staff: introspection without a session is the 401 of any other field. */
const introspectionNeedsSession: Plugin<GraphQLContext> = {
  onExecute({ args, setResultAndStopExecution }) {
    if (args.contextValue.staff || !introspects(args.document)) return;
    setResultAndStopExecution({ errors: [unauthenticated()], extensions: { http: { status: 401 } } });
  },
};

const DID_YOU_MEAN = / Did you mean .*\?$/;

/** Validation errors without graphql-js's "Did you mean …?" hints, which name fields and types to anyone (an introspection by guessing). */
const noSuggestions: Plugin = {
  onValidate() {
    return ({ result, setResult }) => {
      if (!result.some((e) => DID_YOU_MEAN.test(e.message))) return;
      setResult(
        result.map((e) =>
          DID_YOU_MEAN.test(e.message)
            ? new GraphQLError(e.message.replace(DID_YOU_MEAN, ''), { nodes: e.nodes, source: e.source, positions: e.positions, path: e.path, extensions: e.extensions })
            : e,
        ),
      );
    };
  },
};

/**
 * `/graphql`: graphql-yoga over the Pothos schema, authenticated by the console's session cookie.
 * Read-only (queries only; GET and POST), batching off, depth and cost limited, GraphiQL only
 * when enabled (local mode); introspection without a session only when `publicIntrospection` (local mode).
 */
export function graphqlHandler(
  services: Services,
  { graphiql, publicIntrospection, logger }: { graphiql: boolean; publicIntrospection: boolean; logger: Logger },
) {
  return createYoga<ServerContext, GraphQLContext>({
    schema: graphqlSchema,
    graphqlEndpoint: '/graphql',
    graphiql,
    landingPage: false,
    batching: false,
    logging: false,
    plugins: [limits, unauthorizedStatus, ...(publicIntrospection ? [] : [introspectionNeedsSession, noSuggestions])],
    maskedErrors: { maskError: (error) => toGraphQLError(error as GraphQLError, logger) },
    context: async ({ req }) => ({
      services,
      staff: await services.staff.authenticate(readCookie(req.headers.cookie, SESSION_COOKIE)),
    }),
  });
}
