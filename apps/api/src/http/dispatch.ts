import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { CONTROL_CHARACTER_MESSAGE, fieldError, hasControlCharacter } from '@wallet/domain';
import { toExpressPath, type RouteDef } from './route.ts';

/**
 * The routes of a mounted router (e.g. /v1) as one middleware: one pass over precompiled patterns
 * instead of one express Route layer per route, which cost more per request than the hot routes'
 * own work. Matching is express's (router 2 / path-to-regexp 8 defaults for these paths): case
 * insensitive, an optional trailing slash, params percent-decoded (a bad escape is a 400), HEAD
 * answered by the GET route, first match wins, and OPTIONS answered with the Allow list of the
 * routes on the path when no route handles it. Unmatched requests go to `next()`.
 * Path params and query values name things (ids, addresses, filters): a control character in one is
 * a 400 here, for every route, before any reaches a use case or the database.
 */
export function dispatchRoutes(
  routes: RouteDef[],
  mount: string,
  handlerOf: (route: RouteDef) => (req: Request, res: Response) => Promise<void>,
): RequestHandler {
  const entries = routes.map((route) => {
    const { pattern, names } = compile(route, mount);
    const method = route.method.toUpperCase();
    return {
      method,
      // Route._methods(): a GET route also answers HEAD.
      allow: method === 'GET' ? ['GET', 'HEAD'] : [method],
      pattern,
      names,
      handle: handlerOf(route),
      label: toExpressPath(route.path),
    };
  });

  return (req, res, next) => {
    const url = req.url;
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    const method = req.method;
    let allow: string[] | undefined;
    for (const entry of entries) {
      const match = entry.pattern.exec(path);
      if (!match) continue;
      if (entry.method !== method && !(method === 'HEAD' && entry.method === 'GET')) {
        if (method === 'OPTIONS') (allow ??= []).push(...entry.allow);
        continue;
      }
      const params: Record<string, string> = {};
      for (let i = 0; i < entry.names.length; i++) {
        const value = match[i + 1]!;
        try {
          params[entry.names[i]!] = value.includes('%') ? decodeURIComponent(value) : value;
        } catch {
          next(Object.assign(new URIError(`Failed to decode param '${value}'`), { status: 400, statusCode: 400 }));
          return;
        }
      }
      const refused = controlCharacterField(params) ?? controlCharacterField(req.query as Record<string, unknown>);
      if (refused !== undefined) {
        next(fieldError(refused, CONTROL_CHARACTER_MESSAGE));
        return;
      }
      req.params = params;
      const facts = res.locals as { route?: string; walletId?: string; transactionId?: string };
      facts.route = entry.label;
      // For the request log (pipeline.ts): the ids the path names.
      facts.walletId = params.walletId;
      facts.transactionId = params.transactionId;
      entry.handle(req, res).catch(next as NextFunction);
      return;
    }
    if (allow) {
      const list = [...new Set(allow)].sort().join(', ');
      res.setHeader('Allow', list);
      res.setHeader('Content-Length', Buffer.byteLength(list));
      res.setHeader('Content-Type', 'text/plain');
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.end(list);
      return;
    }
    next();
  };
}

/** A route's path (below `mount`) as the pattern dispatch matches with, and its param names in order. */
function compile(route: RouteDef, mount: string): { pattern: RegExp; names: string[] } {
  if (!route.path.startsWith(mount)) throw new Error(`route ${route.path} is outside ${mount}`);
  const names: string[] = [];
  const source = route.path
    .slice(mount.length)
    .split('/')
    .map((segment) => {
      const param = /^(?:\{(\w+)\}|:(\w+))$/.exec(segment);
      if (param) {
        names.push((param[1] ?? param[2])!);
        return '([^/]+)';
      }
      if (!/^[\w.-]*$/.test(segment)) throw new Error(`unsupported path segment ${segment} in ${route.path}`);
      return segment.replace(/\./g, '\\.');
    })
    .join('/');
  return { pattern: new RegExp(`^${source}/?$`, 'i'), names };
}

/**
 * The template of the route a request's path and method would reach under `mount`, matched as
 * dispatchRoutes matches; for requests refused before dispatch (e.g. a bad API key), so their
 * request log entry still names the route. Undefined when no route matches.
 */
export function routeTemplateOf(routes: RouteDef[], mount: string): (method: string, url: string) => string | undefined {
  const entries = routes.map((route) => ({ method: route.method.toUpperCase(), pattern: compile(route, mount).pattern, label: toExpressPath(route.path) }));
  const prefix = new RegExp(`^${mount}(?=[/?]|$)`, 'i');
  return (method, url) => {
    const below = url.replace(prefix, '');
    const query = below.indexOf('?');
    const path = query < 0 ? below : below.slice(0, query);
    const wanted = method === 'HEAD' ? 'GET' : method;
    return entries.find((entry) => entry.method === wanted && entry.pattern.test(path))?.label;
  };
}

/**
 * The first name whose value (a string, or strings of a repeated query parameter or array) holds a
 * control character, or that holds one itself; undefined for anything but a plain object. REST's
 * path and query values, and tRPC's procedure arguments (trpc.ts), go through it.
 */
export function controlCharacterField(values: unknown): string | undefined {
  if (typeof values !== 'object' || values === null || Array.isArray(values)) return undefined;
  for (const [name, value] of Object.entries(values)) {
    const strings: unknown[] = Array.isArray(value) ? value : [value];
    if (hasControlCharacter(name) || strings.some((item) => typeof item === 'string' && hasControlCharacter(item))) return name;
  }
  return undefined;
}
