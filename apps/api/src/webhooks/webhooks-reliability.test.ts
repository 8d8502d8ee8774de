import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { createWebhookDelivery, API_KEK_ROLES, fileKekProvider, newEventId, type NewEvent } from '@wallet/domain';
import { describe, expect, it } from 'vitest';
import { createHttpsSender } from './https-sender.ts';
import { TEST_CA_PEM, verifyWebhook } from './testing/receiver.ts';
import { DAY, HOUR, useWebhookTestApp } from './testing/webhook-app.ts';

/** Webhooks: receiver failures, outages, concurrent workers, the retry schedule and disabling. */
describe.each(testDatabaseKinds)('webhooks on %s: reliability', (kind) => {
  const t = useWebhookTestApp(kind);
  const { clock, setup, createWallets, signMany, projectEvents, deliverUntil } = t;

  it('survives a receiver that answers 500, hangs past the time-out or drops the connection: every event delivered, same webhook-id, first attempts in order per wallet', async () => {
    const { apiKey, scope, secret, projectId } = await setup(['transaction.signed']);
    const seen = new Map<string, number>();
    t.receiver.react = (r) => {
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
      (await t.app.database.prisma.webhookDelivery.count({ where: { eventId: { in: events.map((e) => e.id) }, status: 'delivered' } })) === events.length;
    await deliverUntil(delivered, 60_000);

    const ids = new Set(events.map((e) => e.id));
    expect(new Set(t.receiver.requests.map((r) => r.body.id))).toEqual(ids);
    for (const r of t.receiver.requests) expect(r.headers['webhook-id']).toBe(r.body.id);
    // Bodies of retries are byte-identical.
    const bodies = new Map<string, Set<string>>();
    for (const r of t.receiver.requests) bodies.set(r.body.id, (bodies.get(r.body.id) ?? new Set()).add(r.rawBody));
    for (const set of bodies.values()) expect(set.size).toBe(1);
    // First attempts per wallet follow creation order, each starting after the previous one ended. Read from the attempt
    // log: a first attempt that timed out before its request reached the receiver (a loaded machine) never arrived.
    const firstAttempts = new Map(
      (await t.app.database.prisma.webhookDelivery.findMany({ where: { eventId: { in: [...ids] } }, include: { log: { orderBy: { id: 'asc' }, take: 1 } } })).map(
        (d) => [d.eventId, d.log[0]!] as const,
      ),
    );
    for (const wallet of wallets) {
      const created = events.filter((e) => (e.data as { walletId: string }).walletId === wallet.id).map((e) => firstAttempts.get(e.id)!);
      for (let i = 1; i < created.length; i++) {
        const previous = created[i - 1]!;
        // latencyMs is rounded: a millisecond of slack.
        expect(created[i]!.attemptedAt.getTime()).toBeGreaterThanOrEqual(previous.attemptedAt.getTime() + previous.latencyMs - 1);
      }
    }
    // The log names each fault.
    const errors = new Set<string>();
    for (const event of events) {
      const log = await t.app.services.webhooks.deliveryLog(scope, event.id);
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
    await t.receiver.stop();
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
      await t.app.services.stores.users.recordEvents(batch);
      // Delivery runs (and fails: connection refused) while the events are being produced.
      if (round % 5 === 4) await t.app.services.webhookDelivery.runOnce();
    }
    await t.app.services.webhookDelivery.runOnce();
    const events = (await projectEvents(projectId)).filter((e) => e.type === 'transaction.signed');
    expect(events).toHaveLength(1_000);
    const attempted = await t.app.database.prisma.webhookDelivery.count({ where: { eventId: { in: events.map((e) => e.id) }, attempts: { gt: 0 } } });
    expect(attempted).toBe(1_000);
    await t.receiver.start();
    t.receiver.react = (r) => {
      verifyWebhook([secret], r.headers, r.rawBody);
      return { status: 204 };
    };
    const ids = events.map((e) => e.id);
    await deliverUntil(
      async () => (await t.app.database.prisma.webhookDelivery.count({ where: { eventId: { in: ids }, status: 'delivered' } })) === 1_000,
      90_000,
    );
    expect(new Set(t.receiver.requests.map((r) => r.body.id))).toEqual(new Set(ids));
    for (const r of t.receiver.requests) expect(r.headers['webhook-id']).toBe(r.body.id);

    // First attempts (from the attempt log) per wallet follow creation order.
    const firstAttempts = await t.app.database.query<{ event_id: string; wallet_id: string }>(
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
    t.receiver.react = (r) => {
      const w = String(r.body.data.walletId);
      walletInFlight.set(w, (walletInFlight.get(w) ?? 0) + 1);
      maxInFlightPerWallet = Math.max(maxInFlightPerWallet, walletInFlight.get(w)!);
      // Counted as ended just before the answer leaves (timers fire in order).
      setTimeout(() => {
        walletInFlight.set(w, walletInFlight.get(w)! - 1);
      }, 2);
      return { status: 204, delayMs: 3 };
    };
    // Two workers of their own with a time-out no loaded machine reaches: an attempt that timed out
    // would be retried and legitimately arrive twice (at least once), which is not what this test is about.
    const worker = (owner: string) =>
      createWebhookDelivery({
        store: t.app.services.stores.webhooks,
        keks: fileKekProvider(path.join(t.app.dataDir, 'api'), API_KEK_ROLES),
        clock,
        send: createHttpsSender({ extraCaPem: TEST_CA_PEM, allowPrivateAddresses: true }),
        owner,
        options: { timeoutMs: 10_000, leaseMs: 60_000 },
      });
    const engines = [worker('first-worker'), worker('second-worker')];
    const wallets = await createWallets(apiKey, 5);
    let producing = true;
    const loops = engines.map(async (engine) => {
      while (producing || (await t.app.database.prisma.webhookDelivery.count({ where: { status: 'pending', endpoint: { projectId } } })) > 0) {
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
    await deliverUntil(() => t.receiver.requests.length >= 150);
    const counts = new Map<string, number>();
    for (const r of t.receiver.requests) counts.set(r.body.id, (counts.get(r.body.id) ?? 0) + 1);
    expect(counts.size).toBe(150);
    expect([...counts.values()].every((c) => c === 1)).toBe(true);
    const attempts = await t.app.database.prisma.webhookDelivery.findMany({ where: { endpoint: { projectId } }, select: { attempts: true, status: true } });
    expect(attempts.every((d) => d.attempts === 1 && d.status === 'delivered')).toBe(true);
    expect(maxInFlightPerWallet).toBe(1);
    for (const engine of engines) await engine.stop();
  });

  it('retries on the documented schedule (exponential, capped at 6 h, over more than 24 h) and then gives up', async () => {
    const { scope, projectId } = await setup(['user.created']);
    t.receiver.react = () => ({ status: 500 });
    // The production schedule (30 s base, 6 h cap, 20 attempts) with the jitter at its midpoint.
    const engine = createWebhookDelivery({
      store: t.app.services.stores.webhooks,
      keks: fileKekProvider(path.join(t.app.dataDir, 'api'), API_KEK_ROLES),
      clock,
      send: createHttpsSender({ extraCaPem: TEST_CA_PEM, allowPrivateAddresses: true }),
      owner: 'schedule-test',
      random: () => 0.5,
    });
    await t.app.services.users.signUp({ projectId, identifier: `u-${randomUUID()}`, identifierType: 'CUSTOM_ID' });
    const [event] = await projectEvents(projectId);
    const delivery = () => t.app.database.prisma.webhookDelivery.findFirstOrThrow({ where: { eventId: event!.id } });
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
    const log = (await t.app.services.webhooks.deliveryLog(scope, event!.id)).deliveries[0]!.log;
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
    t.receiver.react = () => ({ status: 500 });
    const newUser = () => t.app.services.users.signUp({ projectId, identifier: `u-${randomUUID()}`, identifierType: 'CUSTOM_ID' });
    const engine = t.app.services.webhookDelivery;
    const state = () => t.app.services.webhooks.get(scope);

    await newUser();
    await engine.runOnce();
    const t0 = (await state()).failingSince!;
    expect(t0).not.toBeNull();
    // A success in between resets the clock of failure.
    clock.advance(2 * DAY);
    t.receiver.react = () => ({ status: 204 });
    await engine.runOnce();
    expect((await state()).failingSince).toBeNull();
    t.receiver.react = () => ({ status: 500 });
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
    const before = t.receiver.requests.length;
    await newUser();
    clock.advance(HOUR);
    await engine.runOnce();
    expect(t.receiver.requests).toHaveLength(before);

    t.receiver.react = () => ({ status: 204 });
    const enabled = await t.app.services.webhooks.enable(scope);
    expect(enabled).toMatchObject({ enabled: true, disabledAt: null, disabledReason: null, failingSince: null });
    await engine.runOnce();
    expect(await t.app.database.prisma.webhookDelivery.count({ where: { endpoint: { apiKeyId: scope.apiKeyId }, status: 'pending' } })).toBe(0);
  });
});
