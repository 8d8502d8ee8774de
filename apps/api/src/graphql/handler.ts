import { CONTROL_CHARACTER_MESSAGE, fieldError, invalidRequest } from '@wallet/domain';
import type { Request, Response } from 'express';
import { BREAK, GraphQLError, parse, visit, type DocumentNode } from 'graphql';
import { createYoga, type Plugin } from 'graphql-yoga';
import { MAX_BODY_DEPTH } from '../http/pipeline.ts';
import type { Logger } from '../logger.ts';
import type { Services } from '../services.ts';
import { clientError, MAX_BODY_BYTES } from '../trpc/client-error.ts';
import { readCookie, SESSION_COOKIE } from '../trpc/context.ts';
import { controlCharacterArgument } from './arguments.ts';
import { hasSpecBody, refusal, refusedRequest, toGraphQLError } from './errors.ts';
import { queryLimitsRule, unparseableBecause } from './limits.ts';
import { graphqlSchema, unauthenticated, type GraphQLContext } from './schema.ts';

type ServerContext = { req: Request; res: Response };

/** Before parsing, the size and nesting of the document (limits.ts: REST's depth limit); then the depth and cost limits of its selections. */
const limits: Plugin = {
  onParse({ setParseFn }) {
    setParseFn((source, options) => {
      const refused = unparseableBecause(source, MAX_BODY_DEPTH);
      if (refused) throw refusal(invalidRequest(`Invalid request: ${refused}`));
      return parse(source, options);
    });
  },
  onValidate({ addValidationRule }) {
    addValidationRule(queryLimitsRule);
  },
};

/** Validation errors (yoga answers them without masking) carry the spec body too: 400 INVALID_REQUEST. Runs after `noSuggestions`. */
const validationErrorBodies: Plugin = {
  onValidate() {
    return ({ result, setResult }) => {
      if (result.every(hasSpecBody)) return;
      setResult(result.map((e) => (hasSpecBody(e) ? e : refusedRequest(e))));
    };
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

/**
 * An argument value holding a control character (an id, a hash, an address, a filter) is the
 * 400 INVALID_REQUEST REST answers for such a path or query value, before any resolver runs;
 * without a session the fields answer their 401 first, as REST does.
 */
const controlCharactersRefused: Plugin<GraphQLContext> = {
  onExecute({ args, setResultAndStopExecution }) {
    if (!args.contextValue.staff) return;
    const refused = controlCharacterArgument(args.document, args.variableValues ?? {});
    if (refused) setResultAndStopExecution({ errors: [refusal(fieldError(refused.name.value, CONTROL_CHARACTER_MESSAGE), [refused])], extensions: { http: { status: 400 } } });
  },
};

/**
 * Request bodies and URLs yoga cannot read are 4xx JSON answers: a POST in a content type yoga
 * does not read (`text/plain`, XML, ...) a 415, not yoga's empty one; `variables` or `extensions`
 * that are not JSON in a GET's URL or a form a 400, not the 500 of yoga's uncaught SyntaxError.
 */
const requestParsing: Plugin = {
  onRequestParse({ request, requestParser, setRequestParser }) {
    if (requestParser) {
      setRequestParser(async (req) => {
        try {
          return await requestParser(req);
        } catch (error) {
          if (error instanceof SyntaxError) throw refusal(invalidRequest('Invalid request: variables or extensions are not valid JSON'));
          throw error;
        }
      });
      return;
    }
    if (request.method !== 'POST') return;
    const type = request.headers.get('content-type');
    throw refusal(clientError(415, type ? `Unsupported content type ${JSON.stringify(type.slice(0, 100))}` : 'Missing content type'));
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
 * Read-only (queries only; GET and POST), batching off, bodies up to 1 MB, depth and cost limited,
 * no CORS, GraphiQL only when enabled (local mode); introspection without a session only when
 * `publicIntrospection` (local mode).
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
    // No CORS: the console reaches /graphql through its own origin, and no preflight is ever approved (OPTIONS is a 405).
    cors: false,
    maxRequestBodySize: MAX_BODY_BYTES,
    plugins: [
      requestParsing,
      limits,
      unauthorizedStatus,
      ...(publicIntrospection ? [] : [introspectionNeedsSession, noSuggestions]),
      validationErrorBodies,
      controlCharactersRefused,
    ],
    maskedErrors: { maskError: (error) => toGraphQLError(error, logger) },
    context: async ({ req }) => ({
      services,
      staff: await services.staff.authenticate(readCookie(req.headers.cookie, SESSION_COOKIE)),
    }),
  });
}
