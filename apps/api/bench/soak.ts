/**
 * npm run soak — proves from outside that killing service processes never strands a wallet (a
 * script, not part of `npm test`; everything on 127.0.0.1; it stops by itself).
 *
 * Set-up: a scratch database on the PostgreSQL server of TEST_DATABASE_URL (default
 * postgresql://postgres@127.0.0.1:5432/postgres, trust auth; dropped at the end); one anvil started
 * here by startLocalDevnets, mining a block every second (interval mining, as in production: at any
 * kill some transactions sit in the pool unmined, so the killed process's `submitted` records must
 * be finished by the other process's monitor; 1 s keeps each transfer's confirmation within a few
 * seconds, so what is still open after the quiet period is stuck, not slow, and the pool mines 5
 * transfers per block at the default rate); the HTTPS webhook receiver of bench/webhook-receiver.mjs
 * in its own process (the services trust its test CA through WEBHOOK_CA_FILE); TWO service processes
 * as `npm start` runs them (LOCAL_DEVNETS=off, CHAINS naming the anvil, workers on in both) on the
 * one database and one data directory (the local key-encryption key file); an API key from the keys
 * CLI, its webhook endpoint (webhooks CLI) subscribed to the transaction events; SOAK_WALLETS EVM
 * wallets created through POST /v1/wallets, each given 1 ETH by the faucet.
 *
 * Traffic (soak-traffic.ts): SOAK_TRANSFERS native transfers at SOAK_RATE per second over the
 * wallets, each to its own recipient with its own value (its payment is identifiable on chain),
 * each with its own Idempotency-Key; every SOAK_DUPLICATE_EVERY-th is sent again with the same key.
 * A send goes to one process at random; on a refused or reset connection, a 5xx or a 409 "still in
 * progress" it is retried, same request and key, on the other living process with a short backoff,
 * until a final answer (at most SOAK_REQUEST_DEADLINE_S per send). Meanwhile every SOAK_KILL_EVERY
 * seconds (a random value in the range) one process, A and B in turn, is SIGKILLed and started again
 * on the same database; the other one always listens at that moment. By default the kill is aimed
 * inside a request in flight to the victim (see killLoop); SOAK_KILL_AIM=any kills at the moment
 * it is due.
 *
 * Then a quiet period of at most SOAK_QUIET_S seconds, ending early once no record is pending or
 * submitted and every event of the subscribed types has reached the receiver; then the report
 * (soak-report.ts), as a table and as one JSON line (the last line of stdout). Exit code 1 when a
 * record is not confirmed, a wallet has a nonce gap or is stranded, a payment executed on chain more
 * than once, or a send never got a final answer; 0 otherwise.
 *
 * Parameters (environment; the defaults are the acceptance run, about 23 minutes):
 *   SOAK_TRANSFERS=6000  SOAK_WALLETS=40  SOAK_RATE=5  SOAK_KILL_EVERY=15-20  SOAK_QUIET_S=150
 *   SOAK_DUPLICATE_EVERY=8  SOAK_REQUEST_DEADLINE_S=180  SOAK_KILL_AIM=request  TEST_DATABASE_URL (the server only)
 * The services read the rest of the environment as usual (e.g. IDEMPOTENCY_LEASE_MS). Their logs
 * stay in a wallet-soak-logs-* directory under the system temp directory, named in the report.
 * Ctrl-C stops it: children, anvil and the scratch database are cleaned up as at the end.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { createScratchDatabase } from '@wallet/db';
import { LOCAL_EVM_CHAIN_ID, startLocalDevnets, type LocalDevnets } from '../src/local/devnets.ts';
import { TEST_CA_FILE } from '../src/webhooks/testing/receiver.ts';
import { jsonRpc, mapLimited } from './soak-chain.ts';
import { buildReport, formatReport, type KillRecord } from './soak-report.ts';
import { createServicePair, runCli, type ServicePair, type ServiceSlot } from './soak-services.ts';
import { createTrafficWatch, runTraffic, type SoakWallet, type TrafficWatch } from './soak-traffic.ts';

function wholeNumber(name: string, fallback: number, min = 0): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < min) throw new Error(`${name}: a whole number of at least ${min}`);
  return value;
}
function secondsRange(name: string, fallback: string): [number, number] {
  const match = /^(\d+(?:\.\d+)?)(?:-(\d+(?:\.\d+)?))?$/.exec(process.env[name] ?? fallback);
  if (!match) throw new Error(`${name}: seconds as N or MIN-MAX`);
  const min = Number(match[1]);
  const max = Number(match[2] ?? match[1]);
  if (min <= 0 || max < min) throw new Error(`${name}: 0 < MIN <= MAX`);
  return [min, max];
}

const TRANSFERS = wholeNumber('SOAK_TRANSFERS', 6000, 1);
const WALLETS = wholeNumber('SOAK_WALLETS', 40, 1);
const RATE = Number(process.env.SOAK_RATE ?? 5);
if (!(RATE > 0 && RATE <= 100)) throw new Error('SOAK_RATE: transfers per second, above 0 and at most 100');
const KILL_EVERY = secondsRange('SOAK_KILL_EVERY', '15-20');
const QUIET_S = wholeNumber('SOAK_QUIET_S', 150);
const DUPLICATE_EVERY = wholeNumber('SOAK_DUPLICATE_EVERY', 8);
const KILL_AIM = process.env.SOAK_KILL_AIM ?? 'request';
if (KILL_AIM !== 'request' && KILL_AIM !== 'any') throw new Error('SOAK_KILL_AIM: request or any');
const REQUEST_DEADLINE_S = wholeNumber('SOAK_REQUEST_DEADLINE_S', 180, 1);
const SERVER_URL = process.env.TEST_DATABASE_URL || 'postgresql://postgres@127.0.0.1:5432/postgres';
const BLOCK_SECONDS = 1;
const FUNDING_WEI = 10n ** 18n;
const TRANSACTION_EVENTS = ['transaction.signed', 'send.broadcasted', 'send.confirmed', 'send.failed', 'rest.transaction.confirmed', 'rest.transaction.failed'];

const here = path.dirname(fileURLToPath(import.meta.url));
const runId = Date.now().toString(36);
const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-soak-data-'));
const logDir = mkdtempSync(path.join(tmpdir(), 'wallet-soak-logs-'));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const note = (message: string) => process.stderr.write(`[soak ${new Date().toISOString().slice(11, 19)}] ${message}\n`);

let devnets: LocalDevnets | undefined;
let dropScratch: (() => Promise<void>) | undefined;
let pool: pg.Pool | undefined;
let receiver: ChildProcess | undefined;
let pair: ServicePair | undefined;
let interrupted = false;

let cleaning: Promise<void> | undefined;
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    await pair?.stopAll().catch((error: unknown) => note(`stopping the services: ${String(error)}`));
    receiver?.kill();
    await pool?.end().catch(() => undefined);
    await devnets?.stop().catch(() => undefined);
    await dropScratch?.().catch((error: unknown) => note(`dropping the scratch database: ${String(error)}`));
    rmSync(dataDir, { recursive: true, force: true });
  })();
  return cleaning;
}
// A crash of this process must not leave services behind (anvil has its own exit hook).
process.once('exit', () => pair?.killAllNow());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => {
    interrupted = true;
    note(`${signal}: cleaning up`);
    pair?.killAllNow();
    void cleanUp().finally(() => process.exit(130));
  });
}

/** The receiver in its own process; `arrivals` counts each webhook-id it got. */
async function startReceiver(arrivals: Map<string, number>): Promise<string> {
  receiver = fork(path.join(here, 'webhook-receiver.mjs'), [], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  return new Promise<string>((resolve, reject) => {
    receiver!.once('exit', (code) => reject(new Error(`webhook receiver exited with ${code}`)));
    receiver!.on('message', (message: { url?: string; arrivals?: [string, number][] }) => {
      if (message.url) resolve(message.url);
      for (const [id] of message.arrivals ?? []) arrivals.set(id, (arrivals.get(id) ?? 0) + 1);
    });
  });
}

/**
 * SIGKILLs A and B in turn every KILL_EVERY seconds until `done()`, starting each again at once.
 * Aimed (SOAK_KILL_AIM=request): a transfer request takes some 20 ms here, so at 5 per second a
 * kill at a random moment rarely lands inside one (6 of 6 such kills cut none in a 300-transfer
 * run); at its time the kill waits (at most 3 s) for the next request to the process and lands at
 * a random point within the median request's duration.
 */
async function killLoop(services: ServicePair, watch: TrafficWatch, done: () => boolean, kills: KillRecord[]): Promise<void> {
  const between = () => (KILL_EVERY[0] + Math.random() * (KILL_EVERY[1] - KILL_EVERY[0])) * 1000;
  let nextAt = Date.now() + between();
  for (let turn = 0; ; turn++) {
    while (Date.now() < nextAt && !done()) await sleep(Math.min(250, nextAt - Date.now()));
    const victim: ServiceSlot = services.slots[turn % 2]!;
    const other: ServiceSlot = services.slots[(turn + 1) % 2]!;
    while (other.url === null && !done()) await sleep(100);
    if (done()) return;
    if (KILL_AIM === 'request' && (await watch.nextAttemptTo(victim.name, 3_000))) await sleep(Math.random() * watch.medianMs());
    const requestsInFlight = watch.inFlight(victim.name);
    const killedAt = Date.now();
    await services.kill(victim);
    await services.start(victim);
    const restartSeconds = (Date.now() - killedAt) / 1000;
    kills.push({ slot: victim.name, requestsInFlight, restartSeconds });
    note(`kill ${kills.length}: SIGKILLed ${victim.name} with ${requestsInFlight} request(s) in flight, listening again after ${restartSeconds.toFixed(1)} s`);
    nextAt = killedAt + between();
  }
}

async function main(): Promise<boolean> {
  const startedAt = Date.now();
  const arrivals = new Map<string, number>();
  const [chain, scratch, receiverUrl] = await Promise.all([
    // The Solana devnet comes with it; a slot an hour keeps it idle.
    startLocalDevnets({ blockTimeSeconds: BLOCK_SECONDS, slotMs: 3_600_000 }),
    createScratchDatabase(SERVER_URL, 'soak'),
    startReceiver(arrivals),
  ]);
  devnets = chain;
  dropScratch = scratch.drop;
  pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
  pool.on('error', () => undefined);
  const db = pool;
  const query = async <T>(text: string, values: unknown[] = []) => (await db.query(text, values)).rows as T[];
  const rpc = jsonRpc(chain.evmRpcUrl);

  const usdc = chain.directory.list().find((c) => c.type === 'EVM')!.usdc!.address;
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    APP_ENV: 'local',
    DATA_DIR: dataDir,
    PORT: '0',
    DATABASE_URL: scratch.url,
    LOG_LEVEL: 'info',
    LOCAL_DEVNETS: 'off',
    WORKERS: 'on',
    CONSOLE: 'off',
    WEBHOOK_CA_FILE: TEST_CA_FILE,
    CHAINS: JSON.stringify([{ type: 'EVM', chainId: LOCAL_EVM_CHAIN_ID, rpcUrl: chain.evmRpcUrl, isDevnet: true, usdcAddress: usdc }]),
  };
  const services = (pair = createServicePair(env, logDir));
  const [a, b] = services.slots;
  // A first: it migrates the database and writes the key-encryption key file B then reads.
  await services.start(a);
  const [issued] = await Promise.all([
    runCli<{ apiKey: string; apiKeyId: string; projectId: string }>('keys.ts', ['create', '--partner', `soak-${runId}`, '--rate-limit', '0'], env),
    services.start(b),
  ]);
  await runCli('webhooks.ts', ['set', '--key-id', issued.apiKeyId, '--url', receiverUrl, '--events', TRANSACTION_EVENTS.join(',')], env);
  note(`services A ${a.url} and B ${b.url}, anvil ${chain.evmRpcUrl}, receiver ${receiverUrl}, logs ${logDir}`);

  const wallets = await mapLimited(Array.from({ length: WALLETS }, (_, i) => i), 4, async (i): Promise<SoakWallet> => {
    const response = await fetch(`${a.url}/v1/wallets`, {
      method: 'POST',
      headers: { 'x-api-key': issued.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'EVM', userIdentifier: `soak-${runId}-${i}`, userIdentifierType: 'CUSTOM_ID' }),
    });
    const body = (await response.json()) as { id: string; address: string };
    if (response.status !== 201 && response.status !== 200) throw new Error(`wallet creation: ${response.status} ${JSON.stringify(body)}`);
    return { id: body.id, address: body.address };
  });
  await Promise.all(wallets.map((w) => chain.faucet.fund({ type: 'EVM', address: w.address }, 'native', FUNDING_WEI)));
  const fromBlock = Number(await rpc<string>('eth_blockNumber'));
  note(`${WALLETS} wallets funded; ${TRANSFERS} transfers at ${RATE}/s, a kill every ${KILL_EVERY.join('-')} s`);

  // Traffic and kills side by side; the kills stop once every send has its answer.
  const trafficStart = Date.now();
  const progress = createTrafficWatch();
  let trafficDone = false;
  const kills: KillRecord[] = [];
  const ticker = setInterval(
    () => note(`sent ${progress.issued}, settled ${progress.settled} (${progress.answered} answered), ${progress.attempts} attempts, ${kills.length} kills`),
    10_000,
  );
  const traffic = runTraffic(
    {
      transfers: TRANSFERS,
      ratePerSecond: RATE,
      duplicateEvery: DUPLICATE_EVERY,
      chainId: LOCAL_EVM_CHAIN_ID,
      wallets,
      apiKey: issued.apiKey,
      runId,
      living: () => services.living().map((s) => ({ name: s.name, url: s.url! })),
      requestDeadlineMs: REQUEST_DEADLINE_S * 1000,
      interrupted: () => interrupted,
    },
    progress,
  ).finally(() => (trafficDone = true));
  const killing = killLoop(services, progress, () => trafficDone || interrupted, kills);
  const [transfers] = await Promise.all([traffic, killing]).finally(() => clearInterval(ticker));
  const trafficSeconds = (Date.now() - trafficStart) / 1000;

  const quietStart = Date.now();
  for (let round = 0; Date.now() - quietStart < QUIET_S * 1000 && !interrupted; round++) {
    const [open] = await query<{ n: string }>(`SELECT count(*) AS n FROM transaction_records WHERE project_id = $1 AND status IN ('pending', 'submitted')`, [issued.projectId]);
    const [events] = await query<{ n: string }>('SELECT count(*) AS n FROM events WHERE project_id = $1 AND type = ANY($2)', [issued.projectId, TRANSACTION_EVENTS]);
    const undelivered = Number(events!.n) - arrivals.size;
    if (Number(open!.n) === 0 && undelivered <= 0) break;
    if (round % 5 === 0) note(`quiet: ${open!.n} records pending or submitted, ${undelivered} events not delivered`);
    await sleep(2_000);
  }
  const quietSeconds = (Date.now() - quietStart) / 1000;
  if (interrupted) return false;

  const report = await buildReport(
    {
      projectId: issued.projectId,
      wallets,
      transfers,
      services: services.events,
      kills,
      subscribedTypes: TRANSACTION_EVENTS,
      arrivals,
      fromBlock,
      seconds: { total: Math.round((Date.now() - startedAt) / 1000), traffic: Math.round(trafficSeconds), quiet: Math.round(quietSeconds) },
      parameters: { transfers: TRANSFERS, wallets: WALLETS, rate: RATE, killEvery: KILL_EVERY.join('-'), killAim: KILL_AIM, quietS: QUIET_S, duplicateEvery: DUPLICATE_EVERY, blockSeconds: BLOCK_SECONDS },
      logDir,
    },
    query,
    rpc,
  );
  console.log(formatReport(report));
  console.log(JSON.stringify(report));
  return report.ok;
}

let ok = false;
try {
  ok = await main();
} catch (error) {
  console.error(error);
} finally {
  await cleanUp();
}
process.exit(interrupted ? 130 : ok ? 0 : 1);
