import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import type { RequestLogEntry } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { consolePartner, graphql, restWallet } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { DEAD, EVM_CHAIN, guardrail, policyProject } from '../testing/policy-fixtures.ts';

/** The rows of a project, as stored, oldest first (after the writer's buffer is written). */
async function rowsOf(app: TestApp, projectId: string | null) {
  await app.services.requestLog?.flush();
  return app.database.query<Record<string, unknown>>(
    `SELECT * FROM request_log WHERE ${projectId === null ? 'project_id IS NULL' : 'project_id = $1'} ORDER BY at, id`,
    projectId === null ? [] : [projectId],
  );
}

/**
 * The request log over real HTTP: what a /v1 request leaves (a state change or a refusal, never a
 * successful GET, never a body or key), the deciding rules of a policy refusal, pruning by
 * retention, REQUEST_LOG=off, and the partner-scoped GraphQL read.
 */
describe.each(testDatabaseKinds)('request log (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    app = await startTestApp(kind, { chains: devnets, env: { REQUEST_LOG_RETENTION_DAYS: '7' } });
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  it('logs state changes and refusals with their facts, no successful GET, and never a body or key', async () => {
    const key = await app.createKey();
    const created = await restWallet(app, key.apiKey, { userIdentifier: 'secret-user-identifier' });
    const read = await app.request('GET', `/v1/wallets/${created.id}`, { key: key.apiKey });
    expect(read.status).toBe(200);
    const signed = await app.request('POST', `/v1/wallets/${created.id}/sign-message`, { key: key.apiKey, body: { message: 'body text never logged' } });
    expect(signed.status).toBe(200);
    const missing = await app.request('GET', `/v1/wallets/${randomUUID()}`, { key: key.apiKey });
    expect(missing.status).toBe(404);
    const invalid = await app.request('POST', '/v1/wallets', { key: key.apiKey, body: { type: 'NOPE' } });
    expect(invalid.status).toBe(400);
    const requestId = randomUUID();
    const badKey = await app.request('POST', `/v1/wallets/${created.id}/sign-message`, { key: 'wk_not_a_real_key', body: { message: 'x' }, headers: { 'x-request-id': requestId } });
    expect(badKey.status).toBe(403);

    const rows = await rowsOf(app, key.projectId);
    expect(rows.map((r) => [r.method, r.route, r.status, r.code])).toEqual([
      ['POST', '/v1/wallets', 201, null],
      ['POST', '/v1/wallets/:walletId/sign-message', 200, null],
      ['GET', '/v1/wallets/:walletId', 404, 'NOT_FOUND'],
      ['POST', '/v1/wallets', 400, 'INVALID_REQUEST'],
    ]);
    expect(rows[0]).toMatchObject({ project_id: key.projectId, api_key_id: key.apiKeyId, wallet_id: created.id, transaction_id: null, denied_by: null });
    expect(rows[1]).toMatchObject({ wallet_id: created.id, api_key_id: key.apiKeyId });
    expect(rows[1]!.request_id).toBe(signed.headers.get('x-request-id'));
    for (const row of rows) {
      expect(row.latency_ms).toBeGreaterThan(0);
      expect(Math.abs(new Date(row.at as string).getTime() - Date.now())).toBeLessThan(60_000);
    }
    // Refused before authentication: no project, the route template still named.
    const anonymous = (await rowsOf(app, null)).filter((r) => r.request_id === requestId);
    expect(anonymous).toEqual([expect.objectContaining({ method: 'POST', route: '/v1/wallets/:walletId/sign-message', status: 403, code: 'FORBIDDEN', api_key_id: null, wallet_id: null })]);
    const stored = JSON.stringify(await app.database.query('SELECT * FROM request_log'));
    for (const secret of [key.apiKey, 'secret-user-identifier', 'body text never logged', 'wk_not_a_real_key']) expect(stored).not.toContain(secret);
  });

  it('keeps the deciding rules of a POLICY_DENIED transfer and the record id of a sent one', async () => {
    const p = await policyProject(app);
    await p.apply(guardrail('recipients', 'EVM', [{ id: 'only-dead', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.to', op: 'nin', value: [DEAD] } }], { chainId: [String(EVM_CHAIN)] }));
    const w = await p.wallet('EVM');
    await devnets.faucet.fund({ type: 'EVM', address: w.address }, 'native', 10n ** 18n);
    const denied = await p.post(`/v1/wallets/${w.id}/transfer`, { to: '0x1111111111111111111111111111111111111111', chainId: EVM_CHAIN, value: '1000' });
    expect(denied.status, JSON.stringify(denied.body)).toBe(403);
    const sent = await p.post(`/v1/wallets/${w.id}/transfer`, { to: DEAD, chainId: EVM_CHAIN, value: '1000' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);

    const rows = (await rowsOf(app, p.projectId)).filter((r) => r.route === '/v1/wallets/:walletId/transfer');
    expect(rows).toEqual([
      expect.objectContaining({
        request_id: denied.headers.get('x-request-id'),
        status: 403,
        code: 'POLICY_DENIED',
        wallet_id: w.id,
        api_key_id: p.apiKeyId,
        transaction_id: null,
        denied_by: [{ policyId: 'recipients', policyVersion: '1', ruleId: 'only-dead' }],
      }),
      expect.objectContaining({ status: 200, code: null, wallet_id: w.id, transaction_id: sent.body.transactionId, denied_by: null }),
    ]);
  });

  it('writes in batches off the request path: nothing until the flush interval, then one INSERT for the lot', async () => {
    const { createRequestLogWriter } = await import('./writer.ts');
    const store = app.services.stores.requestLog;
    const inserts: number[] = [];
    const counted = { append: async (entries: RequestLogEntry[]) => void (inserts.push(entries.length), await store.append(entries)) };
    const writer = createRequestLogWriter({ store: counted, logger: { warn: () => undefined }, flushMs: 200, batchSize: 3 });
    const key = await app.createKey();
    const entry = (): RequestLogEntry => ({
      projectId: key.projectId, requestId: randomUUID(), method: 'POST', route: '/v1/wallets', status: 201, code: null, apiKeyId: key.apiKeyId,
      walletId: null, transactionId: null, caseId: null, latencyMs: 1, deniedBy: null, at: new Date(),
    });
    const count = async () => (await app.database.query('SELECT 1 FROM request_log WHERE project_id = $1', [key.projectId])).length;
    writer.record(entry());
    writer.record(entry());
    expect(await count()).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(inserts).toEqual([2]);
    expect(await count()).toBe(2);
    // A full batch goes at once, without waiting for the interval.
    for (let i = 0; i < 4; i++) writer.record(entry());
    await writer.stop();
    expect(inserts).toEqual([2, 3, 1]);
    expect(await count()).toBe(6);
    writer.record(entry());
    expect(writer.stats()).toEqual({ written: 6, dropped: { buffer_full: 0, write_failed: 0, stopped: 1 }, buffered: 0 });
  });

  it('is bounded: while the database does not answer, entries beyond the buffer are dropped and counted in /metrics', async () => {
    const { createRequestLogWriter } = await import('./writer.ts');
    let release = () => undefined as void;
    const stalled = { append: () => new Promise<void>((resolve) => (release = resolve)) };
    const writer = createRequestLogWriter({ store: stalled, logger: { warn: () => undefined }, flushMs: 10, batchSize: 2, maxBuffered: 3 });
    const entry = { projectId: null, requestId: randomUUID(), method: 'POST', route: '/v1/x', status: 500, code: 'INTERNAL_ERROR', apiKeyId: null, walletId: null, transactionId: null, caseId: null, latencyMs: 1, deniedBy: null, at: new Date() };
    for (let i = 0; i < 10; i++) writer.record(entry);
    // Two went to the stalled INSERT, three wait, five were dropped.
    expect(writer.stats()).toMatchObject({ buffered: 3, dropped: { buffer_full: 5 } });
    release();
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect((await fetch(`${app.baseUrl}/metrics`).then((r) => r.text())).match(/^request_log_dropped_total\{reason="buffer_full"\} \d+$/m)).not.toBeNull();
  });

  it('prunes entries past REQUEST_LOG_RETENTION_DAYS with the pruning worker and keeps the rest', async () => {
    const key = await app.createKey();
    const DAY = 24 * 3_600_000;
    const entry = (daysAgo: number): RequestLogEntry => ({
      projectId: key.projectId, requestId: randomUUID(), method: 'DELETE', route: '/v1/x', status: 204, code: null, apiKeyId: key.apiKeyId,
      walletId: null, transactionId: null, caseId: null, latencyMs: 1, deniedBy: null, at: new Date(Date.now() - daysAgo * DAY),
    });
    const [old, edge, recent] = [entry(8), entry(7.1), entry(6)];
    await app.services.stores.requestLog.append([old, edge, recent]);
    const result = await app.services.pruner.runOnce();
    expect(result.requestLog).toBeGreaterThanOrEqual(2);
    expect((await rowsOf(app, key.projectId)).map((r) => r.request_id)).toEqual([recent.requestId]);
  });

  it("GraphQL requestLog: the staff member's partner's entries only, newest first, by filters", async () => {
    const a = await consolePartner(app, [], ['support']);
    const b = await consolePartner(app, [], ['support']);
    const wallet = await restWallet(app, a.key.apiKey);
    const refused = await app.request('POST', `/v1/wallets/${wallet.id}/sign-message`, { key: a.key.apiKey, body: {} });
    expect(refused.status).toBe(400);
    const requestId = refused.headers.get('x-request-id')!;
    await app.services.requestLog?.flush();
    const fields = 'requestId method route status code apiKeyId walletId transactionId latencyMs at deniedBy { policyId policyVersion ruleId }';
    const query = `query ($requestId: String, $walletId: ID, $status: Int, $code: String, $first: Int) { requestLog(requestId: $requestId, walletId: $walletId, status: $status, code: $code, first: $first) { ${fields} } }`;

    const byRequest = await graphql(app, a.cookies.support, query, { requestId });
    expect(byRequest.body.errors).toBeUndefined();
    expect(byRequest.body.data.requestLog).toEqual([
      { requestId, method: 'POST', route: '/v1/wallets/:walletId/sign-message', status: 400, code: 'INVALID_REQUEST', apiKeyId: a.key.apiKeyId, walletId: wallet.id, transactionId: null, latencyMs: expect.any(Number), at: expect.any(String), deniedBy: null },
    ]);
    const ofWallet = await graphql(app, a.cookies.support, query, { walletId: wallet.id });
    expect(ofWallet.body.data.requestLog.map((e: { status: number }) => e.status)).toEqual([400, 201]);
    expect((await graphql(app, a.cookies.support, query, { walletId: wallet.id, status: 201 })).body.data.requestLog).toHaveLength(1);
    expect((await graphql(app, a.cookies.support, query, { code: 'INVALID_REQUEST', first: 1 })).body.data.requestLog).toHaveLength(1);
    // Another partner sees none of it, exactly as if it did not exist.
    expect((await graphql(app, b.cookies.support, query, { requestId })).body.data.requestLog).toEqual([]);
    expect((await graphql(app, b.cookies.support, query, { walletId: wallet.id })).body.data.requestLog).toEqual([]);
    expect((await graphql(app, b.cookies.support, query, {})).body.data.requestLog.map((e: { requestId: string }) => e.requestId)).not.toContain(requestId);
    expect((await graphql(app, a.cookies.support, query, { first: 201 })).body.errors?.[0]?.message).toMatch(/limit/);
    expect((await graphql(app, undefined, query, { requestId })).status).toBe(401);
  });
});

describe('request log off (REQUEST_LOG=off)', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('pglite', { env: { REQUEST_LOG: 'off' } });
  });
  afterAll(() => app?.close());

  it('writes nothing', async () => {
    const key = await app.createKey();
    await restWallet(app, key.apiKey);
    expect((await app.request('GET', `/v1/wallets/${randomUUID()}`, { key: key.apiKey })).status).toBe(404);
    expect(app.services.requestLog).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 400));
    expect(await app.database.query('SELECT 1 FROM request_log')).toEqual([]);
  });
});
