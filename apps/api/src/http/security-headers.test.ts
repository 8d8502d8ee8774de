import { VAULT_METHODS } from '@wallet/domain';
import { SignerRefusedError } from '@wallet/signer/client';
import express from 'express';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePartner } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { DOCS_CONTENT_SECURITY_POLICY, securityHeaders, securityHeadersOf } from './security-headers.ts';

/** What every authenticated answer and every error must carry. */
function expectNoStoreNosniff(headers: Headers, what: string) {
  expect(headers.get('x-content-type-options'), what).toBe('nosniff');
  expect(headers.get('cache-control'), what).toBe('no-store');
}

type Responses = Record<string, { headers?: Record<string, { $ref?: string }> }>;

/**
 * The API's security headers over HTTP, on the real app: nosniff on every answer; no-store on a
 * 200, a 4xx and a 5xx of an authenticated /v1 route, on /trpc and /graphql; /docs with its own
 * CSP and no framing; the served document saying so for every answer of every operation.
 */
describe('security headers of the API', () => {
  let app: TestApp;
  let key: string;
  let walletId: string;
  let created: Headers;
  // While set, the signer fails every signature (as the in-process signer answers a handler's crash).
  let signerFails = false;

  beforeAll(async () => {
    app = await startTestApp('pglite', {
      signerTamper: (method, result) => {
        if (signerFails && method === VAULT_METHODS.sign) throw new SignerRefusedError('SIGNER_INTERNAL', 'internal signer error', 500);
        return result;
      },
    });
    key = (await app.createKey()).apiKey;
    const wallet = await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: 'headers@example.com', userIdentifierType: 'EMAIL' } });
    expect(wallet.status).toBe(201);
    created = wallet.headers;
    walletId = wallet.body.id;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('2xx answers of an authenticated route: no-store and nosniff', async () => {
    expectNoStoreNosniff(created, 'POST /v1/wallets 201');
    const read = await app.request('GET', `/v1/wallets/${walletId}`, { key });
    expect(read.status).toBe(200);
    expectNoStoreNosniff(read.headers, 'GET /v1/wallets/{walletId} 200');
    const list = await app.request('GET', '/v1/wallets', { key });
    expect(list.status).toBe(200);
    expectNoStoreNosniff(list.headers, 'GET /v1/wallets 200');
  });

  it('4xx answers of an authenticated route, before and after authentication: no-store and nosniff', async () => {
    const missingKey = await app.request('GET', `/v1/wallets/${walletId}`);
    expect(missingKey.status).toBe(401);
    expectNoStoreNosniff(missingKey.headers, '401');
    const unknown = await app.request('GET', '/v1/wallets/00000000-0000-4000-8000-000000000000', { key });
    expect(unknown.status).toBe(404);
    expectNoStoreNosniff(unknown.headers, '404');
    const invalid = await app.request('POST', `/v1/wallets/${walletId}/sign-message`, { key, body: { message: 42 } });
    expect(invalid.status).toBe(400);
    expectNoStoreNosniff(invalid.headers, '400');
  });

  it('a 5xx of an authenticated route (the signer fails): no-store and nosniff', async () => {
    signerFails = true;
    try {
      const failed = await app.request('POST', `/v1/wallets/${walletId}/sign-message`, { key, body: { message: 'hello' } });
      expect(failed.status).toBe(500);
      expect(failed.body.code).toBe('INTERNAL_ERROR');
      expectNoStoreNosniff(failed.headers, '500');
    } finally {
      signerFails = false;
    }
    const signed = await app.request('POST', `/v1/wallets/${walletId}/sign-message`, { key, body: { message: 'hello' } });
    expect(signed.status).toBe(200);
    expectNoStoreNosniff(signed.headers, 'sign-message 200');
  });

  it('the console transports: /trpc and /graphql (which writes its headers itself) answer no-store and nosniff', async () => {
    const partner = await consolePartner(app, [], ['owner']);
    const me = await fetch(`${app.baseUrl}/trpc/auth.me`, { headers: { cookie: partner.cookies.owner } });
    expect(me.status).toBe(200);
    expectNoStoreNosniff(me.headers, '/trpc/auth.me 200');
    const graphql = await fetch(`${app.baseUrl}/graphql`, {
      method: 'POST',
      headers: { cookie: partner.cookies.owner, 'content-type': 'application/json', 'x-csrf-protection': '1' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(graphql.status).toBe(200);
    expectNoStoreNosniff(graphql.headers, '/graphql 200');
    const invalid = await fetch(`${app.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body: JSON.stringify({ query: '{ noSuchField }' }) });
    expect(invalid.status).toBe(400);
    expectNoStoreNosniff(invalid.headers, '/graphql 400');
  });

  it('/docs: its own CSP (a blob: worker and inline styles, nothing else), never framed, cacheable', async () => {
    const docs = await fetch(`${app.baseUrl}/docs`);
    expect(docs.status).toBe(200);
    const csp = docs.headers.get('content-security-policy');
    expect(csp).toBe(DOCS_CONTENT_SECURITY_POLICY);
    const directives = Object.fromEntries(csp!.split('; ').map((directive) => [directive.split(' ')[0], directive.split(' ').slice(1).join(' ')]));
    expect(directives).toEqual({
      'default-src': "'none'",
      'script-src': "'self'",
      'worker-src': 'blob:',
      'style-src': "'unsafe-inline'",
      'connect-src': "'self'",
      'img-src': 'data: https://cdn.redoc.ly/redoc/logo-mini.svg',
      'object-src': "'none'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
    expect(docs.headers.get('x-frame-options')).toBe('DENY');
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
    expect(docs.headers.get('cache-control')).toBeNull();
    const bundle = await fetch(`${app.baseUrl}/docs/redoc.standalone.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect(bundle.headers.get('x-content-type-options')).toBe('nosniff');
    expect(bundle.headers.get('cache-control')).not.toContain('no-store');
    await bundle.arrayBuffer();
    const document = await fetch(`${app.baseUrl}/v1/openapi.json`);
    expect(document.headers.get('x-content-type-options')).toBe('nosniff');
    await document.arrayBuffer();
    // An error under the public paths is an error like any other.
    const missing = await fetch(`${app.baseUrl}/docs/nothing-here`);
    expect(missing.status).toBe(404);
    expectNoStoreNosniff(missing.headers, '/docs/nothing-here 404');
  });

  it('nosniff and no-store on answers outside /v1 too (health, metrics)', async () => {
    for (const path of ['/health', '/metrics']) {
      const response = await fetch(`${app.baseUrl}${path}`);
      expect(response.status, path).toBe(200);
      expectNoStoreNosniff(response.headers, path);
      await response.arrayBuffer();
    }
  });

  it('the served document references both headers from every answer of every operation', async () => {
    const document = (await (await fetch(`${app.baseUrl}/v1/openapi.json`)).json()) as {
      components: { headers: Record<string, { schema: { const: string } }> };
      paths: Record<string, Record<string, { operationId: string; responses: Responses }>>;
    };
    expect(document.components.headers.XContentTypeOptions!.schema.const).toBe('nosniff');
    expect(document.components.headers.CacheControl!.schema.const).toBe('no-store');
    const answers = Object.values(document.paths).flatMap((item) =>
      Object.values(item).flatMap((operation) => Object.entries(operation.responses).map(([status, response]) => ({ at: `${operation.operationId} ${status}`, headers: response.headers ?? {} }))),
    );
    expect(answers.length).toBeGreaterThan(300);
    const missing = answers.filter(
      ({ headers }) => headers['X-Content-Type-Options']?.$ref !== '#/components/headers/XContentTypeOptions' || headers['Cache-Control']?.$ref !== '#/components/headers/CacheControl',
    );
    expect(missing.map(({ at }) => at)).toEqual([]);
  });

  it('replaces what a handler gives writeHead itself for the same names (as GraphQL Yoga passes its headers)', async () => {
    const bare = express();
    bare.use(securityHeaders());
    bare.get('/object', (_req, res) => void res.writeHead(200, 'OK', { 'cache-control': 'public, max-age=600', 'X-Content-Type-Options': 'sniff', 'x-kept': '1' }).end('{}'));
    bare.get('/list', (_req, res) => void res.writeHead(200, ['Cache-Control', 'max-age=600', 'x-kept', '1']).end('{}'));
    const server = bare.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (const path of ['/object', '/list']) {
        const response = await fetch(`${base}${path}`);
        expectNoStoreNosniff(response.headers, path);
        expect(response.headers.get('x-kept'), path).toBe('1');
        await response.arrayBuffer();
      }
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('decides by request and status: only a successful read of a public document may be cached', () => {
    expect(securityHeadersOf('GET', '/docs', 200)).toEqual({ 'X-Content-Type-Options': 'nosniff' });
    expect(securityHeadersOf('GET', '/DOCS/', 200)).toEqual({ 'X-Content-Type-Options': 'nosniff' });
    expect(securityHeadersOf('HEAD', '/v1/openapi.json', 200)).toEqual({ 'X-Content-Type-Options': 'nosniff' });
    expect(securityHeadersOf('GET', '/docs', 500)['Cache-Control']).toBe('no-store');
    expect(securityHeadersOf('POST', '/docs', 200)['Cache-Control']).toBe('no-store');
    expect(securityHeadersOf('GET', '/v1/wallets', 200)['Cache-Control']).toBe('no-store');
    expect(securityHeadersOf('GET', '/', 200)['Cache-Control']).toBe('no-store');
  });
});
