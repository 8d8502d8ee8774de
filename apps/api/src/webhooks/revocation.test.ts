import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { consolePartner, restWallet } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { trpcFailure } from '../testing/staff-client.ts';
import { TEST_CA_FILE, startReceiver, type Receiver } from './testing/receiver.ts';

describe.each(testDatabaseKinds)('webhooks of a revoked API key on %s', (kind) => {
  let app: TestApp;
  let receiver: Receiver | undefined;

  beforeAll(async () => {
    app = await startTestApp(kind, {
      env: { WEBHOOK_CA_FILE: TEST_CA_FILE, WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_RETRY_BASE_MS: '30', WEBHOOK_LEASE_MS: '10000' },
    });
  });
  afterEach(async () => {
    await receiver?.close();
    receiver = undefined;
  });
  afterAll(async () => {
    await app.close();
  });

  async function sign(apiKey: string, walletId: string, count: number) {
    for (let i = 0; i < count; i++) {
      const response = await app.request('POST', `/v1/wallets/${walletId}/sign-message`, { key: apiKey, body: { message: `m${i}` } });
      expect(response.status).toBe(200);
    }
  }

  const deliveriesOf = (apiKeyId: string) =>
    app.database.prisma.webhookDelivery.findMany({ where: { endpoint: { apiKeyId } }, orderBy: { id: 'asc' } });

  it("never sends a revoked key's pending deliveries, and its webhook procedures answer like a missing key", async () => {
    const a = await consolePartner(app);
    receiver = await startReceiver();
    const apiKeyId = a.key.apiKeyId;
    await a.owner.webhooks.set.mutate({ apiKeyId, url: receiver.url, eventTypes: ['wallet.created', 'transaction.signed'], enabled: true });
    const wallet = await restWallet(app, a.key.apiKey);
    await sign(a.key.apiKey, wallet.id, 3);
    // Fanned out to delivery rows, due now, but not sent yet.
    await app.services.stores.webhooks.dispatch(new Date(), 500);
    expect((await deliveriesOf(apiKeyId)).map((d) => d.status)).toEqual(['pending', 'pending', 'pending', 'pending']);

    await a.owner.apiKeys.revoke.mutate({ apiKeyId });
    await app.services.webhookDelivery.runOnce();
    await app.services.webhookDelivery.runOnce();
    const [event] = await app.database.prisma.event.findMany({ where: { projectId: a.key.projectId }, orderBy: { seq: 'asc' }, take: 1 });
    // Not by a resend of the operator's CLI (every endpoint of the project) either.
    expect((await app.services.webhooks.resend(null, { eventId: event!.id })).deliveries).toEqual([]);
    await app.services.webhookDelivery.runOnce();
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.requests).toEqual([]);
    const deliveries = await deliveriesOf(apiKeyId);
    expect(deliveries).toHaveLength(4);
    for (const d of deliveries) expect(d).toMatchObject({ status: 'failed', nextAttemptAt: null, attempts: 0, lastError: 'API key revoked' });
    const endpoint = await app.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { apiKeyId } });
    expect(endpoint).toMatchObject({ enabled: false, disabledReason: 'API key revoked', leaseOwner: null });

    const missing = randomUUID();
    const calls: Array<[string, (id: string) => Promise<unknown>]> = [
      ['get', (id) => a.support.webhooks.get.query({ apiKeyId: id })],
      ['deliveries', (id) => a.support.webhooks.deliveries.query({ apiKeyId: id })],
      ['set', (id) => a.owner.webhooks.set.mutate({ apiKeyId: id, url: receiver!.url, eventTypes: ['wallet.created'], enabled: true })],
      ['rotateSecret', (id) => a.owner.webhooks.rotateSecret.mutate({ apiKeyId: id })],
      ['testPing', (id) => a.owner.webhooks.testPing.mutate({ apiKeyId: id })],
      ['resend', (id) => a.owner.webhooks.resend.mutate({ apiKeyId: id, eventId: event!.id })],
    ];
    for (const [name, call] of calls) {
      const revoked = await trpcFailure(call(apiKeyId));
      expect(revoked, name).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'API key not found' } });
      expect(revoked, name).toEqual(await trpcFailure(call(missing)));
    }
    expect(receiver.requests).toEqual([]);
    expect(await app.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { apiKeyId } })).toMatchObject({ enabled: false, url: endpoint.url });
  });

  it('a worker serving the endpoint when its key is revoked starts no further attempt', async () => {
    const issued = await app.createKey();
    receiver = await startReceiver();
    receiver.react = () => ({ status: 204, delayMs: 150 });
    await app.services.webhooks.set({ apiKeyId: issued.apiKeyId, projectId: issued.projectId }, { url: receiver.url, eventTypes: ['transaction.signed'] });
    const wallet = await restWallet(app, issued.apiKey);
    // One wallet: its events go out one after another, about 150 ms each.
    await sign(issued.apiKey, wallet.id, 20);

    const run = app.services.webhookDelivery.runOnce();
    await receiver.waitFor((requests) => requests.length >= 1, 10_000);
    await app.services.apiKeys.revoke(issued.apiKeyId);
    await run;
    await app.services.webhookDelivery.runOnce();

    // The attempt in flight, and at most the one its lane started before the result was written.
    expect(receiver.requests.length).toBeLessThanOrEqual(3);
    const deliveries = await deliveriesOf(issued.apiKeyId);
    expect(deliveries).toHaveLength(20);
    const delivered = deliveries.filter((d) => d.status === 'delivered');
    expect(delivered).toHaveLength(receiver.requests.length);
    for (const d of deliveries.filter((d) => d.status !== 'delivered')) {
      expect(d).toMatchObject({ status: 'failed', nextAttemptAt: null, lastError: 'API key revoked' });
    }
  });
});
