import type { AddressInfo } from 'node:net';
import express, { type ErrorRequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dispatchRoutes } from './dispatch.ts';
import type { RouteDef } from './route.ts';

const route = (method: RouteDef['method'], path: string, name: string): RouteDef => ({
  method,
  path,
  operationId: name,
  summary: name,
  description: name,
  tag: 'Wallets',
  responses: {},
  handler: async () => ({ status: 200, body: name }),
});

// The same routes through express's own router and through dispatchRoutes answer alike.
const routes = [
  route('post', '/v1/wallets', 'create'),
  route('get', '/v1/wallets', 'list'),
  route('get', '/v1/wallets/{walletId}', 'get'),
  route('patch', '/v1/wallets/{walletId}', 'update'),
  route('post', '/v1/wallets/{walletId}/sign-message', 'sign'),
  route('get', '/v1/wallets/{walletId}/transactions/{transactionId}', 'transaction'),
  route('get', '/v1/wallets/special', 'shadowed'),
];

const handlerOf = (def: RouteDef) => async (req: express.Request, res: express.Response) => {
  if (req.params.walletId === 'boom') throw Object.assign(new Error('boom'), { status: 418 });
  res.json({ route: def.operationId, params: req.params, label: (res.locals as { route?: string }).route ?? null });
};

const errors: ErrorRequestHandler = (error, _req, res, _next) => {
  res.status(typeof error.status === 'number' ? error.status : 500).json({ error: String(error.message) });
};

function serve(router: express.Router): Promise<{ url: string; close: () => void }> {
  const app = express();
  app.use('/v1', router);
  app.use((_req, res) => void res.status(404).json({ error: 'not found' }));
  app.use(errors);
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      resolve({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close: () => server.close() });
    });
  });
}

describe('dispatchRoutes', () => {
  let viaExpress: { url: string; close: () => void };
  let viaDispatch: { url: string; close: () => void };

  beforeAll(async () => {
    const plain = express.Router();
    for (const def of routes) plain[def.method](def.path.slice(3).replace(/\{(\w+)\}/g, ':$1'), handlerOf(def));
    viaExpress = await serve(plain);
    const dispatched = express.Router();
    dispatched.use(dispatchRoutes(routes, '/v1', handlerOf));
    viaDispatch = await serve(dispatched);
  });
  afterAll(() => {
    viaExpress.close();
    viaDispatch.close();
  });

  const cases: [string, string][] = [
    ['GET', '/v1/wallets'],
    ['POST', '/v1/wallets'],
    ['GET', '/v1/wallets/'],
    ['GET', '/V1/WALLETS/abc'],
    ['GET', '/v1/wallets/abc/'],
    ['GET', '/v1/wallets/abc?x=1'],
    ['GET', '/v1/wallets/a%20b%2Fc'],
    ['GET', '/v1/wallets/%E0%A4%A'],
    ['GET', '/v1/wallets/special'],
    ['GET', '/v1/wallets/abc//'],
    ['GET', '/v1/wallets//'],
    ['PATCH', '/v1/wallets/abc'],
    ['DELETE', '/v1/wallets/abc'],
    ['HEAD', '/v1/wallets/abc'],
    ['OPTIONS', '/v1/wallets/abc'],
    ['OPTIONS', '/v1/wallets'],
    ['OPTIONS', '/v1/nothing'],
    ['POST', '/v1/wallets/abc/sign-message'],
    ['GET', '/v1/wallets/abc/sign-message'],
    ['GET', '/v1/wallets/abc/transactions/t%201'],
    ['GET', '/v1/wallets/boom'],
    ['GET', '/v1/other'],
  ];

  it.each(cases)('%s %s', async (method, path) => {
    const [a, b] = await Promise.all(
      [viaExpress, viaDispatch].map(async ({ url }) => {
        const response = await fetch(`${url}${path}`, { method });
        const text = await response.text();
        const body = text && response.headers.get('content-type')?.includes('json') ? JSON.parse(text) : text;
        return { status: response.status, allow: response.headers.get('allow'), type: response.headers.get('content-type'), body };
      }),
    );
    // express sets no label; dispatchRoutes labels the matched route for the metrics.
    if (typeof b!.body === 'object' && b!.body && 'label' in b!.body) {
      expect(b!.body.label).toBe(routes.find((r) => r.operationId === b!.body.route)!.path.replace(/\{(\w+)\}/g, ':$1'));
      b!.body.label = null;
    }
    expect(b).toEqual(a);
    if (path === '/V1/WALLETS/abc') expect(b!.body).toMatchObject({ route: 'get', params: { walletId: 'abc' } });
    if (path === '/v1/wallets/a%20b%2Fc') expect(b!.body).toMatchObject({ params: { walletId: 'a b/c' } });
    if (method === 'OPTIONS' && path === '/v1/wallets') expect(b!.allow).toBe('GET, HEAD, POST');
    if (path === '/v1/wallets/%E0%A4%A') expect(b!.status).toBe(400);
  });
});
