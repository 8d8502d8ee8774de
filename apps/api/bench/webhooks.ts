/**
 * npm run bench:webhooks: sustained 200 events per second (BENCH_WEBHOOK_RATE) for 20 s
 * (BENCH_WEBHOOK_SECONDS) into a local HTTPS receiver (own process), through the real outbox and
 * the real webhook worker: events are written as the signing path writes them (audit row + event in
 * one statement), the worker dispatches, leases and sends them. Reports enqueue-to-delivery
 * latency (event committed -> request arrived at the receiver): p50, p99, max. Target: p99 <= 1 s.
 * A warm-up of BENCH_WEBHOOK_WARMUP_SECONDS (default 5) at the same rate comes first; its figures
 * are reported apart (`warmup`).
 *
 * Database: embedded PGlite as the service runs it (file-backed, in a worker thread), or a fresh
 * database on the PostgreSQL server of BENCH_DATABASE_URL. Not a test: figures depend on the machine.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScratchDatabase, openDatabase, type Database } from '@wallet/db';
import { newEventId, type NewEvent } from '@wallet/domain';
import { loadConfig } from '../src/config.ts';
import { createLogger } from '../src/logger.ts';
import { createServices } from '../src/services.ts';
import { TEST_CA_FILE } from '../src/webhooks/testing/receiver.ts';
import { startWebhookWorker } from '../src/workers/webhook-worker.ts';

const RATE = Number(process.env.BENCH_WEBHOOK_RATE ?? 200);
const SECONDS = Number(process.env.BENCH_WEBHOOK_SECONDS ?? 20);
const WALLETS = Number(process.env.BENCH_WEBHOOK_WALLETS ?? 50);
/** Produced and delivered first but not measured: a fresh embedded PGlite runs its first seconds of statements far slower (WASM warm-up). */
const WARMUP_SECONDS = Number(process.env.BENCH_WEBHOOK_WARMUP_SECONDS ?? 5);

const here = path.dirname(fileURLToPath(import.meta.url));
const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-webhooks-'));
let receiverProcess: ChildProcess | undefined;
let drop: (() => Promise<void>) | undefined;

async function openBenchDatabase(): Promise<Database> {
  const base = process.env.BENCH_DATABASE_URL;
  if (!base) return openDatabase({ dataDir: path.join(dataDir, 'db') });
  const scratch = await createScratchDatabase(base, 'bench_webhooks');
  drop = scratch.drop;
  return openDatabase({ databaseUrl: scratch.url });
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

async function main() {
  const arrivals = new Map<string, number>();
  let duplicates = 0;
  receiverProcess = fork(path.join(here, 'webhook-receiver.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const receiverUrl = await new Promise<string>((resolve) => {
    receiverProcess!.on('message', (message: { url?: string; arrivals?: Array<[string, number]> }) => {
      if (message.url) resolve(message.url);
      for (const [id, at] of message.arrivals ?? []) {
        if (arrivals.has(id)) duplicates++;
        else arrivals.set(id, at);
      }
    });
  });

  const database = await openBenchDatabase();
  const config = loadConfig({ ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, WEBHOOK_CA_FILE: TEST_CA_FILE, DATABASE_URL: '' });
  const services = await createServices(config, { database });
  const issued = await services.apiKeys.create({ partner: `bench-${randomUUID()}`, plan: 'scale', rateLimitPerMinute: 0 });
  const scope = { apiKeyId: issued.apiKeyId, projectId: issued.projectId };
  await services.webhooks.set(scope, { url: receiverUrl, eventTypes: ['transaction.signed'] });
  const worker = startWebhookWorker({ delivery: services.webhookDelivery, pollMs: config.webhooks.pollMs, logger: createLogger('warn') });

  const wallets = Array.from({ length: WALLETS }, () => randomUUID());
  const warmup = await produce(WARMUP_SECONDS);
  const measured = await produce(SECONDS);
  const total = measured.enqueued.size;
  await new Promise((resolve) => setTimeout(resolve, 200));
  await worker.stop();

  const stats = (enqueued: Map<string, number>) => {
    const latencies = [...enqueued].filter(([id]) => arrivals.has(id)).map(([id, at]) => arrivals.get(id)! - at).sort((a, b) => a - b);
    return {
      events: enqueued.size,
      delivered: latencies.length,
      latencyMs: latencies.length
        ? { p50: percentile(latencies, 50), p90: percentile(latencies, 90), p99: percentile(latencies, 99), max: latencies.at(-1)! }
        : null,
    };
  };
  const figures = stats(measured.enqueued);
  const result = {
    database: database.kind,
    rate: RATE,
    seconds: SECONDS,
    producedPerSecond: measured.producedPerSecond,
    ...figures,
    missing: total - figures.delivered,
    duplicates,
    targetP99Ms: 1000,
    meetsTarget: figures.delivered === total && (figures.latencyMs?.p99 ?? Infinity) <= 1000,
    warmup: { seconds: WARMUP_SECONDS, ...stats(warmup.enqueued) },
  };
  process.stdout.write(`${JSON.stringify(result)}\n`);
  await services.close();
  await database.close();

  /** Writes RATE events per second for `seconds`, then waits until they have all arrived (at most 60 s). */
  async function produce(seconds: number) {
    const enqueued = new Map<string, number>();
    const total = RATE * seconds;
    const started = Date.now();
    let produced = 0;
    const inFlight = new Set<Promise<void>>();
    // Open loop: event n is due at started + n / RATE; each is written on its own, like a signature's
    // audit row and event (one statement), whatever the latency of the previous one.
    while (produced < total) {
      const due = Math.min(total, Math.floor(((Date.now() - started) / 1000) * RATE) + 1);
      while (produced < due) {
        const walletId = wallets[produced % wallets.length]!;
        const event: NewEvent = {
          id: newEventId(),
          projectId: issued.projectId,
          type: 'transaction.signed',
          data: { userId: null, walletId, walletAddress: '0x0000000000000000000000000000000000000000', chainId: null, signedAt: new Date().toISOString() },
        };
        produced++;
        const write = services.stores.audit
          .append({ projectId: issued.projectId, apiKeyId: issued.apiKeyId, walletId, requestId: null, action: 'wallet.sign_message', details: {} }, [event])
          .then(() => void enqueued.set(event.id, Date.now()));
        inFlight.add(write);
        void write.finally(() => inFlight.delete(write));
      }
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    await Promise.all(inFlight);
    const producedPerSecond = Math.round(total / ((Date.now() - started) / 1000));
    const deadline = Date.now() + 60_000;
    while ([...enqueued.keys()].some((id) => !arrivals.has(id)) && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 50));
    return { enqueued, producedPerSecond };
  }
}

try {
  await main();
} finally {
  receiverProcess?.kill();
  await drop?.().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
}
