import { testDatabaseKinds } from '@wallet/db';
import type { Clock } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';

const body = (n: number | string) => ({ type: 'EVM', userIdentifier: `auth-${n}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' });

describe.each(testDatabaseKinds)('authentication, rate limits and the HTTP envelope on %s', (kind) => {
  let app: TestApp;
  let now = Date.UTC(2026, 10, 22, 12, 0, 10);
  const clock: Clock = { now: () => new Date(now) };

  beforeAll(async () => {
    app = await startTestApp(kind, { clock });
  });
  afterAll(async () => {
    const logs = app.logLines.join('');
    for (const secret of app.secrets()) expect(logs).not.toContain(secret);
    await app.close();
  });

  it('needs a key: missing 401, malformed or unknown 403', async () => {
    const missing = await app.request('GET', '/v1/wallets');
    expect(missing.status).toBe(401);
    expect(missing.body).toMatchObject({ code: 'UNAUTHORIZED' });
    const malformed = await app.request('GET', '/v1/wallets', { key: 'nope' });
    expect(malformed.status).toBe(403);
    expect(malformed.body).toMatchObject({ code: 'FORBIDDEN' });
    const unknown = await app.request('GET', '/v1/wallets', { key: `sk_test_${'A'.repeat(43)}` });
    expect(unknown.status).toBe(403);
    expect(unknown.body).toEqual(malformed.body);
    const unknownRoute = await app.request('GET', '/v1/nothing-here');
    expect(unknownRoute.status).toBe(401);
  });

  it('keeps wallets reachable after rotation; the old secret and revoked keys get 403', async () => {
    const issued = await app.createKey();
    const wallet = await app.request('POST', '/v1/wallets', { key: issued.apiKey, body: body('rot') });
    expect(wallet.status).toBe(201);
    const rotated = await app.services.apiKeys.rotate(issued.apiKeyId);
    expect(rotated.apiKey).not.toBe(issued.apiKey);
    expect(rotated.projectId).toBe(issued.projectId);
    expect((await app.request('GET', `/v1/wallets/${wallet.body.id}`, { key: issued.apiKey })).status).toBe(403);
    const viaNew = await app.request('GET', `/v1/wallets/${wallet.body.id}`, { key: rotated.apiKey });
    expect(viaNew.status).toBe(200);
    expect(viaNew.body.id).toBe(wallet.body.id);
    await app.services.apiKeys.revoke(issued.apiKeyId);
    const revoked = await app.request('GET', `/v1/wallets/${wallet.body.id}`, { key: rotated.apiKey });
    expect(revoked.status).toBe(403);
    expect(revoked.body.code).toBe('FORBIDDEN');
  });

  it('sees a revocation made by another process once the auth cache time has passed', async () => {
    const issued = await app.createKey();
    expect((await app.request('GET', '/v1/wallets', { key: issued.apiKey })).status).toBe(200);
    // Another API process revokes the key: straight in the shared database, not through this process.
    await app.services.stores.apiKeys.revoke(issued.apiKeyId, clock.now());
    expect((await app.request('GET', '/v1/wallets', { key: issued.apiKey })).status).toBe(200);
    now += 2_001;
    const refused = await app.request('GET', '/v1/wallets', { key: issued.apiKey });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
  });

  it('a second key of the same project sees the same wallets', async () => {
    const first = await app.createKey({ partner: 'shared-partner', project: 'p1' });
    const second = await app.createKey({ partner: 'shared-partner', project: 'p1' });
    const third = await app.createKey({ partner: 'shared-partner', project: 'p2' });
    expect(second.projectId).toBe(first.projectId);
    expect(third.partnerId).toBe(first.partnerId);
    const wallet = await app.request('POST', '/v1/wallets', { key: first.apiKey, body: body('same') });
    expect((await app.request('GET', `/v1/wallets/${wallet.body.id}`, { key: second.apiKey })).status).toBe(200);
    expect((await app.request('GET', `/v1/wallets/${wallet.body.id}`, { key: third.apiKey })).status).toBe(404);
  });

  it('enforces the IP allowlist (IPv4 and IPv6 CIDRs) with 401', async () => {
    const outside = await app.createKey({ ipAllowlist: ['10.0.0.0/8', '2001:db8::/32'] });
    const denied = await app.request('GET', '/v1/wallets', { key: outside.apiKey });
    expect(denied.status).toBe(401);
    expect(denied.body.code).toBe('UNAUTHORIZED');
    const inside = await app.createKey({ ipAllowlist: ['10.0.0.0/8', '127.0.0.0/8'] });
    expect((await app.request('GET', '/v1/wallets', { key: inside.apiKey })).status).toBe(200);
    const v6only = await app.createKey({ ipAllowlist: ['::1/128'] });
    expect((await app.request('GET', '/v1/wallets', { key: v6only.apiKey })).status).toBe(401);
    await expect(app.createKey({ ipAllowlist: ['10.0.0.0/33'] })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
    await expect(app.createKey({ ipAllowlist: ['not-an-ip'] })).rejects.toMatchObject({ code: 'INVALID_REQUEST' });
  });

  it('rate-limits per key across every /v1 route with 429 and an integer Retry-After', async () => {
    const free = await app.createKey({ plan: 'free' });
    const other = await app.createKey({ plan: 'free' });
    now = Date.UTC(2026, 10, 22, 12, 1, 15);
    const statuses: number[] = [];
    for (let i = 0; i < 30; i++) {
      const response =
        i % 2 === 0
          ? await app.request('GET', '/v1/wallets', { key: free.apiKey })
          : await app.request('POST', '/v1/wallets', { key: free.apiKey, body: body(i) });
      statuses.push(response.status);
    }
    expect(statuses.every((s) => s === 200 || s === 201)).toBe(true);
    const limited = await app.request('GET', '/v1/wallets/00000000-0000-4000-8000-000000000000', { key: free.apiKey });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(limited.headers.get('retry-after')).toBe('45');
    expect((await app.request('GET', '/v1/wallets', { key: other.apiKey })).status).toBe(200);
    now = Date.UTC(2026, 10, 22, 12, 2, 0);
    expect((await app.request('GET', '/v1/wallets', { key: free.apiKey })).status).toBe(200);
  });

  it('shares one budget between concurrent requests', async () => {
    const starter = await app.createKey({ plan: 'starter' });
    now = Date.UTC(2026, 10, 22, 12, 5, 0);
    const responses = await Promise.all(Array.from({ length: 40 }, () => app.request('GET', '/v1/wallets', { key: starter.apiKey })));
    expect(responses.filter((r) => r.status === 200)).toHaveLength(30);
    expect(responses.filter((r) => r.status === 429)).toHaveLength(10);
  });

  it('echoes a uuid X-Request-Id and makes one otherwise', async () => {
    const id = '4f1c2a53-5d0b-4b0e-9a64-1b2c3d4e5f60';
    const echoed = await app.request('GET', '/health', { headers: { 'X-Request-Id': id } });
    expect(echoed.headers.get('x-request-id')).toBe(id);
    const made = await app.request('GET', '/v1/wallets');
    expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    expect(app.logLines.some((line) => line.includes(id))).toBe(true);
  });

  it('answers unknown routes, health, metrics, OpenAPI and docs', async () => {
    const key = (await app.createKey()).apiKey;
    const unknown = await app.request('GET', '/v1/nothing-here', { key });
    expect(unknown.status).toBe(404);
    expect(unknown.body).toMatchObject({ code: 'NOT_FOUND' });
    const outside = await app.request('GET', '/elsewhere');
    expect(outside.status).toBe(404);
    expect(outside.body.code).toBe('NOT_FOUND');
    // The test app holds its signer in process: it always answers.
    expect((await app.request('GET', '/health')).body).toEqual({ status: 'ok', signer: { reachable: true } });
    const metrics = await app.request('GET', '/metrics');
    expect(metrics.status).toBe(200);
    expect(metrics.body).toMatch(/http_requests_total\{method="GET",route="\/v1\/wallets",status="200"\}/);
    expect(metrics.body).toMatch(/http_request_duration_seconds_bucket/);
    const openapi = await app.request('GET', '/v1/openapi.json');
    expect(openapi.status).toBe(200);
    expect(openapi.body.openapi).toBe('3.1.0');
    expect(openapi.body.info.version).toBe('1.0');
    const create = openapi.body.paths['/v1/wallets'].post;
    const ref: string = create.requestBody.content['application/json'].schema.$ref;
    const createSchema = openapi.body.components.schemas[ref.replace('#/components/schemas/', '')];
    expect(createSchema.properties.type.enum).toEqual(['EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI']);
    expect(createSchema.additionalProperties).toBe(false);
    const wallet = openapi.body.paths['/v1/wallets/{walletId}'].get.responses['200'].content['application/json'].schema;
    expect(openapi.body.components.schemas[wallet.$ref.replace('#/components/schemas/', '')].properties.address).toBeDefined();
    const listParams = openapi.body.paths['/v1/wallets'].get.parameters.map((p: { name: string }) => p.name);
    expect(listParams).toEqual(expect.arrayContaining(['type', 'status', 'userIdentifier', 'userIdentifierType', 'address', 'limit', 'cursor']));
    expect(openapi.body.paths['/v1/wallets/{walletId}'].patch).toBeDefined();
    const docs = await app.request('GET', '/docs');
    expect(docs.status).toBe(200);
    expect(docs.body).toContain('/docs/redoc.standalone.js');
    expect(docs.body).not.toMatch(/https?:\/\//);
    const script = await fetch(`${app.baseUrl}/docs/redoc.standalone.js`);
    expect(script.status).toBe(200);
    expect((await script.text()).length).toBeGreaterThan(100_000);
  });
});
