import { createClient, paginate, unwrap, WalletApiError, WalletNetworkError } from '@wallet/client';
import net, { type AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { parseHttpAnswer, requestHeader, startDroppingProxy, startScriptedFront, type DroppingProxy, type ScriptedFront } from './testing/fault-servers.ts';

const DEAD = '0x000000000000000000000000000000000000dEaD';
const walletBody = (userIdentifier: string) => ({ type: 'EVM' as const, userIdentifier, userIdentifierType: 'CUSTOM_ID' as const });
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

/** Retries of @wallet/client through real faults in front of the real service: one Idempotency-Key per call, one record per call. */
describe('client retries and idempotency', () => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let apiKey: string;
  const closing: Array<{ close(): Promise<void> }> = [];

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    app = await startTestApp('pglite', { chains: devnets });
    apiKey = (await app.createKey()).apiKey;
  });
  afterEach(async () => {
    for (const server of closing.splice(0)) await server.close();
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  async function proxy(): Promise<DroppingProxy> {
    const started = await startDroppingProxy(app.baseUrl);
    closing.push(started);
    return started;
  }
  async function front(): Promise<ScriptedFront> {
    const started = await startScriptedFront(app.baseUrl);
    closing.push(started);
    return started;
  }

  it('a dropped connection after the service answered: the retry reuses the key, gets the replay, and one wallet exists', async () => {
    const p = await proxy();
    p.dropAnswerOf.add(0);
    const client = createClient({ baseUrl: p.url, apiKey, retry: { baseDelayMs: 50 } });
    const identifier = `dropped-${Math.random()}`;
    const created = await client.POST('/v1/wallets', { body: walletBody(identifier) });

    expect(p.connections.map((c) => c.dropped)).toEqual([true, false]);
    const keys = p.connections.map((c) => requestHeader(c.request, 'idempotency-key'));
    expect(keys[0]).toMatch(UUID);
    expect(keys[1]).toBe(keys[0]);
    expect(p.connections.map((c) => requestHeader(c.request, 'x-api-key'))).toEqual([apiKey, apiKey]);
    // The answer the client never saw, and the replay it got instead.
    const original = parseHttpAnswer(p.connections[0]!.response);
    expect(original.status).toBe(201);
    expect(created.response.status).toBe(201);
    expect(created.response.headers.get('idempotent-replayed')).toBe('true');
    expect(created.data).toEqual(original.body);

    const direct = createClient({ baseUrl: app.baseUrl, apiKey });
    const matching = [];
    for await (const wallet of paginate(direct, '/v1/wallets', { params: { query: { userIdentifier: identifier, userIdentifierType: 'CUSTOM_ID' } } })) matching.push(wallet.id);
    expect(matching).toEqual([created.data!.id]);
  });

  it('a dropped transfer answer: the retry replays it and the wallet has one transaction record', async () => {
    const direct = createClient({ baseUrl: app.baseUrl, apiKey });
    const wallet = await unwrap(direct.POST('/v1/wallets', { body: walletBody(`dropped-transfer-${Math.random()}`) }));
    await unwrap(direct.POST('/v1/local/faucet', { body: { walletId: wallet.id, amount: '1', token: 'native' } }));
    const p = await proxy();
    p.dropAnswerOf.add(0);
    const client = createClient({ baseUrl: p.url, apiKey, retry: { baseDelayMs: 50 } });
    const sent = await unwrap(client.POST('/v1/wallets/{walletId}/transfer', { params: { path: { walletId: wallet.id } }, body: { to: DEAD, value: '12345', chainId: 84532 } }));

    expect(p.connections).toHaveLength(2);
    expect(requestHeader(p.connections[1]!.request, 'idempotency-key')).toBe(requestHeader(p.connections[0]!.request, 'idempotency-key'));
    const original = parseHttpAnswer(p.connections[0]!.response);
    expect(original.status).toBe(200);
    expect(sent).toEqual(original.body);
    const records = [];
    for await (const record of paginate(direct, '/v1/wallets/{walletId}/transactions', { params: { path: { walletId: wallet.id } } })) records.push(record.transactionId);
    expect(records).toEqual([sent.transactionId]);
  });

  it('429 with Retry-After (seconds, then an HTTP-date) and 503: waits, retries with the same key, then the service answers once', async () => {
    const f = await front();
    const retryAt = new Date(Math.ceil(Date.now() / 1000) * 1000 + 2000).toUTCString();
    f.script.push({ status: 429, headers: { 'retry-after': '1' }, body: { code: 'RATE_LIMITED', message: 'slow down', retryAfter: 1 } }, { status: 429, headers: { 'retry-after': retryAt } }, { status: 503, body: { code: 'RPC_UNAVAILABLE', message: 'try again' } });
    const client = createClient({ baseUrl: f.url, apiKey, retry: { baseDelayMs: 20 } });
    const identifier = `scripted-${Math.random()}`;
    const started = Date.now();
    const wallet = await unwrap(client.POST('/v1/wallets', { body: walletBody(identifier) }));
    expect(wallet.userIdentifier).toBe(identifier);

    expect(f.requests).toHaveLength(4);
    const keys = new Set(f.requests.map((r) => r.headers['idempotency-key']));
    expect(keys.size).toBe(1);
    expect([...keys][0]).toMatch(UUID);
    expect(new Set(f.requests.map((r) => r.body)).size).toBe(1);
    const gaps = f.requests.slice(1).map((r, i) => r.at - f.requests[i]!.at);
    expect(gaps[0]).toBeGreaterThanOrEqual(950);
    expect(f.requests[2]!.at).toBeGreaterThanOrEqual(Date.parse(retryAt) - 50);
    expect(gaps[2]).toBeLessThan(1000);
    expect(Date.now() - started).toBeLessThan(10_000);
  });

  it('gives up after maxRetries and answers the last status; caps a long Retry-After at maxDelayMs', async () => {
    const f = await front();
    f.script.push(...Array.from({ length: 4 }, () => ({ status: 503, headers: { 'retry-after': '3600' }, body: { code: 'RPC_UNAVAILABLE', message: 'down' } })));
    const client = createClient({ baseUrl: f.url, apiKey, retry: { maxRetries: 2, maxDelayMs: 100 } });
    const started = Date.now();
    const error = await unwrap(client.GET('/v1/wallets')).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(f.requests).toHaveLength(3);
    expect(error).toBeInstanceOf(WalletApiError);
    expect(error).toMatchObject({ status: 503, code: 'RPC_UNAVAILABLE', message: 'down' });
    // GETs carry no Idempotency-Key.
    expect(f.requests.every((r) => r.headers['idempotency-key'] === undefined)).toBe(true);
  });

  it('does not retry a 400 or a 500, and keeps a caller-given Idempotency-Key', async () => {
    const f = await front();
    const client = createClient({ baseUrl: f.url, apiKey });
    const refused = await client.POST('/v1/wallets', { body: walletBody('') });
    expect(refused.response.status).toBe(400);
    expect(refused.error).toMatchObject({ code: 'INVALID_REQUEST' });
    expect(f.requests).toHaveLength(1);

    f.script.push({ status: 500, body: { code: 'INTERNAL_ERROR', message: 'boom' } });
    const failed = await client.POST('/v1/wallets', { body: walletBody(`x-${Math.random()}`), headers: { 'Idempotency-Key': 'caller-chosen-key-1' } });
    expect(failed.response.status).toBe(500);
    expect(f.requests).toHaveLength(2);
    expect(f.requests[1]!.headers['idempotency-key']).toBe('caller-chosen-key-1');
  });

  it('a refused connection is retried, then thrown as WalletNetworkError without the API key', async () => {
    const closed = net.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const { port } = closed.address() as AddressInfo;
    await new Promise((resolve) => closed.close(resolve));
    const client = createClient({ baseUrl: `http://127.0.0.1:${port}`, apiKey, retry: { maxRetries: 2, baseDelayMs: 10 } });
    const error = await client.POST('/v1/wallets', { body: walletBody('refused') }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WalletNetworkError);
    expect(error).toMatchObject({ method: 'POST', path: '/v1/wallets', attempts: 3 });
    expect((error as Error).message).toMatch(/ECONNREFUSED/);
    expect(JSON.stringify(error) + String(error) + (error as Error).stack).not.toContain(apiKey);
  });
});
