import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, openDatabase, testDatabaseKinds, type Database } from '@wallet/db';
import { describe, expect, it } from 'vitest';
import { checkedFetch } from '../testing/response-contract.ts';
import { repoRoot } from '../config.ts';
import { TEST_CA_FILE, startReceiver, verifyWebhook, type Receiver } from './testing/receiver.ts';
import { spawnService, suiteProcesses } from '../testing/service-process.ts';

/** Every /v1 answer is checked against the document the answering process serves. */
const fetchChecked = checkedFetch();

const run = promisify(execFile);
const { children, cleanups } = suiteProcesses();

/** A fresh PostgreSQL database on the TEST_DATABASE_URL server; dropped after the suite. */
async function freshPostgresUrl(): Promise<string> {
  const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 't');
  cleanups.push(scratch.drop);
  return scratch.url;
}

describe.each(testDatabaseKinds)('webhook delivery by the service process on %s', (kind) => {
  it('delivers every event at least once across a SIGKILL mid-delivery and a restart; the CLI configures, tests, logs and resends', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-webhooks-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      APP_ENV: 'local',
      DATA_DIR: dataDir,
      PORT: '0',
      DATABASE_URL: kind === 'postgres' ? await freshPostgresUrl() : '',
      LOG_LEVEL: process.env.WEBHOOK_TEST_LOG_LEVEL ?? 'info',
      LOCAL_DEVNETS: 'off',
      WEBHOOK_CA_FILE: TEST_CA_FILE,
      WEBHOOK_TIMEOUT_MS: '500',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_RETRY_MAX_MS: '1000',
      WEBHOOK_LEASE_MS: '2000',
      WEBHOOK_POLL_MS: '50',
    };

    const startService = () => spawnService(env, children);
    async function cli(args: string[]) {
      const { stdout } = await run(process.execPath, ['--import', 'tsx', `apps/api/src/cli/${args[0]}.ts`, ...args.slice(1)], { cwd: repoRoot, env });
      const lines = stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      return JSON.parse(lines[0]!);
    }
    const exited = (child: ChildProcess) => new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(null) : child.once('exit', resolve)));

    const receiver: Receiver = await startReceiver();
    cleanups.push(() => receiver.close());
    let inFlight = 0;
    receiver.react = () => {
      inFlight++;
      setTimeout(() => inFlight--, 20);
      return { status: 204, delayMs: 25 };
    };

    let service = await startService();
    const issued = await cli(['keys', 'create', '--partner', `webhooks-${kind}`]);
    const configured = await cli(['webhooks', 'set', '--key-id', issued.apiKeyId, '--url', receiver.url, '--events', 'transaction.signed,test.ping']);
    expect(configured).toMatchObject({ url: receiver.url, enabled: true, eventTypes: ['transaction.signed', 'test.ping'] });
    const secret: string = configured.secret;
    expect(secret).toMatch(/^whsec_/);
    // The CLI's other commands once (each run costs a few seconds of tsx start-up).
    if (kind === 'pglite') {
      const ping = await cli(['webhooks', 'test', '--key-id', issued.apiKeyId]);
      expect(ping).toMatchObject({ ok: true, statusCode: 204, eventId: expect.stringMatching(/^evt_/) });
      expect(typeof ping.latencyMs).toBe('number');
      expect(receiver.requests.at(-1)!.body).toMatchObject({ id: ping.eventId, type: 'test.ping' });
    }

    const post = (url: string, route: string, body: unknown) =>
      fetchChecked(`${url}${route}`, { method: 'POST', headers: { 'x-api-key': issued.apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const wallets: string[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await post(service.url, '/v1/wallets', { type: 'EVM', userIdentifier: `hook-${i}`, userIdentifierType: 'CUSTOM_ID' });
      expect(response.status).toBe(201);
      wallets.push(((await response.json()) as { id: string }).id);
    }

    // The receiver is down while the events are produced.
    await receiver.stop();
    const pingRequests = receiver.requests.length;
    await Promise.all(
      wallets.map(async (walletId) => {
        for (let i = 0; i < 40; i++) {
          const response = await post(service.url, `/v1/wallets/${walletId}/sign-message`, { message: `hello ${i}` });
          expect(response.status).toBe(200);
        }
      }),
    );
    const distinct = () => new Set(receiver.requests.slice(pingRequests).map((r) => r.body.id)).size;
    await receiver.start();
    // SIGKILL mid-delivery: with part of the events received and requests still being answered.
    await receiver.waitFor(() => distinct() >= 50 && inFlight > 0, 30_000);
    service.child.kill('SIGKILL');
    await exited(service.child);
    const receivedBeforeKill = distinct();
    expect(receivedBeforeKill).toBeLessThan(160);

    service = await startService();
    await receiver.waitFor(() => distinct() >= 160, 60_000);
    // Every event has arrived once, some of them from the killed process whose deliveries stayed
    // due: their re-sends follow within a lease (2 s) plus a retry (1 s). Wait for a quiet receiver.
    for (let seen = -1; seen !== receiver.requests.length; ) {
      seen = receiver.requests.length;
      await new Promise((resolve) => setTimeout(resolve, 3_500));
    }

    // The CLI through the running service: the log of an event and a resend.
    const firstEvent = receiver.requests[pingRequests]!.body.id;
    if (kind === 'pglite') {
      const log = await cli(['webhooks', 'log', '--event', firstEvent]);
      const attempts = log.deliveries[0].log as Array<{ statusCode: number | null; error: string | null; latencyMs: number }>;
      expect(attempts.some((a) => a.statusCode === 204 && a.error === null)).toBe(true);
      const before = receiver.requests.length;
      const resent = await cli(['webhooks', 'resend', '--event', firstEvent]);
      expect(resent.deliveries).toHaveLength(1);
      await receiver.waitFor((requests) => requests.slice(before).some((r) => r.body.id === firstEvent), 10_000);
    }

    service.child.kill('SIGTERM');
    await exited(service.child);
    expect(service.output()).not.toContain(secret);

    // Against the database: every event delivered (none lost), same webhook-id on every retry,
    // first attempts in creation order per wallet.
    const database: Database =
      kind === 'postgres' ? await openDatabase({ databaseUrl: env.DATABASE_URL, migrate: false }) : await openDatabase({ dataDir: path.join(dataDir, 'db'), worker: false, migrate: false });
    try {
      const events = await database.query<{ id: string; wallet_id: string }>(
        `SELECT id, data->>'walletId' AS wallet_id FROM events WHERE type = 'transaction.signed' ORDER BY seq`,
      );
      expect(events).toHaveLength(160);
      const received = receiver.requests.filter((r) => r.body.type === 'transaction.signed');
      expect(new Set(received.map((r) => r.body.id))).toEqual(new Set(events.map((e) => e.id)));
      for (const request of received) {
        expect(request.headers['webhook-id']).toBe(request.body.id);
        expect(verifyWebhook([secret], request.headers, request.rawBody, Number(request.headers['webhook-timestamp']))).toEqual([secret]);
      }
      // The attempts made while the receiver was down are in the log.
      const refused = await database.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_attempts WHERE error LIKE 'ECONNREFUSED%'`);
      expect(Number(refused[0]!.n)).toBeGreaterThan(0);
      const undelivered = await database.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE status <> 'delivered'`);
      expect(Number(undelivered[0]!.n)).toBe(0);
      const firstAttempts = await database.query<{ event_id: string; wallet_id: string }>(
        `SELECT d.event_id, e.data->>'walletId' AS wallet_id FROM webhook_attempts a
         JOIN webhook_deliveries d ON d.id = a.delivery_id JOIN events e ON e.id = d.event_id
         WHERE e.type = 'transaction.signed' AND a.id = (SELECT min(id) FROM webhook_attempts x WHERE x.delivery_id = d.id)
         ORDER BY a.id`,
      );
      for (const walletId of wallets) {
        expect(firstAttempts.filter((a) => a.wallet_id === walletId).map((a) => a.event_id)).toEqual(
          events.filter((e) => e.wallet_id === walletId).map((e) => e.id),
        );
      }
    } finally {
      await database.close();
    }
  }, 150_000);
});
