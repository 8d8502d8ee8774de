import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePartner, restWallet, storedRecord } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { staffClient, trpcFailure } from '../testing/staff-client.ts';

type Partner = Awaited<ReturnType<typeof consolePartner>>;

const notFoundBody = (what: string) => ({ status: 404, body: { code: 'NOT_FOUND', message: `${what} not found` } });
const FORBIDDEN = { status: 403, body: { code: 'FORBIDDEN', message: 'Support staff have read-only access' } };

describe.each(testDatabaseKinds)('console procedures over tRPC on %s', (kind) => {
  let app: TestApp;
  let a: Partner;
  let b: Partner;
  const passwords: string[] = [];
  const secretsShown: string[] = [];

  beforeAll(async () => {
    app = await startTestApp(kind);
    [a, b] = await Promise.all([consolePartner(app, passwords), consolePartner(app, passwords)]);
  });
  afterAll(async () => {
    const logs = app.logLines.join('');
    for (const secret of [...app.secrets(), ...passwords, ...secretsShown]) expect(logs).not.toContain(secret);
    await app.close();
  });

  it('lists and creates projects; a duplicate name is 409; support cannot create', async () => {
    const name = `p-${randomUUID()}`;
    const created = await a.developer.projects.create.mutate({ name });
    expect(created).toMatchObject({ name, walletCount: 0, apiKeyCount: 0 });
    await restWallet(app, a.key.apiKey);
    const list = await a.support.projects.list.query();
    expect(list.map((p) => p.name)).toEqual(['main', name]);
    expect(list[0]).toMatchObject({ projectId: a.key.projectId, apiKeyCount: 1 });
    expect(list[0]!.walletCount).toBeGreaterThanOrEqual(1);
    expect((await b.owner.projects.list.query()).map((p) => p.projectId)).not.toContain(created.projectId);
    expect(await trpcFailure(a.owner.projects.create.mutate({ name }))).toMatchObject({ status: 409, body: { code: 'CONFLICT' } });
    expect(await trpcFailure(a.support.projects.create.mutate({ name: 'nope' }))).toEqual(FORBIDDEN);
    expect(await trpcFailure(a.owner.projects.create.mutate({ name: '' }))).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
  });

  it('creates, lists, updates, rotates and revokes API keys; the secret is shown once and never listed', async () => {
    const project = await a.owner.projects.create.mutate({ name: `keys-${randomUUID()}` });
    const created = await a.developer.apiKeys.create.mutate({ projectId: project.projectId, environment: 'development', plan: 'growth' });
    secretsShown.push(created.apiKey);
    expect(created).toEqual({ apiKey: expect.stringMatching(/^sk_/), apiKeyId: expect.any(String), projectId: project.projectId });
    expect((await app.request('GET', '/v1/wallets', { key: created.apiKey })).status).toBe(200);

    const [listed] = await a.support.apiKeys.list.query({ projectId: project.projectId });
    expect(listed).toEqual({
      apiKeyId: created.apiKeyId,
      projectId: project.projectId,
      keyPrefix: expect.stringMatching(/…$/),
      environment: 'development',
      plan: 'growth',
      rateLimitPerMinute: null,
      ipAllowlist: [],
      createdAt: expect.any(String),
      revokedAt: null,
    });
    expect(created.apiKey.startsWith(listed!.keyPrefix.slice(0, -1))).toBe(true);
    const stored = await app.database.prisma.apiKey.findUniqueOrThrow({ where: { id: created.apiKeyId } });
    expect(JSON.stringify(listed)).not.toContain(stored.keyHash);
    expect(JSON.stringify(listed)).not.toContain(created.apiKey);

    expect(await trpcFailure(a.owner.apiKeys.update.mutate({ apiKeyId: created.apiKeyId, rateLimitPerMinute: 5 }))).toMatchObject({ status: 400 });
    expect(await a.owner.apiKeys.update.mutate({ apiKeyId: created.apiKeyId, plan: 'scale', rateLimitPerMinute: 7, ipAllowlist: ['127.0.0.1/32'] })).toMatchObject({
      plan: 'scale',
      rateLimitPerMinute: 7,
      ipAllowlist: ['127.0.0.1/32'],
    });
    expect(await trpcFailure(a.owner.apiKeys.update.mutate({ apiKeyId: created.apiKeyId, ipAllowlist: ['not-a-cidr'] }))).toMatchObject({ status: 400 });

    const rotated = await a.owner.apiKeys.rotate.mutate({ apiKeyId: created.apiKeyId });
    secretsShown.push(rotated.apiKey);
    expect(rotated).toEqual({ apiKey: expect.stringMatching(/^sk_/), apiKeyId: created.apiKeyId });
    expect((await app.request('GET', '/v1/wallets', { key: created.apiKey })).status).toBe(403);
    expect((await app.request('GET', '/v1/wallets', { key: rotated.apiKey })).status).toBe(200);
    expect(JSON.stringify(await a.owner.apiKeys.list.query({ projectId: project.projectId }))).not.toContain(rotated.apiKey);

    expect(await a.owner.apiKeys.revoke.mutate({ apiKeyId: created.apiKeyId })).toMatchObject({ apiKeyId: created.apiKeyId, revokedAt: expect.any(String) });
    expect((await app.request('GET', '/v1/wallets', { key: rotated.apiKey })).status).toBe(403);
    expect((await a.owner.apiKeys.list.query({ projectId: project.projectId }))[0]!.revokedAt).not.toBeNull();
    // Audit rows for every change, none with a secret.
    const audit = await app.database.prisma.auditLog.findMany({ where: { apiKeyId: created.apiKeyId }, orderBy: { id: 'asc' } });
    expect(audit.map((row) => row.action)).toEqual(['api_key.create', 'api_key.update', 'api_key.rotate', 'api_key.revoke']);
    // Each row names the staff member who made the change.
    const owner = (await a.owner.auth.me.query())!.staffId;
    const developer = (await a.developer.auth.me.query())!.staffId;
    expect(audit.map((row) => (row.details as { actor?: { staffId: string } }).actor?.staffId)).toEqual([developer, owner, owner, owner]);
  });

  it('lists wallets of a project with search, claim filter and cursor pages; get adds project and claim state', async () => {
    const project = await a.owner.projects.create.mutate({ name: `wallets-${randomUUID()}` });
    const key = await a.owner.apiKeys.create.mutate({ projectId: project.projectId, environment: 'development', plan: 'scale' });
    secretsShown.push(key.apiKey);
    const wallets = [];
    for (let i = 0; i < 3; i++) wallets.push(await restWallet(app, key.apiKey, { userIdentifier: `Person${i}@Example.com`, userIdentifierType: 'EMAIL' }));
    const signedUp = await app.services.users.signUp({ projectId: project.projectId, identifier: 'person1@example.com', identifierType: 'EMAIL' });

    const first = await a.support.wallets.list.query({ projectId: project.projectId, limit: 2 });
    expect(first.data.map((w) => w.id)).toEqual([wallets[2]!.id, wallets[1]!.id]);
    const second = await a.support.wallets.list.query({ projectId: project.projectId, limit: 2, cursor: first.nextCursor! });
    expect(second).toMatchObject({ data: [{ id: wallets[0]!.id }], nextCursor: null });
    // tRPC infinite queries send `direction` next to the cursor; the list accepts it.
    expect(await a.support.wallets.list.query({ projectId: project.projectId, limit: 2, cursor: first.nextCursor!, direction: 'forward' })).toEqual(second);

    expect((await a.support.wallets.list.query({ projectId: project.projectId, search: wallets[1]!.address.toLowerCase() })).data.map((w) => w.id)).toEqual([wallets[1]!.id]);
    expect((await a.support.wallets.list.query({ projectId: project.projectId, search: 'PERSON0@example.com' })).data.map((w) => w.id)).toEqual([wallets[0]!.id]);
    // Another partner's project: 404, and a search there finds nothing of ours.
    expect(await trpcFailure(b.owner.wallets.list.query({ projectId: project.projectId }))).toEqual(notFoundBody('Project'));

    const rest = await app.request('GET', `/v1/wallets/${wallets[0]!.id}`, { key: key.apiKey });
    const viewed = await a.support.wallets.get.query({ walletId: wallets[0]!.id });
    expect(viewed).toEqual({ ...rest.body, projectId: project.projectId, custody: 'api_key', claimedAt: null, claimedByUserId: null });
    expect(await trpcFailure(a.support.wallets.list.query({ projectId: project.projectId, cursor: 'bogus' }))).toMatchObject({ status: 400 });

    const claimed = await a.support.wallets.list.query({ projectId: project.projectId, claimed: true });
    expect(claimed.data.map((w) => w.id)).toEqual([wallets[1]!.id]);
    expect(claimed.data[0]).toMatchObject({ claimedAt: expect.any(String), claimedByUserId: signedUp.userId });
    expect((await a.support.wallets.list.query({ projectId: project.projectId, claimed: false })).data).toHaveLength(2);
  });

  it('lists and gets transaction records with their webhook deliveries', async () => {
    const wallet = await restWallet(app, a.key.apiKey);
    const owner = { projectId: a.key.projectId, partnerId: a.partnerId, apiKeyId: a.key.apiKeyId };
    const first = await storedRecord(app, wallet, owner);
    const second = await storedRecord(app, wallet, owner, { status: 'failed', failureStage: 'broadcast', failureCode: 'REPLACED', failureMessage: 'replaced' });

    const list = await a.support.transactions.list.query({ projectId: a.key.projectId, walletId: wallet.id });
    expect(list.data.map((t) => t.transactionId)).toEqual([second.id, first.id]);
    const restList = await app.request('GET', `/v1/wallets/${wallet.id}/transactions`, { key: a.key.apiKey });
    // The REST summary plus the project and the wallet's user (the list's user column).
    expect(list.data).toEqual(restList.body.data.map((t: object) => ({ ...t, projectId: a.key.projectId, userIdentifier: wallet.userIdentifier })));
    expect((await a.support.transactions.list.query({ projectId: a.key.projectId, walletId: wallet.id, status: 'failed' })).data).toHaveLength(1);

    const detail = await a.support.transactions.get.query({ transactionId: first.id });
    const rest = await app.request('GET', `/v1/wallets/${wallet.id}/transactions/${first.id}`, { key: a.key.apiKey });
    const { webhookDeliveries, ...record } = detail;
    expect(record).toEqual({ ...rest.body, projectId: a.key.projectId });
    expect(webhookDeliveries).toEqual([
      expect.objectContaining({ type: 'send.broadcasted', status: 'not_sent', dispatched: false, deliveryId: null, attempts: [] }),
    ]);
    expect(await trpcFailure(b.support.transactions.get.query({ transactionId: first.id }))).toEqual(notFoundBody('Transaction'));
    expect(await trpcFailure(b.support.transactions.list.query({ projectId: b.key.projectId, walletId: wallet.id }))).toEqual(notFoundBody('Wallet'));
  });

  it('configures webhooks: secret shown at creation and rotation only; deliveries and resend', async () => {
    const apiKeyId = a.key.apiKeyId;
    expect(await a.support.webhooks.get.query({ apiKeyId })).toBeNull();
    // Port 9 on loopback: nothing listens; deliveries fail fast.
    const url = 'https://127.0.0.1:9/hooks';
    const created = await a.developer.webhooks.set.mutate({ apiKeyId, url, eventTypes: ['send.broadcasted', 'send.confirmed'], enabled: true });
    secretsShown.push(created.secret!);
    expect(created).toMatchObject({ apiKeyId, url, enabled: true, secret: expect.stringMatching(/^whsec_/) });
    const read = await a.support.webhooks.get.query({ apiKeyId });
    expect(read).not.toHaveProperty('secret');
    expect(JSON.stringify(read)).not.toContain(created.secret!);
    const updated = await a.owner.webhooks.set.mutate({ apiKeyId, url, eventTypes: ['send.broadcasted'], enabled: true });
    expect(updated).not.toHaveProperty('secret');
    const rotated = await a.owner.webhooks.rotateSecret.mutate({ apiKeyId });
    secretsShown.push(rotated.secret);
    const rotation = await app.database.prisma.auditLog.findFirstOrThrow({ where: { apiKeyId, action: { contains: 'rotate' } }, orderBy: { id: 'desc' } });
    expect(rotation.details).toMatchObject({ actor: { staffId: (await a.owner.auth.me.query())!.staffId } });
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(JSON.stringify(await a.support.webhooks.get.query({ apiKeyId }))).not.toContain(rotated.secret);

    const ping = await a.owner.webhooks.testPing.mutate({ apiKeyId });
    expect(ping).toMatchObject({ ok: false, statusCode: null, latencyMs: expect.any(Number), error: expect.any(String) });

    const wallet = await restWallet(app, a.key.apiKey);
    const record = await storedRecord(app, wallet, { projectId: a.key.projectId, partnerId: a.partnerId, apiKeyId });
    const resent = await a.owner.webhooks.resend.mutate({ apiKeyId, txHash: record.hash! });
    expect(resent.eventIds).toHaveLength(1);
    expect(resent.deliveries).toHaveLength(1);
    expect(await trpcFailure(a.owner.webhooks.resend.mutate({ apiKeyId, txHash: '0xnothing' }))).toEqual(notFoundBody('Event'));

    const page1 = await a.support.webhooks.deliveries.query({ apiKeyId, limit: 1 });
    expect(page1.data).toEqual([expect.objectContaining({ eventId: resent.eventIds[0], type: 'send.broadcasted', status: 'pending', attempts: [] })]);
    const page2 = await a.support.webhooks.deliveries.query({ apiKeyId, limit: 1, cursor: page1.nextCursor! });
    expect(page2.data).toEqual([expect.objectContaining({ type: 'test.ping', status: 'failed', attempts: [expect.objectContaining({ statusCode: null })] })]);
    expect(page2.nextCursor).toBeNull();
    const detail = await a.support.transactions.get.query({ transactionId: record.id });
    expect(detail.webhookDeliveries).toEqual([expect.objectContaining({ eventId: resent.eventIds[0], apiKeyId, url, status: 'pending' })]);

    // Leave nothing due behind.
    await a.owner.webhooks.set.mutate({ apiKeyId, url, eventTypes: ['send.broadcasted'], enabled: false });
    expect(await trpcFailure(a.owner.webhooks.set.mutate({ apiKeyId, url: 'http://example.com/', eventTypes: ['send.broadcasted'], enabled: true }))).toMatchObject({ status: 400 });
  });

  it('counts broadcasts per day and status', async () => {
    const project = await a.owner.projects.create.mutate({ name: `overview-${randomUUID()}` });
    const key = await a.owner.apiKeys.create.mutate({ projectId: project.projectId, environment: 'development', plan: 'scale' });
    secretsShown.push(key.apiKey);
    const wallet = await restWallet(app, key.apiKey);
    const owner = { projectId: project.projectId, partnerId: a.partnerId, apiKeyId: key.apiKeyId };
    await storedRecord(app, wallet, owner);
    await storedRecord(app, wallet, owner);
    await storedRecord(app, wallet, owner, { status: 'confirmed' });
    await storedRecord(app, wallet, owner, { status: 'confirmed', createdAt: new Date(Date.now() - 40 * 24 * 3600 * 1000) });
    const today = new Date().toISOString().slice(0, 10);
    expect(await a.support.overview.broadcastsPerDay.query({ projectId: project.projectId, days: 7 })).toEqual([
      { day: today, status: 'confirmed', count: 1 },
      { day: today, status: 'submitted', count: 2 },
    ]);
    expect(await trpcFailure(b.support.overview.broadcastsPerDay.query({ projectId: project.projectId }))).toEqual(notFoundBody('Project'));
  });

  it("tells staff whether the signer process answers (the overview's signer status)", async () => {
    // The test app's vault holds the keys in process: always reachable, no round trip measured.
    expect(await a.support.overview.signer.query()).toEqual({ reachable: true, latencyMs: null });
    const health = app.services.signerHealth;
    app.services.signerHealth = async () => ({ reachable: false });
    try {
      expect(await a.owner.overview.signer.query()).toEqual({ reachable: false, latencyMs: null });
    } finally {
      app.services.signerHealth = health;
    }
  });

  it("shows each environment's custody mode for new secp256k1 wallets, as the operator sets it, to this partner only", async () => {
    const project = await a.owner.projects.create.mutate({ name: `custody-${randomUUID()}` });
    const modes = () => a.support.overview.custodyModes.query({ projectId: project.projectId });
    expect((await modes()).map((m) => [m.environment, m.secp256k1Mode, m.review])).toEqual([
      ['development', 'isolated', null],
      ['production', 'isolated', null],
    ]);
    await app.services.custodyMode.set({ projectId: project.projectId, environment: 'production' }, 'threshold');
    expect((await modes()).map((m) => [m.environment, m.secp256k1Mode, m.review])).toEqual([
      ['development', 'isolated', null],
      ['production', 'threshold', 'DKLs23 threshold ECDSA: implemented from the paper, not externally audited'],
    ]);
    expect(await trpcFailure(b.support.overview.custodyModes.query({ projectId: project.projectId }))).toEqual(notFoundBody('Project'));
  });

  it('refuses every write to support staff with 403, and answers nothing without a session (401)', async () => {
    const apiKeyId = a.key.apiKeyId;
    const projectId = a.key.projectId;
    const writes = [
      () => a.support.projects.create.mutate({ name: 'x' }),
      () => a.support.apiKeys.create.mutate({ projectId, environment: 'development', plan: 'growth' }),
      () => a.support.apiKeys.rotate.mutate({ apiKeyId }),
      () => a.support.apiKeys.revoke.mutate({ apiKeyId }),
      () => a.support.apiKeys.update.mutate({ apiKeyId, plan: 'free' }),
      () => a.support.webhooks.set.mutate({ apiKeyId, url: 'https://127.0.0.1:9/x', eventTypes: ['send.confirmed'], enabled: true }),
      () => a.support.webhooks.rotateSecret.mutate({ apiKeyId }),
      () => a.support.webhooks.testPing.mutate({ apiKeyId }),
      () => a.support.webhooks.resend.mutate({ apiKeyId, txHash: '0x1' }),
    ];
    for (const write of writes) expect(await trpcFailure(write())).toEqual(FORBIDDEN);
    // Nothing changed: the key still works.
    expect((await app.request('GET', '/v1/wallets', { key: a.key.apiKey })).status).toBe(200);

    const anonymous = staffClient(app.baseUrl).client;
    const unauthorized = { status: 401, body: { code: 'UNAUTHORIZED', message: 'Sign in first' } };
    expect(await trpcFailure(anonymous.projects.list.query())).toEqual(unauthorized);
    expect(await trpcFailure(anonymous.wallets.list.query({ projectId }))).toEqual(unauthorized);
    expect(await trpcFailure(anonymous.apiKeys.rotate.mutate({ apiKeyId }))).toEqual(unauthorized);
  });

  it("answers another partner's ids exactly like missing and malformed ones (404)", async () => {
    const wallet = await restWallet(app, a.key.apiKey);
    const record = await storedRecord(app, wallet, { projectId: a.key.projectId, partnerId: a.partnerId, apiKeyId: a.key.apiKeyId });
    const missing = randomUUID();
    const cases: Array<[string, (id: string) => Promise<unknown>, string]> = [
      ['Project', (id) => b.owner.apiKeys.list.query({ projectId: id }), a.key.projectId],
      ['Project', (id) => b.owner.apiKeys.create.mutate({ projectId: id, environment: 'development', plan: 'growth' }), a.key.projectId],
      ['Project', (id) => b.owner.wallets.list.query({ projectId: id }), a.key.projectId],
      ['Project', (id) => b.owner.transactions.list.query({ projectId: id }), a.key.projectId],
      ['API key', (id) => b.owner.apiKeys.rotate.mutate({ apiKeyId: id }), a.key.apiKeyId],
      ['API key', (id) => b.owner.apiKeys.revoke.mutate({ apiKeyId: id }), a.key.apiKeyId],
      ['API key', (id) => b.owner.apiKeys.update.mutate({ apiKeyId: id, plan: 'free' }), a.key.apiKeyId],
      ['API key', (id) => b.owner.webhooks.get.query({ apiKeyId: id }), a.key.apiKeyId],
      ['API key', (id) => b.owner.webhooks.set.mutate({ apiKeyId: id, url: 'https://127.0.0.1:9/x', eventTypes: ['send.confirmed'], enabled: false }), a.key.apiKeyId],
      ['API key', (id) => b.owner.webhooks.rotateSecret.mutate({ apiKeyId: id }), a.key.apiKeyId],
      ['API key', (id) => b.owner.webhooks.testPing.mutate({ apiKeyId: id }), a.key.apiKeyId],
      ['API key', (id) => b.owner.webhooks.deliveries.query({ apiKeyId: id }), a.key.apiKeyId],
      ['API key', (id) => b.owner.webhooks.resend.mutate({ apiKeyId: id, txHash: record.hash! }), a.key.apiKeyId],
      ['Wallet', (id) => b.owner.wallets.get.query({ walletId: id }), wallet.id],
      ['Transaction', (id) => b.owner.transactions.get.query({ transactionId: id }), record.id],
    ];
    for (const [what, call, foreignId] of cases) {
      const foreign = await trpcFailure(call(foreignId));
      expect(foreign, `${what} ${call.toString()}`).toEqual(notFoundBody(what));
      expect(await trpcFailure(call(missing))).toEqual(foreign);
      expect(await trpcFailure(call('not-a-uuid'))).toEqual(foreign);
    }
    // And nothing of A changed.
    expect((await app.request('GET', '/v1/wallets', { key: a.key.apiKey })).status).toBe(200);
  });
});
