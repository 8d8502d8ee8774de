import type { RequestHandler, Response } from 'express';

/**
 * Response headers every answer of the API carries (docs/operations.md, "Security headers"):
 * `X-Content-Type-Options: nosniff` on all of them, and `Cache-Control: no-store` on every answer
 * but a successful read of a public document (/docs, its Redoc bundle, /v1/openapi.json), so no
 * authenticated answer (/v1 with an API key, /trpc and /graphql with a staff session, the CLI's
 * control routes) and no error is kept by a browser or shared cache. They are set as the status
 * line is written, whoever writes it (routes, the error handler, tRPC, GraphQL Yoga), and replace
 * what a handler set for the same names.
 */
export const NOSNIFF = 'nosniff';
export const NO_STORE = 'no-store';

/** Public documents: the same for every caller, so a successful read may be cached. */
const PUBLIC_DOCUMENTS = new Set(['/docs', '/docs/redoc.standalone.js', '/v1/openapi.json']);

/**
 * The Content-Security-Policy of the Redoc page at /docs: its script from this origin, its search
 * worker from a blob: URL, the inline styles it injects (styled-components), the document fetched
 * from this origin, the data: SVG icons of its stylesheet and the one image Redoc always shows
 * (the "API docs by Redocly" logo, a fixed URL with no option to turn it off); nothing else, and
 * never in a frame.
 */
export const DOCS_CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  'worker-src blob:',
  "style-src 'unsafe-inline'",
  "connect-src 'self'",
  'img-src data: https://cdn.redoc.ly/redoc/logo-mini.svg',
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

/** The headers /docs adds to the ones every answer carries. */
export const DOCS_PAGE_HEADERS: Record<string, string> = {
  'Content-Security-Policy': DOCS_CONTENT_SECURITY_POLICY,
  'X-Frame-Options': 'DENY',
};

const isPublicDocument = (method: string, path: string) =>
  (method === 'GET' || method === 'HEAD') && PUBLIC_DOCUMENTS.has(path.toLowerCase().replace(/(?<=.)\/$/, ''));

/** The headers of one answer, by its request and status. */
export function securityHeadersOf(method: string, path: string, status: number): Record<string, string> {
  const cacheable = status < 400 && isPublicDocument(method, path);
  return cacheable ? { 'X-Content-Type-Options': NOSNIFF } : { 'X-Content-Type-Options': NOSNIFF, 'Cache-Control': NO_STORE };
}

type WriteHeadArgs = [status: number, ...rest: unknown[]];

/** `headers` (a writeHead argument: an object or a flat name, value list) without the names in `names`. */
function without(headers: unknown, names: Set<string>): unknown {
  if (Array.isArray(headers)) {
    const kept: unknown[] = [];
    for (let i = 0; i + 1 < headers.length; i += 2) if (!names.has(String(headers[i]).toLowerCase())) kept.push(headers[i], headers[i + 1]);
    return kept;
  }
  if (headers && typeof headers === 'object') {
    return Object.fromEntries(Object.entries(headers).filter(([name]) => !names.has(name.toLowerCase())));
  }
  return headers;
}

/** Mounted first in app.ts: every answer leaves with securityHeadersOf(its request, its status). */
export function securityHeaders(): RequestHandler {
  return (req, res, next) => {
    const writeHead = res.writeHead as (this: Response, ...args: WriteHeadArgs) => Response;
    const path = req.path;
    res.writeHead = function (this: Response, ...args: WriteHeadArgs) {
      const headers = securityHeadersOf(req.method, path, args[0]);
      for (const [name, value] of Object.entries(headers)) this.setHeader(name, value);
      // Headers given to writeHead itself (GraphQL Yoga passes them) would override the ones set above.
      const names = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
      const last = args.length - 1;
      if (last > 0 && typeof args[last] === 'object') args[last] = without(args[last], names);
      return writeHead.apply(this, args);
    } as Response['writeHead'];
    next();
  };
}

/** The OpenAPI header components of the headers every /v1 answer carries (components.headers). */
export const openApiSecurityHeaders = {
  XContentTypeOptions: {
    description: 'Always `nosniff`: the body is only ever what Content-Type says.',
    schema: { type: 'string', const: NOSNIFF },
  },
  CacheControl: {
    description: 'Always `no-store` on /v1 answers (every one is authenticated): no browser or shared cache keeps them.',
    schema: { type: 'string', const: NO_STORE },
  },
};

type Paths = Record<string, Record<string, unknown>>;

/** `paths` with every response of every operation referencing openApiSecurityHeaders, beside its own headers. */
export function withSecurityHeaders<T extends Paths>(paths: T): T {
  const refs = {
    'X-Content-Type-Options': { $ref: '#/components/headers/XContentTypeOptions' },
    'Cache-Control': { $ref: '#/components/headers/CacheControl' },
  };
  for (const item of Object.values(paths)) {
    for (const operation of Object.values(item) as Array<{ responses?: Record<string, { headers?: Record<string, unknown> }> }>) {
      for (const response of Object.values(operation.responses ?? {})) response.headers = { ...refs, ...response.headers };
    }
  }
  return paths;
}
