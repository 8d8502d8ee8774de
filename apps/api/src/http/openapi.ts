import { z } from 'zod';
import { errorBodies, type ErrorBody } from '@wallet/domain';
import { MAX_BODY_DEPTH } from './pipeline.ts';
import { apiTags, type Example, type RouteDef } from './route.ts';
import { openApiSecurityHeaders, withSecurityHeaders } from './security-headers.ts';

/** What every route answers 400 for, whatever its own schemas (dispatchRoutes, jsonBody). */
const inputLimits = `a path or query parameter holding a control character (U+0000–U+001F, U+007F), or a JSON body nesting arrays and objects deeper than ${MAX_BODY_DEPTH} levels`;

/** Answers an operation can give whatever its own responses (auth, rate limit, body parsing, dispatch, idempotency). */
const commonErrors: Record<number, { description: string; errors: ErrorBody[] }> = {
  400: { description: `Invalid request: a field failing its schema (\`details\` names it), ${inputLimits}`, errors: [errorBodies.invalidRequest] },
  401: { description: 'Missing API key, or address outside the allowlist', errors: [errorBodies.unauthorized] },
  403: { description: 'Invalid API key', errors: [errorBodies.forbidden] },
  404: { description: "Not found (also another project's object)", errors: [errorBodies.notFound] },
  409: { description: 'The Idempotency-Key was used with another request, or its first request is still running', errors: [errorBodies.conflict] },
  413: { description: 'Request body larger than 1 MB', errors: [errorBodies.payloadTooLarge] },
  431: { description: 'Request line and headers larger than 16 KB', errors: [errorBodies.requestHeadersTooLarge] },
  429: { description: 'Rate limit exceeded; see Retry-After', errors: [errorBodies.rateLimited] },
  500: { description: 'Internal error', errors: [errorBodies.internalError] },
};

/**
 * The common statuses `route` can answer: every operation the auth, rate-limit, header-size, input
 * and internal errors; 404 when its path names a stored object; 409 when the shared Idempotency-Key store
 * runs it (POST and PUT); 413 when it takes a body (GET bodies are not read: jsonBody).
 */
export function commonStatusesOf(route: Pick<RouteDef, 'method' | 'path' | 'body' | 'ownIdempotency' | 'pathNamesNoObject'>): number[] {
  const statuses = [400, 401, 403, 429, 431, 500];
  if (/\{\w+\}/.test(route.path) && !route.pathNamesNoObject) statuses.push(404);
  if ((route.method === 'post' || route.method === 'put') && !route.ownIdempotency) statuses.push(409);
  if (route.body) statuses.push(413);
  return statuses;
}

/** Answers every operation shows an example of, besides its own (RouteDef.examples). */
const commonErrorExamples: Record<number, Example> = {
  401: { summary: 'No X-API-Key header', value: { code: 'UNAUTHORIZED', message: 'Missing X-API-Key header' } },
  429: {
    summary: "Over the key's rate limit",
    value: { code: 'RATE_LIMITED', message: 'Rate limit of 600 requests per minute exceeded', retryAfter: 17 },
  },
};

type Json = Record<string, unknown>;

/** An OpenAPI `examples` map holding one example. */
const examplesOf = (example: Example) => ({ example: { summary: example.summary, value: example.value } });

/**
 * JSON Schema of a zod schema. Schemas named with `.meta({ id })` go to components/schemas (input
 * and output forms can differ, so output forms get the suffix `Response` when they do).
 */
function makeConverter(components: Record<string, unknown>) {
  return function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
    const converted = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
    delete converted.$schema;
    const defs = (converted.$defs ?? {}) as Record<string, Json>;
    delete converted.$defs;
    const rename = (name: string) => {
      const existing = components[name];
      const candidate = defs[name];
      return existing && JSON.stringify(existing) !== JSON.stringify(candidate) ? `${name}Response` : name;
    };
    const names = new Map(Object.keys(defs).map((name) => [name, rename(name)]));
    const rewrite = (value: unknown): unknown =>
      JSON.parse(JSON.stringify(value), (key, v) =>
        key === '$ref' && typeof v === 'string' && v.startsWith('#/$defs/')
          ? `#/components/schemas/${names.get(v.slice(8)) ?? v.slice(8)}`
          : v,
      );
    for (const [name, def] of Object.entries(defs)) components[names.get(name)!] = rewrite(def);
    return rewrite(converted) as Json;
  };
}

function queryParameters(json: { properties?: Record<string, unknown>; required?: string[] }) {
  return Object.entries(json.properties ?? {}).map(([name, property]) => ({
    name,
    in: 'query',
    required: json.required?.includes(name) ?? false,
    schema: property,
  }));
}

/**
 * The schema of an error status: one error body, or a `oneOf` of several discriminated by `code`
 * (the mapping names each code's schema, since schema names are not the codes).
 */
function errorStatusSchema(errors: ErrorBody[], jsonSchema: ReturnType<typeof makeConverter>): Json {
  const refs = [...new Set(errors)].map((error) => jsonSchema(error, 'output'));
  if (refs.length === 1) return refs[0]!;
  const codeOf = (error: ErrorBody) => (error.shape.code as z.ZodLiteral<string>).value;
  const mapping = Object.fromEntries([...new Set(errors)].map((error, index) => [codeOf(error), refs[index]!.$ref]));
  return { oneOf: refs, discriminator: { propertyName: 'code', mapping } };
}

/** Query parameters are listed one by one, so a query schema reference is resolved here. */
function inlineRef(json: Json, components: Record<string, unknown>): Json {
  const ref = typeof json.$ref === 'string' ? json.$ref.replace('#/components/schemas/', '') : undefined;
  if (!ref) return json;
  const resolved = components[ref] as Json;
  delete components[ref];
  return resolved;
}

/** The OpenAPI 3.1 document, built from the same route table and zod schemas that serve requests. */
export function buildOpenApi(routes: RouteDef[]) {
  const components: Record<string, unknown> = {};
  const jsonSchema = makeConverter(components);
  const paths: Record<string, Record<string, unknown>> = {};
  const operationIds = new Set<string>();
  for (const route of routes) {
    if (operationIds.has(route.operationId)) throw new Error(`operationId ${route.operationId} is used twice`);
    operationIds.add(route.operationId);
    const pathParams = [...route.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => ({
      name,
      in: 'path',
      required: true,
      // dispatchRoutes refuses a control character in any path param.
      schema: { type: 'string', format: name === 'walletId' ? 'uuid' : undefined, pattern: '^[^\\u0000-\\u001f\\u007f]*$' },
    }));
    const headerParams =
      route.method === 'post' || route.method === 'put'
        ? [{ name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 256 } }]
        : [];
    const responses: Record<string, unknown> = {};
    const common = new Set(commonStatusesOf(route));
    const statuses = [...new Set([...Object.keys(route.responses).map(Number), ...common])].sort((a, b) => a - b);
    for (const status of statuses) {
      const own = route.responses[status];
      // An own status listing no error bodies answers the common body of that status.
      const shared = common.has(status) || (own && !own.errors?.length) ? commonErrors[status] : undefined;
      const description = own ? (status === 400 ? `${own.description}; or ${inputLimits}` : own.description) : shared!.description;
      let schema = own?.schema ? jsonSchema(own.schema, 'output') : undefined;
      if (status >= 400) {
        const errors = [...(shared?.errors ?? []), ...(own?.errors ?? [])];
        if (errors.length === 0) throw new Error(`${route.operationId}: status ${status} lists no error body`);
        schema = errorStatusSchema(errors, jsonSchema);
      }
      const example = route.examples?.response[status] ?? commonErrorExamples[status];
      const media = schema ? { schema, ...(example ? { examples: examplesOf(example) } : {}) } : undefined;
      const headers = own?.headers ? { headers: own.headers } : {};
      responses[status] = { description, ...headers, ...(media ? { content: { 'application/json': media } } : {}) };
    }
    const request = route.examples?.request;
    const parameters = [...pathParams, ...(route.query ? queryParameters(inlineRef(jsonSchema(route.query, 'input'), components)) : [])];
    const unknown = Object.keys(request?.parameters ?? {}).filter((name) => !parameters.some((parameter) => parameter.name === name));
    if (unknown.length > 0) throw new Error(`${route.operationId}: the request example names no parameter ${unknown.join(', ')}`);
    const withExample = <Parameter extends { name?: string }>(parameter: Parameter) =>
      request?.parameters && parameter.name !== undefined && parameter.name in request.parameters
        ? { ...parameter, examples: examplesOf({ summary: request.summary, value: request.parameters[parameter.name] }) }
        : parameter;
    const bodyExamples = request && 'body' in request ? { examples: examplesOf({ summary: request.summary, value: request.body }) } : {};
    (paths[route.path] ??= {})[route.method] = {
      operationId: route.operationId,
      summary: route.summary,
      description: route.description,
      tags: [route.tag],
      parameters: [
        ...parameters.map(withExample),
        ...headerParams,
      ],
      ...(route.body
        ? { requestBody: { required: true, content: { 'application/json': { schema: jsonSchema(route.body, 'input'), ...bodyExamples } } } }
        : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Wallet and signing service',
      version: '1.0',
      description: 'Server-to-server wallets, signing, broadcasts and yield. Every /v1 route needs X-API-Key.',
      // Self-hosted: whoever runs the deployment answers for it; the service knows no address of theirs.
      contact: { name: 'The operator of this deployment' },
      // The repository's LICENSE (OpenAPI 3.1: an SPDX identifier instead of a url).
      license: { name: 'Apache-2.0', identifier: 'Apache-2.0' },
    },
    // Relative: every deployment serves this document itself, so its operations are on the origin
    // the document came from (a fixed host would be wrong for every deployment but one).
    servers: [{ url: '/', description: 'The origin that served this document' }],
    tags: Object.entries(apiTags)
      .filter(([name]) => routes.some((route) => route.tag === name))
      .map(([name, description]) => ({ name, description })),
    security: [{ apiKey: [] }],
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key' } },
      headers: openApiSecurityHeaders,
      schemas: components,
    },
    // Every answer carries X-Content-Type-Options and Cache-Control (security-headers.ts).
    paths: withSecurityHeaders(paths),
  };
}
