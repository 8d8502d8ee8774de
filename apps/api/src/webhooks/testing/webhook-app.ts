import { randomUUID } from 'node:crypto';
import type { DatabaseKind } from '@wallet/db';
import type { Clock, WebhookDelivery } from '@wallet/domain';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import { startTestApp, type TestApp } from '../../testing/harness.ts';
import { TEST_CA_FILE, startReceiver, type Receiver } from './receiver.ts';
import { WEBHOOK_EVENT_TYPES } from '@wallet/domain/webhooks/event-types.ts';

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

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

export const ALL_TYPES: string[] = [...WEBHOOK_EVENT_TYPES];

/**
 * The webhook tests' service (test timings: short time-out and backoff; the receiver's CA trusted
 * through configuration) with its hooks registered in the calling describe block: after each test
 * the clock is reset, endpoints disabled and the receiver closed; at the end no secret may appear
 * in the logs. `timeoutMs` is the delivery time-out (WEBHOOK_TIMEOUT_MS): the 300 ms default keeps
 * the fault tests short; suites that count requests take a longer one, so a slow TLS handshake on
 * a loaded machine is not a failed attempt.
 */
export function useWebhookTestApp(kind: DatabaseKind, { timeoutMs = 300 }: { timeoutMs?: number } = {}) {
  const clock = movableClock();
  const cleanups: Array<() => Promise<unknown>> = [];
  const secretsShown: string[] = [];
  const t = {
    app: undefined as unknown as TestApp,
    receiver: undefined as unknown as Receiver,
    clock,
    secretsShown,

    /** A fresh key (own project) with its endpoint on a fresh receiver. */
    async setup(eventTypes: string[] = ALL_TYPES) {
      t.receiver = await startReceiver();
      const issued = await t.app.createKey();
      const scope = { apiKeyId: issued.apiKeyId, projectId: issued.projectId };
      const config = await t.app.services.webhooks.set(scope, { url: t.receiver.url, eventTypes });
      secretsShown.push(config.secret!);
      // Leave nothing due behind for later tests' workers.
      cleanups.push(() => t.app.services.webhooks.disable(scope).catch(() => undefined));
      return { ...issued, scope, secret: config.secret!, config };
    },

    async createWallets(key: string, count: number, prefix = 'w') {
      const wallets: Array<{ id: string }> = [];
      for (let i = 0; i < count; i++) {
        const response = await t.app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: `${prefix}-${i}-${randomUUID()}`, userIdentifierType: 'CUSTOM_ID' } });
        expect(response.status).toBe(201);
        wallets.push(response.body);
      }
      return wallets;
    },

    /** `perWallet` sign-message calls per wallet, the wallets in parallel, each wallet's calls one after another. */
    async signMany(key: string, wallets: Array<{ id: string }>, perWallet: number) {
      await Promise.all(
        wallets.map(async (wallet) => {
          for (let i = 0; i < perWallet; i++) {
            const response = await t.app.request('POST', `/v1/wallets/${wallet.id}/sign-message`, { key, body: { message: `m${i}` } });
            expect(response.status).toBe(200);
          }
        }),
      );
    },

    async projectEvents(projectId: string) {
      return t.app.database.prisma.event.findMany({ where: { projectId, type: { not: 'test.ping' } }, orderBy: { seq: 'asc' } });
    },

    /** Runs delivery passes until `done` holds. */
    async deliverUntil(done: () => boolean | Promise<boolean>, timeoutMs = 30_000, engine?: WebhookDelivery) {
      const deadline = Date.now() + timeoutMs;
      while (!(await done())) {
        if (Date.now() > deadline) throw new Error('deliveries did not complete in time');
        await (engine ?? t.app.services.webhookDelivery).runOnce();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
    },
  };

  beforeAll(async () => {
    t.app = await startTestApp(kind, {
      clock,
      env: { WEBHOOK_CA_FILE: TEST_CA_FILE, WEBHOOK_TIMEOUT_MS: String(timeoutMs), WEBHOOK_RETRY_BASE_MS: '30', WEBHOOK_RETRY_MAX_MS: '300', WEBHOOK_LEASE_MS: '5000' },
    });
  });
  afterEach(async () => {
    clock.reset();
    for (const cleanup of cleanups.splice(0)) await cleanup();
    await t.receiver?.close();
  });
  afterAll(async () => {
    const logs = t.app.logLines.join('');
    for (const secret of [...t.app.secrets(), ...secretsShown]) expect(logs).not.toContain(secret);
    await t.app.close();
  });
  return t;
}
