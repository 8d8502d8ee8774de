import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../app.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { commonStatusesOf } from './openapi.ts';
import type { RouteDef } from './route.ts';

/**
 * Every operation is sent, for each common status it can answer (openapi.ts, commonStatusesOf),
 * a request that must get that status, so no operation documents a common answer it cannot give;
 * the harness checks each answer against the served document. 500 is the one common status no
 * request can provoke on purpose.
 */

interface Operation {
  route: RouteDef;
  documented: number[];
  body?: unknown;
  /** The query of the operation's request example (required filters), as a `?…` string or ''. */
  exampleQuery: string;
}

function operationsOf(document: any, routes: RouteDef[]): Operation[] {
  return routes.map((route) => {
    const operation = document.paths[route.path][route.method];
    const queryExamples = (operation.parameters ?? []).filter((p: any) => p.in === 'query' && p.examples);
    const query = new URLSearchParams(queryExamples.map((p: any) => [p.name, String(p.examples.example.value)]));
    return {
      route,
      documented: Object.keys(operation.responses).map(Number),
      body: operation.requestBody?.content['application/json'].examples?.example?.value,
      exampleQuery: queryExamples.length > 0 ? `?${query}` : '',
    };
  });
}

/** The path with a fresh UUID for each parameter (no such object exists), and the example's query. */
const unknownTarget = (operation: Operation) => `${operation.route.path.replace(/\{\w+\}/g, () => randomUUID())}${operation.exampleQuery}`;

describe('the common error answers of every operation', () => {
  let app: TestApp;
  let key: string;
  let operations: Operation[];
  beforeAll(async () => {
    app = await startTestApp('pglite');
    const issued = await app.createKey();
    key = issued.apiKey;
    // The permissions v2 extension's routes answer 403 before looking anything up when it is off.
    await app.services.permissionsExtension.set(await app.services.policies.operatorScope(issued.projectId, 'development'), true);
    operations = operationsOf((await app.request('GET', '/v1/openapi.json')).body, allRoutes(app.services));
  });
  afterAll(async () => {
    await app?.close();
  });

  type Send = { target?: string; key?: string; body?: unknown; rawBody?: string; headers?: Record<string, string> };
  const send = (operation: Operation, options: Send = {}) =>
    app.request(operation.route.method.toUpperCase(), options.target ?? unknownTarget(operation), {
      key: options.key ?? key,
      ...(options.rawBody !== undefined ? { rawBody: options.rawBody } : operation.body !== undefined || options.body !== undefined ? { body: options.body ?? operation.body } : {}),
      headers: options.headers,
    });

  /** A request that must be answered `status`. */
  const provoke: Record<number, (operation: Operation) => Promise<{ status: number; body: any }>> = {
    400: (operation) => send(operation, { target: `${operation.route.path.replace(/\{\w+\}/g, '%01')}?filter=%01` }),
    401: (operation) => app.request(operation.route.method.toUpperCase(), unknownTarget(operation), operation.body === undefined ? {} : { body: operation.body }),
    403: (operation) => send(operation, { key: 'wsk_not_a_key' }),
    404: (operation) => send(operation),
    409: async (operation) => {
      const target = unknownTarget(operation);
      const headers = { 'idempotency-key': randomUUID() };
      const first = await send(operation, { target, headers });
      expect(first.status, `${operation.route.operationId}: the first request must be stored (not 400 or 5xx)`).not.toBe(400);
      return send(operation, { target, body: { ...(operation.body as object), anotherField: true }, headers });
    },
    413: (operation) => send(operation, { rawBody: JSON.stringify({ filler: 'x'.repeat(1_100_000) }) }),
    429: async (operation) => {
      const limited = (await app.createKey({ rateLimitPerMinute: 1 })).apiKey;
      await send(operation, { key: limited });
      return send(operation, { key: limited });
    },
    431: (operation) => send(operation, { headers: { 'x-filler': 'a'.repeat(20_000) } }),
  };

  it('documents each common status an operation can answer, and a request gets each one', async () => {
    expect(operations.length).toBeGreaterThan(40);
    const failures: string[] = [];
    for (const operation of operations) {
      const { method, path, operationId } = operation.route;
      const common = commonStatusesOf(operation.route).filter((status) => status !== 500);
      for (const status of [...common, 500]) if (!operation.documented.includes(status)) failures.push(`${operationId} does not document ${status}`);
      for (const status of common) {
        const { status: received, body } = await provoke[status]!(operation);
        if (received !== status) failures.push(`${method} ${path} (${operationId}): wanted ${status}, got ${received} ${JSON.stringify(body).slice(0, 160)}`);
      }
    }
    expect(failures).toEqual([]);
  });

  it('reads no body on a GET: a large one is not refused with 413', async () => {
    // fetch sends no GET body; node:http does.
    const body = JSON.stringify({ filler: 'x'.repeat(1_100_000) });
    const headers = { 'x-api-key': key, 'content-type': 'application/json', 'content-length': String(body.length) };
    const status = await new Promise<number>((resolve, reject) => {
      const outgoing = httpRequest(`${app.baseUrl}/v1/wallets`, { method: 'GET', headers }, (incoming) => {
        incoming.resume();
        resolve(incoming.statusCode!);
      });
      outgoing.on('error', reject);
      outgoing.end(body);
    });
    expect(status).toBe(200);
  });
});
