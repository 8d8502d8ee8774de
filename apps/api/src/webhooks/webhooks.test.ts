import { createHmac, randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import {
  createWebhookDelivery,
  createWebhookService,
  fileKekProvider,
  newEventId,
  type Clock,
  type NewEvent,
  type WebhookDelivery,
} from '@wallet/domain';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { createHttpsSender } from './https-sender.ts';
import { FIVE_MINUTES_S, TEST_CA_FILE, TEST_CA_PEM, startReceiver, verifyWebhook, type Receiver } from './testing/receiver.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

/** The service's clock: real time plus an offset the test moves (reset after every test). */
function movableClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms: number) {
      offset += ms;
    },
    advanceTo(at: Date) {
      offset += Math.max(0, at.getTime() - (Date.now() + offset));
    },
    reset() {
      offset = 0;
    },
  } satisfies Clock & Record<string, unknown>;
}

const ALL_TYPES = [
  'user.created',
  'wallet.created',
  'transaction.signed',
  'send.broadcasted',
  'send.confirmed',
  'send.failed',
  'rest.transaction.confirmed',
  'rest.transaction.failed',
  'wallet.pregen_claimed',
  'user.external_wallet_verified',
  'test.ping',
];

describe.each(testDatabaseKinds)('webhooks on %s', (kind) => {
  const clock = movableClock();
  let app: TestApp;
  let receiver: Receiver;
  const cleanups: Array<() => Promise<unknown>> = [];

  beforeAll(async () => {
    app = await startTestApp(kind, {
      clock,
      // Test timings: short time-out and backoff; the receiver's CA is trusted through configuration.
      env: { WEBHOOK_CA_FILE: TEST_CA_FILE, WEBHOOK_TIMEOUT_MS: '300', WEBHOOK_RETRY_BASE_MS: '30', WEBHOOK_RETRY_MAX_MS: '300', WEBHOOK_LEASE_MS: '5000' },
    });
  });
  afterEach(async () => {
    clock.reset();
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await receiver?.close();
  });
  afterAll(async () => {
    const logs = app.logLines.join('');
    for (const secret of [...app.secrets(), ...secretsShown]) expect(logs).not.toContain(secret);
    await app.close();
  });

  const secretsShown: string[] = [];

  /** A fresh key (own project) with its endpoint on a fresh receiver. */
  async function setup(eventTypes: string[] = ALL_TYPES) {
    receiver = await startReceiver();
    const issued = await app.createKey();
    const scope = { apiKeyId: issued.apiKeyId, projectId: issued.projectId };
    const config = await app.services.webhooks.set(scope, { url: receiver.url, eventTypes });
    secretsShown.push(config.secret!);
    // Leave nothing due behind for later tests' workers.
    cleanups.push(() => app.services.webhooks.disable(scope).catch(() => undefined));
    return { ...issued, scope, secret: config.secret!, config };
  }

  async function createWallets(key: string, count: number, prefix = 'w') {
    const wallets: Array<{ id: string }> = [];
    for (let i = 0; i < count; i++) {
      const response = await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: `${prefix}-${i}-${randomUUID()}`, userIdentifierType: 'CUSTOM_ID' } });
      expect(response.status).toBe(201);
      wallets.push(response.body);
    }
    return wallets;
  }

  /** `perWallet` sign-message calls per wallet, the wallets in parallel, each wallet's calls one after another. */
  async function signMany(key: string, wallets: Array<{ id: string }>, perWallet: number) {
    await Promise.all(
      wallets.map(async (wallet) => {
        for (let i = 0; i < perWallet; i++) {
          const response = await app.request('POST', `/v1/wallets/${wallet.id}/sign-message`, { key, body: { message: `m${i}` } });
          expect(response.status).toBe(200);
        }
      }),
    );
  }

  async function projectEvents(projectId: string) {
    const rows = await app.database.prisma.event.findMany({ where: { projectId, type: { not: 'test.ping' } }, orderBy: { seq: 'asc' } });
    return rows;
  }

  /** Runs delivery passes until `done` holds. */
  async function deliverUntil(done: () => boolean | Promise<boolean>, timeoutMs = 30_000, engine: WebhookDelivery = app.services.webhookDelivery) {
    const deadline = Date.now() + timeoutMs;
    while (!(await done())) {
      if (Date.now() > deadline) throw new Error('deliveries did not complete in time');
      await engine.runOnce();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  it('validates the configuration: HTTPS only, known event types, a non-empty set when enabled; the secret is shown only at creation and rotation', async () => {
    const issued = await app.createKey();
    const scope = { apiKeyId: issued.apiKeyId, projectId: issued.projectId };
    const set = (input: { url: string; eventTypes?: string[]; enabled?: boolean }) => app.services.webhooks.set(scope, input);
    await expect(set({ url: 'http://example.com/hooks', eventTypes: ['user.created'] })).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    await expect(set({ url: 'not a url', eventTypes: ['user.created'] })).rejects.toMatchObject({ status: 400 });
    await expect(set({ url: `https://example.com/${'a'.repeat(2100)}`, eventTypes: ['user.created'] })).rejects.toMatchObject({ status: 400 });
    await expect(set({ url: 'https://example.com/hooks', eventTypes: [] })).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    await expect(set({ url: 'https://example.com/hooks' })).rejects.toMatchObject({ status: 400 });
    await expect(set({ url: 'https://example.com/hooks', eventTypes: ['user.created', 'user.deleted'] })).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('user.deleted'),
    });
    await expect(app.services.webhooks.get(scope)).rejects.toMatchObject({ status: 404 });

    // Disabled with no event types is a valid configuration; it is created with its secret.
    const created = await set({ url: 'https://example.com/hooks', eventTypes: [], enabled: false });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret!.slice(6), 'base64')).toHaveLength(32);
    secretsShown.push(created.secret!);
    await expect(app.services.webhooks.enable(scope)).rejects.toMatchObject({ status: 400 });
    const updated = await set({ url: 'https://example.com/other', eventTypes: ['user.created', 'test.ping'] });
    expect(updated).toMatchObject({ url: 'https://example.com/other', enabled: true, eventTypes: ['user.created', 'test.ping'] });
    expect(updated.secret).toBeUndefined();
    const shown = await app.services.webhooks.get(scope);
    expect(shown).not.toHaveProperty('secret');
    expect(JSON.stringify(shown)).not.toContain('whsec_');

    // Stored sealed: the row holds neither the secret nor its base64 body.
    const row = await app.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { apiKeyId: issued.apiKeyId } });
    const raw = Buffer.from(row.secret);
    expect(raw.includes(Buffer.from(created.secret!))).toBe(false);
    expect(raw.includes(Buffer.from(created.secret!.slice(6), 'base64'))).toBe(false);

    const rotated = await app.services.webhooks.rotateSecret(scope);
    secretsShown.push(rotated.secret);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(new Date(rotated.previousSecretExpiresAt!).getTime() - clock.now().getTime()).toBeGreaterThan(DAY - 60_000);

    // Another project's key cannot read or change it.
    const other = await app.createKey();
    await expect(app.services.webhooks.get({ apiKeyId: issued.apiKeyId, projectId: other.projectId })).rejects.toMatchObject({ status: 404 });
    await app.services.webhooks.disable(scope);
  });

  it('in production refuses URLs resolving to loopback, private or link-local addresses, at configuration and again at delivery', async () => {
    const issued = await app.createKey();
    const scope = { apiKeyId: issued.apiKeyId, projectId: issued.projectId };
    const dns: Record<string, string[]> = {
      'internal.example': ['192.168.1.5'],
      'metadata.example': ['169.254.169.254'],
      'v6only.example': ['fd12:3456::1'],
      'rebind.example': ['93.184.216.34', '10.0.0.7'],
      'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    };
    const production = createWebhookService({
      store: app.services.stores.webhooks,
      apiKeys: app.services.stores.apiKeys,
      keks: fileKekProvider(app.dataDir),
      clock,
      ping: async () => {
        throw new Error('not used');
      },
      allowPrivateAddresses: false,
      resolveHost: async (host) => {
        if (host === 'localhost') return ['127.0.0.1', '::1'];
        const found = dns[host];
        if (!found) throw new Error('ENOTFOUND');
        return found;
      },
    });
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://localhost:8443/hooks',
      'https://[::1]/hooks',
      'https://10.1.2.3/hooks',
      'https://172.20.0.1/hooks',
      'https://169.254.169.254/latest',
      'https://[fe80::1]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://[fd00::1]/hooks',
      'https://0.0.0.0/hooks',
      'https://internal.example/hooks',
      'https://metadata.example/hooks',
      'https://v6only.example/hooks',
      'https://rebind.example/hooks',
      'https://nowhere.example/hooks',
    ]) {
      await expect(production.set(scope, { url, eventTypes: ['user.created'] }), url).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    }
    const ok = await production.set(scope, { url: 'https://public.example/hooks', eventTypes: ['user.created'], enabled: false });
    secretsShown.push(ok.secret!);

    // At delivery: the sender in production mode refuses loopback by literal address and by name.
    receiver = await startReceiver();
    const request = { headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 2_000 };
    const strict = createHttpsSender({ extraCaPem: TEST_CA_PEM, allowPrivateAddresses: false });
    const local = createHttpsSender({ extraCaPem: TEST_CA_PEM, allowPrivateAddresses: true });
    const noCa = createHttpsSender({ allowPrivateAddresses: true });
    try {
      expect(await strict({ ...request, url: receiver.url })).toMatchObject({ statusCode: null, error: expect.stringContaining('refused') });
      expect(await strict({ ...request, url: `https://localhost:${receiver.port}/hooks` })).toMatchObject({ statusCode: null, error: expect.stringContaining('refused') });
      expect(receiver.requests).toHaveLength(0);
      expect(await local({ ...request, url: `https://localhost:${receiver.port}/hooks` })).toMatchObject({ statusCode: 204, error: null });
      // Without the CA from configuration the test certificate is not trusted: verification stays on.
      expect(await noCa({ ...request, url: receiver.url })).toMatchObject({ statusCode: null, error: expect.stringMatching(/certificate/i) });
      expect(await local({ ...request, url: `http://127.0.0.1:${receiver.port}/hooks` })).toMatchObject({ statusCode: null, error: expect.stringContaining('HTTPS') });
    } finally {
      strict.close();
      local.close();
      noCa.close();
    }
  });

  it('delivers signed envelopes the receiver verifies from the spec alone; the test ping reports status and latency', async () => {
    const { apiKey, scope, secret, projectId } = await setup();
    receiver.react = (r) => {
      try {
        verifyWebhook([secret], r.headers, r.rawBody);
        return { status: 204 };
      } catch {
        return { status: 401 };
      }
    };
    const [wallet] = await createWallets(apiKey, 1);
    await signMany(apiKey, [wallet!], 3);
    await app.services.users.signUp({ projectId, identifier: `user-${randomUUID()}`, identifierType: 'CUSTOM_ID' });
    const events = await projectEvents(projectId);
    expect(events.length).toBeGreaterThanOrEqual(4);
    await deliverUntil(() => receiver.requests.length >= events.length);
    expect(receiver.requests).toHaveLength(events.length);
    for (const request of receiver.requests) {
      expect(verifyWebhook([secret], request.headers, request.rawBody)).toEqual([secret]);
      expect(request.headers['webhook-id']).toBe(request.body.id);
      expect(request.headers['content-type']).toBe('application/json');
      expect(Object.keys(request.body)).toEqual(['id', 'type', 'createdAt', 'data']);
      const event = events.find((e) => e.id === request.body.id)!;
      expect(request.body).toEqual({ id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.data });
      expect(Math.abs(Number(request.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(30);
      expect(request.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    }
    expect(new Set(receiver.requests.map((r) => r.body.id))).toEqual(new Set(events.map((e) => e.id)));
    // One wallet's events arrive in creation order.
    const walletEvents = events.filter((e) => (e.data as { walletId?: string }).walletId === wallet!.id).map((e) => e.id);
    expect(receiver.requests.filter((r) => r.body.data.walletId === wallet!.id).map((r) => r.body.id)).toEqual(walletEvents);
    const log = await app.services.webhooks.deliveryLog(scope, events[0]!.id);
    expect(log.deliveries).toHaveLength(1);
    expect(log.deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1, lastStatusCode: 204 });
    expect(log.deliveries[0]!.log).toEqual([{ attemptedAt: expect.any(String), statusCode: 204, latencyMs: expect.any(Number), error: null }]);

    // A request with a valid signature over a timestamp older than five minutes is refused.
    const sample = receiver.requests[0]!;
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
    const ping = await app.services.webhooks.testPing(scope);
    expect(ping).toMatchObject({ ok: true, statusCode: 204, error: null, eventId: expect.stringMatching(/^evt_/) });
    expect(ping.latencyMs).toBeGreaterThanOrEqual(0);
    const pinged = receiver.requests.at(-1)!;
    expect(pinged.body).toMatchObject({ id: ping.eventId, type: 'test.ping' });
    expect(verifyWebhook([secret], pinged.headers, pinged.rawBody)).toEqual([secret]);
    expect((await app.services.webhooks.deliveryLog(scope, ping.eventId)).deliveries[0]).toMatchObject({ status: 'delivered', attempts: 1 });
    receiver.react = () => ({ status: 503 });
    expect(await app.services.webhooks.testPing(scope)).toMatchObject({ ok: false, statusCode: 503, error: 'HTTP 503' });
    // Test pings are not retried: nothing becomes due.
    const before = receiver.requests.length;
    await app.services.webhookDelivery.runOnce();
    expect(receiver.requests).toHaveLength(before);
  });

  it('a delivery stamped more than five minutes ago is refused by the receiver and retried with a fresh timestamp', async () => {
    const { apiKey, scope, secret, projectId } = await setup(['transaction.signed']);
    receiver.react = (r) => {
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
    await app.services.webhookDelivery.runOnce();
    expect(receiver.requests).toHaveLength(1);
    clock.reset();
    const [event] = (await projectEvents(projectId)).filter((e) => e.type === 'transaction.signed');
    await deliverUntil(() => receiver.requests.length >= 2);
    const log = await app.services.webhooks.deliveryLog(scope, event!.id);
    expect(log.deliveries[0]!.log.map((a) => a.statusCode)).toEqual([400, 204]);
    expect(new Set(receiver.requests.map((r) => r.headers['webhook-id']))).toEqual(new Set([event!.id]));
  });

  it('signs with both secrets for 24 hours after a rotation', async () => {
    const { scope, secret: first, projectId } = await setup(['user.created']);
    const rotated = await app.services.webhooks.rotateSecret(scope);
    secretsShown.push(rotated.secret);
    const second = rotated.secret;
    const newUser = () => app.services.users.signUp({ projectId, identifier: `u-${randomUUID()}`, identifierType: 'CUSTOM_ID' });
    await newUser();
    await deliverUntil(() => receiver.requests.length >= 1);
    const during = receiver.requests[0]!;
    const values = during.headers['webhook-signature']!.split(' ');
    expect(values).toHaveLength(2);
    expect(values.every((v) => v.startsWith('v1,'))).toBe(true);
    expect(verifyWebhook([second], during.headers, during.rawBody)).toEqual([second]);
    expect(verifyWebhook([first], during.headers, during.rawBody)).toEqual([first]);
    expect(verifyWebhook([second, first], during.headers, during.rawBody)).toEqual([second, first]);

    clock.advance(DAY + 1_000);
    const now = () => Math.floor(clock.now().getTime() / 1000);
    await newUser();
    await deliverUntil(() => receiver.requests.length >= 2);
    const after = receiver.requests[1]!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verifyWebhook([second], after.headers, after.rawBody, now())).toEqual([second]);
    expect(() => verifyWebhook([first], after.headers, after.rawBody, now())).toThrow(/signature/);
    expect((await app.services.webhooks.get(scope)).previousSecretExpiresAt).toBeNull();
  });

  it('survives a receiver that answers 500, hangs past the time-out or drops the connection: every event delivered, same webhook-id, first attempts in order per wallet', async () => {
    const { apiKey, scope, secret, projectId } = await setup(['transaction.signed']);
    const seen = new Map<string, number>();
    receiver.react = (r) => {
      expect(verifyWebhook([secret], r.headers, r.rawBody)).toEqual([secret]);
      const count = (seen.get(r.body.id) ?? 0) + 1;
      seen.set(r.body.id, count);
      // Each event fails its first attempts in one of three ways, chosen by its id.
      const mode = r.body.id.charCodeAt(r.body.id.length - 1) % 4;
      if (count === 1 && mode === 0) return { status: 500 };
      if (count === 1 && mode === 1) return 'hang';
      if (count === 1 && mode === 2) return 'close';
      if (count === 2 && mode === 0) return { status: 502 };
      return { status: 200 };
    };
    const wallets = await createWallets(apiKey, 4);
    await signMany(apiKey, wallets, 8);
    const events = (await projectEvents(projectId)).filter((e) => e.type === 'transaction.signed');
    expect(events).toHaveLength(32);
    const delivered = async () =>
      (await app.database.prisma.webhookDelivery.count({ where: { eventId: { in: events.map((e) => e.id) }, status: 'delivered' } })) === events.length;
    await deliverUntil(delivered, 60_000);

    const ids = new Set(events.map((e) => e.id));
    expect(new Set(receiver.requests.map((r) => r.body.id))).toEqual(ids);
    for (const r of receiver.requests) expect(r.headers['webhook-id']).toBe(r.body.id);
    // Bodies of retries are byte-identical.
    const bodies = new Map<string, Set<string>>();
    for (const r of receiver.requests) bodies.set(r.body.id, (bodies.get(r.body.id) ?? new Set()).add(r.rawBody));
    for (const set of bodies.values()) expect(set.size).toBe(1);
    // Order of first arrivals per wallet follows creation order.
    for (const wallet of wallets) {
      const created = events.filter((e) => (e.data as { walletId: string }).walletId === wallet.id).map((e) => e.id);
      const firstArrivals = [...new Map(receiver.requests.filter((r) => r.body.data.walletId === wallet.id).map((r) => [r.body.id, r.index] as const).reverse())]
        .sort((a, b) => a[1] - b[1])
        .map(([id]) => id);
      expect(firstArrivals).toEqual(created);
    }
    // The log names each fault.
    const errors = new Set<string>();
    for (const event of events) {
      const log = await app.services.webhooks.deliveryLog(scope, event.id);
      const attempts = log.deliveries[0]!.log;
      expect(attempts.at(-1)!.statusCode).toBe(200);
      for (const a of attempts.slice(0, -1)) errors.add(a.statusCode ? `HTTP ${a.statusCode}` : a.error!.replace(/ after \d+ ms/, '').split(':')[0]!);
    }
    expect(errors).toContain('HTTP 500');
    expect(errors).toContain('HTTP 502');
    expect(errors).toContain('timeout');
    expect([...errors].some((e) => /ECONNRESET|socket hang up/.test(e))).toBe(true);
  });

  it('loses nothing while the receiver is down for 1,000 events, and the first attempts follow creation order per wallet', async () => {
    const { apiKey, secret, projectId } = await setup(['transaction.signed']);
    const wallets = await createWallets(apiKey, 10);
    await receiver.stop();
    // 1,000 transaction.signed events of 10 wallets into the outbox (as the signing path writes them,
    // but without 1,000 signatures, to keep the suite short), interleaved across the wallets.
    for (let round = 0; round < 20; round++) {
      const batch: NewEvent[] = [];
      for (let i = 0; i < 5; i++) {
        for (const wallet of wallets) {
          batch.push({
            id: newEventId(),
            projectId,
            type: 'transaction.signed',
            data: { userId: null, walletId: wallet.id, walletAddress: '0x0', chainId: null, signedAt: new Date().toISOString() },
          });
        }
      }
      await app.services.stores.users.recordEvents(batch);
      // Delivery runs (and fails: connection refused) while the events are being produced.
      if (round % 5 === 4) await app.services.webhookDelivery.runOnce();
    }
    await app.services.webhookDelivery.runOnce();
    const events = (await projectEvents(projectId)).filter((e) => e.type === 'transaction.signed');
    expect(events).toHaveLength(1_000);
    const attempted = await app.database.prisma.webhookDelivery.count({ where: { eventId: { in: events.map((e) => e.id) }, attempts: { gt: 0 } } });
    expect(attempted).toBe(1_000);
    await receiver.start();
    receiver.react = (r) => {
      verifyWebhook([secret], r.headers, r.rawBody);
      return { status: 204 };
    };
    const ids = events.map((e) => e.id);
    await deliverUntil(
      async () => (await app.database.prisma.webhookDelivery.count({ where: { eventId: { in: ids }, status: 'delivered' } })) === 1_000,
      90_000,
    );
    expect(new Set(receiver.requests.map((r) => r.body.id))).toEqual(new Set(ids));
    for (const r of receiver.requests) expect(r.headers['webhook-id']).toBe(r.body.id);

    // First attempts (from the attempt log) per wallet follow creation order.
    const firstAttempts = await app.database.query<{ event_id: string; wallet_id: string }>(
      `SELECT d.event_id, e.data->>'walletId' AS wallet_id FROM webhook_attempts a
       JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN events e ON e.id = d.event_id
       WHERE e.project_id = $1 AND a.id = (SELECT min(id) FROM webhook_attempts x WHERE x.delivery_id = d.id)
       ORDER BY a.id`,
      [projectId],
    );
    expect(firstAttempts).toHaveLength(1_000);
    for (const wallet of wallets) {
      expect(firstAttempts.filter((a) => a.wallet_id === wallet.id).map((a) => a.event_id)).toEqual(
        events.filter((e) => (e.data as { walletId: string }).walletId === wallet.id).map((e) => e.id),
      );
    }
  }, 120_000);

  it('two workers on one database never send to one endpoint at once: each event arrives exactly once', async () => {
    const { apiKey, projectId } = await setup(['transaction.signed']);
    let maxInFlightPerWallet = 0;
    const walletInFlight = new Map<string, number>();
    receiver.react = (r) => {
      const w = String(r.body.data.walletId);
      walletInFlight.set(w, (walletInFlight.get(w) ?? 0) + 1);
      maxInFlightPerWallet = Math.max(maxInFlightPerWallet, walletInFlight.get(w)!);
      // Counted as ended just before the answer leaves (timers fire in order).
      setTimeout(() => {
        walletInFlight.set(w, walletInFlight.get(w)! - 1);
      }, 2);
      return { status: 204, delayMs: 3 };
    };
    const other = createWebhookDelivery({
      store: app.services.stores.webhooks,
      keks: fileKekProvider(app.dataDir),
      clock,
      send: createHttpsSender({ extraCaPem: TEST_CA_PEM, allowPrivateAddresses: true }),
      owner: 'second-worker',
      options: { timeoutMs: 2_000, leaseMs: 5_000 },
    });
    const wallets = await createWallets(apiKey, 5);
    let producing = true;
    const loops = [app.services.webhookDelivery, other].map(async (engine) => {
      while (producing || (await app.database.prisma.webhookDelivery.count({ where: { status: 'pending', endpoint: { projectId } } })) > 0) {
        await engine.runOnce();
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    });
    await signMany(apiKey, wallets, 30);
    await new Promise((resolve) => setTimeout(resolve, 200));
    producing = false;
    await Promise.all(loops);
    const events = (await projectEvents(projectId)).filter((e) => e.type === 'transaction.signed');
    expect(events).toHaveLength(150);
    await deliverUntil(() => receiver.requests.length >= 150);
    const counts = new Map<string, number>();
    for (const r of receiver.requests) counts.set(r.body.id, (counts.get(r.body.id) ?? 0) + 1);
    expect(counts.size).toBe(150);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    expect(maxInFlightPerWallet).toBe(1);
    await other.stop();
  });

  it('resends by event id and by transaction hash with the same webhook-id', async () => {
    const { scope, secret, projectId } = await setup(['send.broadcasted', 'send.confirmed', 'user.created']);
    const txHash = `0x${'ab'.repeat(32)}`;
    const walletId = randomUUID();
    const events: NewEvent[] = [
      { id: newEventId(), projectId, type: 'send.broadcasted', data: { userId: null, walletId, txHash, type: 'EVM', evmChainId: '84532', isDevnet: true, broadcastedAt: new Date().toISOString() } },
      { id: newEventId(), projectId, type: 'send.confirmed', data: { userId: null, walletId, txHash, type: 'EVM', evmChainId: '84532', isDevnet: true, confirmedAt: new Date().toISOString() } },
    ];
    await app.services.stores.users.recordEvents(events);
    await deliverUntil(() => receiver.requests.length >= 2);

    const byHash = await app.services.webhooks.resend(scope, { txHash: txHash.toUpperCase().replace('0X', '0x') });
    expect(byHash.eventIds).toEqual(events.map((e) => e.id));
    expect(byHash.deliveries).toHaveLength(2);
    await deliverUntil(() => receiver.requests.length >= 4);
    const byId = await app.services.webhooks.resend(null, { eventId: events[0]!.id });
    expect(byId.deliveries).toHaveLength(1);
    await deliverUntil(() => receiver.requests.length >= 5);
    expect(receiver.requests.map((r) => r.headers['webhook-id'])).toEqual([events[0]!.id, events[1]!.id, events[0]!.id, events[1]!.id, events[0]!.id]);
    for (const r of receiver.requests) verifyWebhook([secret], r.headers, r.rawBody);
    const log = await app.services.webhooks.deliveryLog(scope, events[0]!.id);
    expect(log.deliveries[0]!.log).toHaveLength(3);
    expect(log.deliveries[0]).toMatchObject({ status: 'delivered' });

    await expect(app.services.webhooks.resend(scope, { eventId: 'evt_unknown' })).rejects.toMatchObject({ status: 404 });
    await expect(app.services.webhooks.resend(scope, { txHash: '0xdeadbeef' })).rejects.toMatchObject({ status: 404 });
    // Another project's scope does not see the event.
    const other = await app.createKey();
    await expect(app.services.webhooks.resend({ apiKeyId: other.apiKeyId, projectId: other.projectId }, { eventId: events[0]!.id })).rejects.toMatchObject({
      status: 404,
    });
  });

  it('retries on the documented schedule (exponential, capped at 6 h, over more than 24 h) and then gives up', async () => {
    const { scope, projectId } = await setup(['user.created']);
    receiver.react = () => ({ status: 500 });
    // The production schedule (30 s base, 6 h cap, 20 attempts) with the jitter at its midpoint.
    const engine = createWebhookDelivery({
      store: app.services.stores.webhooks,
      keks: fileKekProvider(app.dataDir),
      clock,
      send: createHttpsSender({ extraCaPem: TEST_CA_PEM, allowPrivateAddresses: true }),
      owner: 'schedule-test',
      random: () => 0.5,
    });
    await app.services.users.signUp({ projectId, identifier: `u-${randomUUID()}`, identifierType: 'CUSTOM_ID' });
    const [event] = await projectEvents(projectId);
    const delivery = () => app.database.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: event!.id } });
    for (let attempt = 1; attempt <= 20; attempt++) {
      await engine.runOnce();
      const row = await delivery();
      expect(row.attempts).toBe(attempt);
      if (attempt < 20) {
        expect(row.status).toBe('pending');
        clock.advanceTo(row.nextAttemptAt!);
      }
    }
    const row = await delivery();
    expect(row).toMatchObject({ status: 'failed', nextAttemptAt: null, lastStatusCode: 500 });
    const log = (await app.services.webhooks.deliveryLog(scope, event!.id)).deliveries[0]!.log;
    expect(log).toHaveLength(20);
    const gaps = log.slice(1).map((a, i) => new Date(a.attemptedAt).getTime() - new Date(log[i]!.attemptedAt).getTime());
    const nominal = Array.from({ length: 19 }, (_, i) => Math.min(30_000 * 2 ** i, 6 * HOUR));
    gaps.forEach((gap, i) => {
      expect(gap).toBeGreaterThanOrEqual(nominal[i]!);
      expect(gap).toBeLessThan(nominal[i]! + 5_000);
    });
    const span = new Date(log.at(-1)!.attemptedAt).getTime() - new Date(log[0]!.attemptedAt).getTime();
    expect(span).toBeGreaterThan(24 * HOUR);
    await engine.stop();
  });

  it('disables an endpoint after 5 days of continuous failure, says why, and resumes when enabled again', async () => {
    const { scope, projectId } = await setup(['user.created']);
    receiver.react = () => ({ status: 500 });
    const newUser = () => app.services.users.signUp({ projectId, identifier: `u-${randomUUID()}`, identifierType: 'CUSTOM_ID' });
    const engine = app.services.webhookDelivery;
    const state = () => app.services.webhooks.get(scope);

    await newUser();
    await engine.runOnce();
    const t0 = (await state()).failingSince!;
    expect(t0).not.toBeNull();
    // A success in between resets the clock of failure.
    clock.advance(2 * DAY);
    receiver.react = () => ({ status: 204 });
    await engine.runOnce();
    expect((await state()).failingSince).toBeNull();
    receiver.react = () => ({ status: 500 });
    await newUser();
    await engine.runOnce();
    const t1 = new Date((await state()).failingSince!);
    clock.advance(4 * DAY);
    await engine.runOnce();
    expect(await state()).toMatchObject({ enabled: true, disabledAt: null });
    clock.advanceTo(new Date(t1.getTime() + 5 * DAY + 1_000));
    await engine.runOnce();
    const disabled = await state();
    expect(disabled).toMatchObject({ enabled: false, disabledAt: expect.any(String) });
    expect(disabled.disabledReason).toMatch(/5 days/);
    expect(disabled.disabledReason).toContain('HTTP 500');
    // Nothing is sent while disabled.
    const before = receiver.requests.length;
    await newUser();
    clock.advance(HOUR);
    await engine.runOnce();
    expect(receiver.requests).toHaveLength(before);

    receiver.react = () => ({ status: 204 });
    const enabled = await app.services.webhooks.enable(scope);
    expect(enabled).toMatchObject({ enabled: true, disabledAt: null, disabledReason: null, failingSince: null });
    await engine.runOnce();
    expect(await app.database.prisma.webhookDelivery.count({ where: { endpoint: { apiKeyId: scope.apiKeyId }, status: 'pending' } })).toBe(0);
  });
});
