import { createHmac, randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { newEventId, type NewEvent } from '@wallet/domain';
import { describe, expect, it } from 'vitest';
import { FIVE_MINUTES_S, verifyWebhook } from './testing/receiver.ts';
import { DAY, useWebhookTestApp } from './testing/webhook-app.ts';

/** Webhooks: signed envelopes, timestamps, secret rotation and resends. */
describe.each(testDatabaseKinds)('webhooks on %s: signing and resends', (kind) => {
  const t = useWebhookTestApp(kind, { timeoutMs: 2_000 });
  const { clock, secretsShown, setup, createWallets, signMany, projectEvents, deliverUntil } = t;

  it('delivers signed envelopes the receiver verifies from the spec alone; the test ping reports status and latency', async () => {
    const { apiKey, scope, secret, projectId } = await setup();
    t.receiver.react = (r) => {
      try {
        verifyWebhook([secret], r.headers, r.rawBody);
        return { status: 204 };
      } catch {
        return { status: 401 };
      }
    };
    const [wallet] = await createWallets(apiKey, 1);
    await signMany(apiKey, [wallet!], 3);
    await t.app.services.users.signUp({ projectId, identifier: `user-${randomUUID()}`, identifierType: 'CUSTOM_ID' });
    const events = await projectEvents(projectId);
    expect(events.length).toBeGreaterThanOrEqual(4);
    await deliverUntil(() => t.receiver.requests.length >= events.length);
    expect(t.receiver.requests).toHaveLength(events.length);
    for (const request of t.receiver.requests) {
      expect(verifyWebhook([secret], request.headers, request.rawBody)).toEqual([secret]);
      expect(request.headers['webhook-id']).toBe(request.body.id);
      expect(request.headers['content-type']).toBe('application/json');
      expect(Object.keys(request.body)).toEqual(['id', 'type', 'createdAt', 'data']);
      const event = events.find((e) => e.id === request.body.id)!;
      expect(request.body).toEqual({ id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.data });
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    }
    expect(new Set(t.receiver.requests.map((r) => r.body.id))).toEqual(new Set(events.map((e) => e.id)));
    // One wallet's events arrive in creation order.
    const walletEvents = events.filter((e) => (e.data as { walletId?: string }).walletId === wallet!.id).map((e) => e.id);
    expect(t.receiver.requests.filter((r) => r.body.data.walletId === wallet!.id).map((r) => r.body.id)).toEqual(walletEvents);
    const log = await t.app.services.webhooks.deliveryLog(scope, events[0]!.id);
    expect(log.deliveries).toHaveLength(1);
    expect(log.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 204 });
    expect(log.deliveries[0]!.log).toEqual([{ attemptedAt: expect.any(String), statusCode: 204, latencyMs: expect.any(Number), error: null }]);

    // A request with a valid signature over a timestamp older than five minutes is refused.
    const sample = t.receiver.requests[0]!;
    const old = Math.floor(Date.now() / 1000) - FIVE_MINUTES_S - 1;
    const crafted = {
      ...sample.headers,
      'webhook-timestamp': String(old),
      'webhook-signature': `v1,${createHmac('sha256', secret).update(`${old}.${sample.rawBody}`).digest('base64')}`,
    };
    expect(() => verifyWebhook([secret], crafted, sample.rawBody, old + 10)).not.toThrow();
    expect(() => verifyWebhook([secret], crafted, sample.rawBody)).toThrow(/5-minute/);
    // A re-serialized body or another secret does not verify.
    expect(() => verifyWebhook([secret], sample.headers, JSON.stringify(JSON.parse(sample.rawBody), null, 1))).toThrow(/signature/);
    expect(() => verifyWebhook(['whsec_other'], sample.headers, sample.rawBody)).toThrow(/signature/);

    // The test ping: status code and latency, logged like any delivery.
    const ping = await t.app.services.webhooks.testPing(scope);
    expect(ping).toMatchObject({ ok: true, statusCode: 204, error: null, eventId: expect.stringMatching(/^evt_/) });
    expect(ping.latencyMs).toBeGreaterThanOrEqual(0);
    const pinged = t.receiver.requests.at(-1)!;
    expect(pinged.body).toMatchObject({ id: ping.eventId, type: 'test.ping' });
    expect(verifyWebhook([secret], pinged.headers, pinged.rawBody)).toEqual([secret]);
    expect((await t.app.services.webhooks.deliveryLog(scope, ping.eventId)).deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    t.receiver.react = () => ({ status: 503 });
    expect(await t.app.services.webhooks.testPing(scope)).toMatchObject({ ok: false, statusCode: 503, error: 'HTTP 503' });
    // Test pings are not retried: nothing becomes due.
    const before = t.receiver.requests.length;
    await t.app.services.webhookDelivery.runOnce();
    expect(t.receiver.requests).toHaveLength(before);
  });

  it('a delivery stamped more than five minutes ago is refused by the receiver and retried with a fresh timestamp', async () => {
    const { apiKey, scope, secret, projectId } = await setup(['transaction.signed']);
    t.receiver.react = (r) => {
      try {
        verifyWebhook([secret], r.headers, r.rawBody);
        return { status: 204 };
      } catch {
        return { status: 400 };
      }
    };
    const wallets = await createWallets(apiKey, 1);
    clock.advance(-6 * 60_000);
    await signMany(apiKey, wallets, 1);
    await t.app.services.webhookDelivery.runOnce();
    expect(t.receiver.requests).toHaveLength(1);
    clock.reset();
    const [event] = (await projectEvents(projectId)).filter((e) => e.type === 'transaction.signed');
    await deliverUntil(() => t.receiver.requests.length >= 2);
    const log = await t.app.services.webhooks.deliveryLog(scope, event!.id);
    expect(log.deliveries[0]!.log.map((a) => a.statusCode)).toEqual([400, 204]);
    expect(new Set(t.receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([event!.id]));
  });

  it('signs with both secrets for 24 hours after a rotation', async () => {
    const { scope, secret: first, projectId } = await setup(['user.created']);
    const rotated = await t.app.services.webhooks.rotateSecret(scope);
    secretsShown.push(rotated.secret);
    const second = rotated.secret;
    const newUser = () => t.app.services.users.signUp({ projectId, identifier: `u-${randomUUID()}`, identifierType: 'CUSTOM_ID' });
    await newUser();
    await deliverUntil(() => t.receiver.requests.length >= 1);
    const during = t.receiver.requests[0]!;
    const values = during.headers['webhook-signature']!.split(' ');
    expect(values).toHaveLength(2);
    expect(values.every((v) => v.startsWith('v1,'))).toBe(true);
    expect(verifyWebhook([second], during.headers, during.rawBody)).toEqual([second]);
    expect(verifyWebhook([first], during.headers, during.rawBody)).toEqual([first]);
    expect(verifyWebhook([second, first], during.headers, during.rawBody)).toEqual([second, first]);

    clock.advance(DAY + 1_000);
    const now = () => Math.floor(clock.now().getTime() / 1000);
    await newUser();
    await deliverUntil(() => t.receiver.requests.length >= 2);
    const after = t.receiver.requests[1]!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifyWebhook([second], after.headers, after.rawBody, now())).toEqual([second]);
    expect(() => verifyWebhook([first], after.headers, after.rawBody, now())).toThrow(/signature/);
    expect((await t.app.services.webhooks.get(scope)).previousSecretExpiresAt).toBeNull();
  });

  it('resends by event id and by transaction hash with the same webhook-id', async () => {
    const { scope, secret, projectId } = await setup(['send.broadcasted', 'send.confirmed', 'user.created']);
    const txHash = `0x${'ab'.repeat(32)}`;
    const walletId = randomUUID();
    const events: NewEvent[] = [
      { id: newEventId(), projectId, type: 'send.broadcasted', data: { userId: null, walletId, txHash, type: 'EVM', evmChainId: '84532', isDevnet: true, broadcastedAt: new Date().toISOString() } },
      { id: newEventId(), projectId, type: 'send.confirmed', data: { userId: null, walletId, txHash, type: 'EVM', evmChainId: '84532', isDevnet: true, confirmedAt: new Date().toISOString() } },
    ];
    await t.app.services.stores.users.recordEvents(events);
    await deliverUntil(() => t.receiver.requests.length >= 2);

    const byHash = await t.app.services.webhooks.resend(scope, { txHash: txHash.toUpperCase().replace('0X', '0x') });
    expect(byHash.eventIds).toEqual(events.map((e) => e.id));
    expect(byHash.deliveries).toHaveLength(2);
    await deliverUntil(() => t.receiver.requests.length >= 4);
    const byId = await t.app.services.webhooks.resend(null, { eventId: events[0]!.id });
    expect(byId.deliveries).toHaveLength(1);
    await deliverUntil(() => t.receiver.requests.length >= 5);
    expect(t.receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([events[0]!.id, events[1]!.id, events[0]!.id, events[1]!.id, events[0]!.id]);
    for (const r of t.receiver.requests) verifyWebhook([secret], r.headers, r.rawBody);
    const log = await t.app.services.webhooks.deliveryLog(scope, events[0]!.id);
    expect(log.deliveries[0]!.log).toHaveLength(3);
    expect(log.deliveries[0]).toMatchObject({ status: 'delivered' });

    await expect(t.app.services.webhooks.resend(scope, { eventId: 'evt_unknown' })).rejects.toMatchObject({ status: 404 });
    await expect(t.app.services.webhooks.resend(scope, { txHash: '0xdeadbeef' })).rejects.toMatchObject({ status: 404 });
    // Another project's scope does not see the event.
    const other = await t.app.createKey();
    await expect(t.app.services.webhooks.resend({ apiKeyId: other.apiKeyId, projectId: other.projectId }, { eventId: events[0]!.id })).rejects.toMatchObject({
      status: 404,
    });
  });
});
