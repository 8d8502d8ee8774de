import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp, type TestResponse } from '../testing/harness.ts';
import { MAX_BODY_DEPTH, nestedDeeperThan } from './pipeline.ts';

const controlMessage = 'must not contain control characters';

function expectInvalid(response: TestResponse, path?: string) {
  expect(response.status).toBe(400);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  expect(response.body).toMatchObject({ code: 'INVALID_REQUEST', message: expect.any(String) });
  if (path !== undefined) {
    // The first detail; a chain rule may add its own about the same field after it.
    expect(response.body.details[0]).toEqual({ path, message: controlMessage });
    expect(response.body.message).toBe(`Invalid request: ${path}: ${controlMessage}`);
  }
}

const nested = (open: string, close: string, depth: number) => open.repeat(depth) + close.repeat(depth);
const nestedObject = (depth: number) => '{"a":'.repeat(depth - 1) + '{}' + '}'.repeat(depth - 1);

describe('nestedDeeperThan', () => {
  it('counts the top level as 1, arrays and objects alike', () => {
    expect(nestedDeeperThan('text', 0)).toBe(false);
    expect(nestedDeeperThan({ a: [1, { b: 2 }] }, 3)).toBe(false);
    expect(nestedDeeperThan({ a: [1, { b: 2 }] }, 2)).toBe(true);
    expect(nestedDeeperThan(JSON.parse(nested('[', ']', 64)), 64)).toBe(false);
    expect(nestedDeeperThan(JSON.parse(nestedObject(65)), 64)).toBe(true);
  });
});

describe.each(testDatabaseKinds)('control characters and deep bodies over HTTP on %s', (kind) => {
  let app: TestApp;
  let key: string;
  let walletId: string;
  let walletAddress: string;

  beforeAll(async () => {
    app = await startTestApp(kind);
    key = (await app.createKey()).apiKey;
    const wallet = await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: 'input-limits', userIdentifierType: 'CUSTOM_ID' } });
    expect(wallet.status).toBe(201);
    walletId = wallet.body.id;
    walletAddress = wallet.body.address;
  });
  afterAll(async () => {
    const logs = app.logLines.join('');
    for (const secret of app.secrets()) expect(logs).not.toContain(secret);
    expect(logs).not.toContain('unhandled error');
    await app.close();
  });

  const countRows = async () => ({
    wallets: await app.database.prisma.wallet.count(),
    audit: await app.database.prisma.auditLog.count(),
    idempotency: await app.database.prisma.idempotencyRecord.count(),
    transactions: await app.database.prisma.transactionRecord.count(),
  });

  it('refuses a control character in a query filter or a path param with 400 naming it', async () => {
    const cases: Array<[string, string]> = [
      ['/v1/wallets?userIdentifier=%00', 'userIdentifier'],
      ['/v1/wallets?address=%00', 'address'],
      ['/v1/wallets?address=0x%7F', 'address'],
      ['/v1/wallets?userIdentifier=a&userIdentifier=b%1F', 'userIdentifier'],
      ['/v1/wallets?cursor=%0A', 'cursor'],
      ['/v1/wallets/%00', 'walletId'],
      ['/v1/permissions-v2/policies/%00', 'policyId'],
      ['/v1/permissions-v2/policies/a%09b/versions', 'policyId'],
      ['/v1/permissions-v2/authorization-scopes/acme/policies/%00/versions/1/requirements/finance-approval', 'policyId'],
    ];
    for (const [url, path] of cases) {
      const response = await app.request('GET', url, { key });
      expectInvalid(response, path);
    }
  });

  it('refuses a control character in an identifier of a body and writes nothing', async () => {
    const before = await countRows();
    for (const userIdentifier of ['a\u0000', 'a\u0001b', 'a\u007fb', 'a\nb']) {
      const response = await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier, userIdentifierType: 'CUSTOM_ID' } });
      expectInvalid(response, 'userIdentifier');
    }
    const patched = await app.request('PATCH', `/v1/wallets/${walletId}`, { key, body: { userIdentifier: 'x\u0000' } });
    expectInvalid(patched, 'userIdentifier');
    const to = await app.request('POST', `/v1/wallets/${walletId}/transfer`, { key, body: { to: '0x\u0000', value: '1', chainId: 1 } });
    expectInvalid(to, 'to');
    const token = await app.request('POST', `/v1/wallets/${walletId}/transfer`, { key, body: { to: walletAddress, value: '1', chainId: 1, kind: 'ERC20', tokenAddress: '0x\u0000' } });
    expectInvalid(token, 'tokenAddress');
    expect(await countRows()).toEqual(before);
  });

  it('refuses an unknown NUL key under an Idempotency-Key with 400, stores nothing, and the corrected body then runs under that key', async () => {
    const before = await countRows();
    const headers = { 'idempotency-key': `nul-key-${kind}` };
    const refused = await app.request('POST', '/v1/wallets', { key, rawBody: '{"type":"EVM","userIdentifier":"nul-key","userIdentifierType":"CUSTOM_ID","\\u0000":1}', headers });
    expectInvalid(refused);
    expect(refused.body.details).toEqual([{ path: '', message: 'Unrecognized key: "\u0000"' }]);
    expect(await countRows()).toEqual(before);
    const corrected = await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: 'nul-key', userIdentifierType: 'CUSTOM_ID' }, headers });
    expect(corrected.status).toBe(201);
    expect(corrected.headers.get('idempotent-replayed')).toBeNull();
  });

  it('still accepts what is not an identifier: a message to sign holding NUL, newlines and tabs', async () => {
    for (const message of ['a\u0000b', 'line\nnext\ttab\r\n']) {
      const response = await app.request('POST', `/v1/wallets/${walletId}/sign-message`, { key, body: { message } });
      expect(response.status).toBe(200);
      expect(response.body.signature).toEqual(expect.any(String));
    }
    const listed = await app.request('GET', '/v1/wallets?userIdentifier=input-limits', { key });
    expect(listed.status).toBe(200);
    expect(listed.body.data).toHaveLength(1);
  });

  it(`refuses a body nested deeper than ${MAX_BODY_DEPTH} levels with 400 before any handler, and writes nothing`, async () => {
    const before = await countRows();
    const routes = ['sign-message', 'sign-raw', 'sign-transaction', 'sign-typed-data', 'sign-authorization', 'transfer'].map((route) => `/v1/wallets/${walletId}/${route}`);
    const bodies = [nested('[', ']', 10_000), nestedObject(10_000), nested('[', ']', MAX_BODY_DEPTH + 1), `{"message":${nested('[', ']', 5_000)}}`];
    for (const url of [...routes, '/v1/wallets', '/v1/permissions-v2/policies']) {
      for (const rawBody of bodies) {
        for (const headers of [{ 'idempotency-key': `deep-${Math.random()}` }, undefined]) {
          const response = await app.request('POST', url, { key, rawBody, headers });
          expectInvalid(response);
          expect(response.body.message).toBe(`Invalid request: body is nested deeper than ${MAX_BODY_DEPTH} levels`);
        }
      }
    }
    expect(await countRows()).toEqual(before);
  });

  it(`lets a body of exactly ${MAX_BODY_DEPTH} levels through to the route's own validation`, async () => {
    const response = await app.request('POST', `/v1/wallets/${walletId}/sign-message`, { key, rawBody: `{"message":${nested('[', ']', MAX_BODY_DEPTH - 1)}}` });
    expectInvalid(response);
    expect(response.body.message).not.toContain('nested');
    expect(response.body.details).toEqual([expect.objectContaining({ path: 'message' })]);
  });

  it('documents both 400s in the OpenAPI document, also on routes that describe their own 400', async () => {
    const openapi = (await app.request('GET', '/v1/openapi.json')).body;
    const signMessage = openapi.paths['/v1/wallets/{walletId}/sign-message'].post;
    expect(signMessage.responses['400'].description).toMatch(/control character.*deeper than 64 levels/);
    expect(signMessage.responses['400'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/InvalidRequest' });
    const policy = openapi.paths['/v1/permissions-v2/policies/{policyId}'].get;
    expect(policy.parameters[0]).toMatchObject({ name: 'policyId', in: 'path', schema: { type: 'string', pattern: '^[^\\u0000-\\u001f\\u007f]*$' } });
    const ownDescription = Object.values<any>(openapi.paths).flatMap((item) => Object.values<any>(item)).find((operation) => operation.responses['400']?.description.startsWith('INVALID_REQUEST'));
    expect(ownDescription.responses['400'].description).toMatch(/control character.*deeper than 64 levels/);
  });
});
