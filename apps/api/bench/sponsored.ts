/**
 * npm run bench:sponsored — sponsored (gasless) ERC-20 transfers next to plain ones, end to end on
 * the local devnet (not a test). `-- --postgres` (or BENCH_DATABASE_URL) runs on a fresh database of
 * the PostgreSQL server at BENCH_DATABASE_URL (else TEST_DATABASE_URL); the default is embedded PGlite.
 *
 * Anvil with the sponsorship contracts mining a block every second, the service in this process as
 * `npm start` wires it (createServices + createApp on a loopback port, the monitor worker and the
 * sponsored worker with their default cadences). Two projects of one partner: `sponsored` with
 * sponsorship enabled and BENCH_WALLETS wallets (default 50) holding test USDC and no ETH; `plain`
 * (sponsorship off: the legacy path) with as many wallets holding ETH and USDC. Before the clock:
 * the wallets funded and one warm-up transfer per path (not measured).
 *
 * The clock: each path sends 2 × BENCH_WALLETS transfers of 1 USDC, evenly spread over
 * BENCH_SPREAD_SECONDS (default 50; the paths interleaved, half an interval apart), every wallet's
 * first in the first half and its second in the second, each to a fresh recipient, over real HTTP
 * from a client process. Per transfer: the HTTP answer (202 sponsored, 200 plain) → the poll of the
 * lookup that saw `confirmed` (p50 / p95 / p99 / max, in seconds and blocks), where that time went
 * (the sponsored worker's steps, seen by wrapping the store it saves through; the block times seen
 * by a sampler in a child process), and the gas of each from its receipt (viem): the bundle
 * transaction's gasUsed and the operation's actualGasCost, the first transfer of a wallet (with its
 * EIP-7702 authorization) apart from the later ones, next to the plain transfer's gasUsed.
 * Target: sponsored p99 within 2 blocks of the plain p99. Exit 1 when any transfer did not confirm.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScratchDatabase, openDatabase, type Database } from '@wallet/db';
import { startSupervisedSigner } from '@wallet/signer/client';
import { createPublicClient, http, type Hex, type TransactionReceipt } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { createApp } from '../src/app.ts';
import { startBlockSampler } from './block-sampler.ts';
import { loadConfig } from '../src/config.ts';
import { startLocalDevnets, type LocalDevnets } from '../src/local/devnets.ts';
import { createLogger } from '../src/logger.ts';
import { createServices } from '../src/services.ts';
import { startMonitorWorker } from '../src/workers/monitor-worker.ts';
import { startSponsoredWorker } from '../src/workers/sponsored-worker.ts';

const WALLETS = Number(process.env.BENCH_WALLETS ?? 50);
const SPREAD_MS = Number(process.env.BENCH_SPREAD_SECONDS ?? 50) * 1000;
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 200);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 120_000);
const POSTGRES_URL = process.argv.includes('--postgres') ? (process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL) : process.env.BENCH_DATABASE_URL;
if (process.argv.includes('--postgres') && !POSTGRES_URL) throw new Error('--postgres needs BENCH_DATABASE_URL (or TEST_DATABASE_URL): a PostgreSQL server URL');
const BLOCK_SECONDS = 1;
const BLOCK_MS = BLOCK_SECONDS * 1000;
const TARGET_BLOCKS = 2;
const CHAIN_ID = 84532;
const AMOUNT = 1_000_000n; // 1 test USDC
const PATHS = ['sponsored', 'plain'] as const;
const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sponsored-processes.mjs');
type Path = (typeof PATHS)[number];

const percentile = <T,>(sorted: T[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const sec = (ms: number) => (ms / 1000).toFixed(2);

/** One transfer as its client saw it; `order` 0 is the wallet's first measured transfer (a sponsored one carries the delegation). */
interface Outcome {
  path: Path;
  walletId: string;
  order: number;
  postAt: number;
  answeredAt: number;
  transactionId?: string;
  observedAt?: number;
  status: string;
  error?: unknown;
}

/** What the sponsored worker did to one record, seen through its store: leases and saves (stage, time). */
const trail = new Map<string, { leases: number[]; saves: { at: number; stage: string | null | undefined; status: string | undefined }[] }>();
const trailOf = (id: string) => trail.get(id) ?? (trail.set(id, { leases: [], saves: [] }), trail.get(id)!);

let devnets: LocalDevnets | undefined;
let database: Database | undefined;
let dropScratch: (() => Promise<void>) | undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-sponsored-'));
const stops: (() => Promise<void>)[] = [];
process.once('SIGINT', () => process.exit(130)); // anvil is killed by its exit hook; the rest dies with the process

async function openBenchDatabase(): Promise<Database> {
  if (!POSTGRES_URL) return openDatabase({ dataDir: path.join(dataDir, 'db') });
  const scratch = await createScratchDatabase(POSTGRES_URL, 'bench_sponsored');
  dropScratch = scratch.drop;
  return openDatabase({ databaseUrl: scratch.url });
}

async function main(): Promise<boolean> {
  const loadBefore = loadavg();
  [devnets, database] = await Promise.all([startLocalDevnets({ blockTimeSeconds: BLOCK_SECONDS, slotMs: 3_600_000, sponsorship: true }), openBenchDatabase()]);
  const chain = devnets;
  const db = database;
  const config = loadConfig({ ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' });
  const logger = createLogger('warn');
  // The signer that holds every key, beside the service as `npm start` runs it.
  const signer = await startSupervisedSigner({ env: { ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'warn', SIGNER_EXIT_WITH_PARENT: '1' }, logger });
  const services = await createServices(config, { database: db, chains: chain, logger });
  const server = createApp({ services, logger }).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  stops.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  stops.push(() => services.close(), () => signer.stop());
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  // The sponsored worker's steps, timed: the runner calls these methods of this very store object.
  const store = services.stores.sponsoredOperations;
  const leaseDue = store.leaseDue.bind(store);
  const save = store.save.bind(store);
  store.leaseDue = async (...args) => {
    const leased = await leaseDue(...args);
    const at = Date.now();
    for (const r of leased) trailOf(r.id).leases.push(at);
    return leased;
  };
  store.save = async (owner, id, patch, events, options) => {
    const saved = await save(owner, id, patch, events, options);
    if (saved) trailOf(id).saves.push({ at: Date.now(), stage: patch.stage, status: patch.status });
    return saved;
  };
  const runs = { count: 0, leasing: 0, leased: 0, wallMs: [] as number[] };
  const runner = services.sponsoredRunner;
  const measuredRunner = {
    batchSize: runner.batchSize,
    onDue: runner.onDue,
    async runOnce(only?: readonly string[]) {
      const t = performance.now();
      const result = await runner.runOnce(only);
      runs.count++;
      if (result.leased > 0) {
        runs.leasing++;
        runs.leased += result.leased;
        runs.wallMs.push(performance.now() - t);
      }
      return result;
    },
  };
  const monitorWorker = startMonitorWorker({ monitor: services.monitor, logger });
  const sponsoredWorker = startSponsoredWorker({ runner: measuredRunner, logger }); // idle 200 ms, 2 runs in flight, as the service
  stops.unshift(() => monitorWorker.stop(), () => sponsoredWorker.stop());
  const sampler = startBlockSampler(chain.evmRpcUrl);
  stops.unshift(() => sampler.stop());

  const heads = await chain.gateways.evm(CHAIN_ID)!.getHeads();
  const lag = Number(heads.latest - (heads.finalized < heads.latest - 1n ? heads.finalized : heads.latest - 1n));
  const client = createPublicClient({ transport: http(chain.evmRpcUrl) });

  const keys = {
    sponsored: await services.apiKeys.create({ partner: 'bench-sponsored', project: 'sponsored', plan: 'scale', rateLimitPerMinute: 0 }),
    plain: await services.apiKeys.create({ partner: 'bench-sponsored', project: 'plain', plan: 'scale', rateLimitPerMinute: 0 }),
  };
  // The bench measures latency, not the budget: a daily budget that 2 × 100 operations cannot reach.
  const settings = await services.sponsorship.change(await services.policies.operatorScope(keys.sponsored.projectId, 'development'), 'enable', { dailyBudgetWei: (10n ** 19n).toString() });
  const sponsorshipChain = services.sponsorshipChains.find((c) => c.chainId === CHAIN_ID)!;
  const relayer = services.localDevnets!.evm.find((e) => e.chainId === CHAIN_ID)!.sponsorship!.relayer as Hex;
  const usdc = chain.directory.list().find((c) => c.type === 'EVM' && c.chainId === String(CHAIN_ID))?.usdc?.address as Hex | undefined;
  if (!usdc) throw new Error('the devnet has no test USDC');

  async function api(apiKey: string, method: string, urlPath: string, body?: unknown) {
    const response = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Record<string, any> };
  }
  async function fundedWallet(p: Path, label: string): Promise<string> {
    const wallet = await api(keys[p].apiKey, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: label, userIdentifierType: 'CUSTOM_ID' });
    if (wallet.status !== 201) throw new Error(`wallet creation: ${wallet.status} ${JSON.stringify(wallet.body)}`);
    const id = wallet.body.id as string;
    for (const [token, amount] of p === 'plain' ? [['native', '1'], ['usdc', '100']] : [['usdc', '100']]) {
      const funded = await api(keys[p].apiKey, 'POST', '/v1/local/faucet', { walletId: id, amount, token });
      if (funded.status !== 200) throw new Error(`faucet: ${funded.status} ${JSON.stringify(funded.body)}`);
    }
    return id;
  }

  const clients = spawn(process.execPath, [CHILD, 'clients'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  stops.push(async () => void clients.kill());
  type Job = { path: Path; apiKey: string; walletId: string; atMs: number; body: unknown; key: string; expect: number };
  const send = (jobs: Job[], timeoutMs = TIMEOUT_MS) =>
    new Promise<Omit<Outcome, 'order'>[]>((resolve) => {
      clients.once('message', (message: { results: Omit<Outcome, 'order'>[] }) => resolve(message.results));
      clients.send({ baseUrl, pollMs: POLL_MS, timeoutMs, startAt: Date.now() + 200, jobs });
    });
  const job = (p: Path, walletId: string, atMs: number, tag: string): Job => ({
    path: p,
    apiKey: keys[p].apiKey,
    walletId,
    atMs,
    body: { to: privateKeyToAccount(generatePrivateKey()).address, value: AMOUNT.toString(), chainId: CHAIN_ID, tokenAddress: usdc },
    key: `bench-${tag}`,
    expect: p === 'sponsored' ? 202 : 200,
  });

  // Before the clock: the wallets funded, one warm-up transfer per path.
  const fundStart = Date.now();
  const wallets = {
    sponsored: await Promise.all(Array.from({ length: WALLETS }, (_, i) => fundedWallet('sponsored', `bench-sponsored-${i}`))),
    plain: await Promise.all(Array.from({ length: WALLETS }, (_, i) => fundedWallet('plain', `bench-plain-${i}`))),
  };
  const warmups = await send(await Promise.all(PATHS.map(async (p) => job(p, await fundedWallet(p, `bench-${p}-warmup`), 0, `${p}-warmup`))), 60_000);
  const fundSeconds = (Date.now() - fundStart) / 1000; // with the warm-up
  if (warmups.some((w) => w.status !== 'confirmed')) throw new Error(`warm-up did not confirm: ${JSON.stringify(warmups)}`);

  // The clock: 2 × WALLETS transfers per path over SPREAD_MS, one at a random moment of each of its
  // path's equal slots (seeded: the same schedule every run), so no path sends in step with the blocks.
  const interval = SPREAD_MS / (2 * WALLETS);
  let seed = 0x5eed;
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const jobs: (Job & { order: number })[] = [];
  for (let k = 0; k < 2 * WALLETS; k++) {
    const i = k % WALLETS;
    const order = k < WALLETS ? 0 : 1;
    for (const p of PATHS) jobs.push({ ...job(p, wallets[p][i]!, (k + random()) * interval, `${p}-${i}-${order}`), order });
  }
  // What the paymaster's deposit and the relayer's balance (the beneficiary of handleOps) did over the round.
  const funds = async () => {
    const [deposit, relayerWei] = await Promise.all([
      client.readContract({ address: sponsorshipChain.entryPoint, abi: entryPoint08Abi, functionName: 'balanceOf', args: [sponsorshipChain.paymaster] }),
      client.getBalance({ address: relayer }),
    ]);
    return { deposit, relayerWei };
  };
  const fundsBefore = await funds();
  const cpuStart = process.cpuUsage();
  const wallStart = Date.now();
  const results = await send(jobs.map(({ order: _order, ...j }) => j));
  const wallMs = Date.now() - wallStart;
  const processCpu = process.cpuUsage(cpuStart);
  const loadAfter = loadavg();
  const fundsAfter = await funds();
  await sampler.stop();
  stops.shift();
  const outcomes: Outcome[] = results.map((r, n) => ({ ...r, order: jobs[n]!.order }));
  const expected = 4 * WALLETS;
  const confirmed = outcomes.filter((o) => o.status === 'confirmed');
  const bad = outcomes.filter((o) => o.status !== 'confirmed');

  // The records as stored, and the receipts of the transactions that carried them.
  type Row = { id: string; execution_mode: string; hash: string | null; actual_gas_cost: string | null; monitoring: unknown; submitted_at: Date | null; resolved_at: Date | null };
  const rows = await db.query<Row>(`SELECT id, execution_mode, hash, actual_gas_cost, monitoring, submitted_at, resolved_at FROM transaction_records WHERE id = ANY($1::uuid[])`, [
    confirmed.map((o) => o.transactionId),
  ]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  const winning = (r: Row) => ((typeof r.monitoring === 'string' ? JSON.parse(r.monitoring) : r.monitoring) as { winningHash?: string } | null)?.winningHash ?? r.hash!;
  const receipts = new Map<string, TransactionReceipt>();
  await Promise.all(rows.map(async (r) => receipts.set(r.id, await client.getTransactionReceipt({ hash: winning(r) as Hex }))));
  const modeMismatch = confirmed.filter((o) => byId.get(o.transactionId!)?.execution_mode !== (o.path === 'sponsored' ? 'sponsored' : 'legacy')).length;

  const time = (d: Date | null | undefined) => (d ? new Date(d).getTime() : NaN);
  const measured = confirmed.map((o) => {
    const row = byId.get(o.transactionId!)!;
    const receipt = receipts.get(o.transactionId!)!;
    const block = Number(receipt.blockNumber);
    const head = sampler.headAt(o.answeredAt);
    const landed = sampler.seenAt(block);
    const covered = sampler.seenAt(block + lag);
    const resolved = time(row.resolved_at);
    const latencyMs = o.observedAt! - o.answeredAt;
    // Sponsored: the worker's own steps. Plain: the broadcast happened before the answer.
    const steps = trail.get(o.transactionId!);
    const firstLease = steps?.leases[0] ?? NaN;
    const signed = steps?.saves.find((s) => s.stage === 'signed')?.at ?? NaN;
    const sent = o.path === 'sponsored' ? (steps?.saves.find((s) => s.stage === 'submitted')?.at ?? time(row.submitted_at)) : time(row.submitted_at);
    const parts =
      o.path === 'sponsored'
        ? { pickup: firstLease - o.answeredAt, sign: signed - firstLease, submit: sent - signed, toBlock: landed - sent }
        : { pickup: 0, sign: 0, submit: 0, toBlock: landed - o.answeredAt };
    return {
      o,
      latencyMs,
      floorMs: sampler.seenAt(head + 1 + lag) - o.answeredAt,
      blocksToInclusion: block - head,
      landedLate: block - sampler.firstAfter(sent),
      checks: steps ? steps.saves.filter((s) => s.at > sent).length : 0,
      parts: { ...parts, confirmations: covered - landed, resolve: resolved - covered, observe: o.observedAt! - resolved },
      gasUsed: Number(receipt.gasUsed),
      feeWei: receipt.gasUsed * receipt.effectiveGasPrice,
      gasPrice: receipt.effectiveGasPrice,
      actualGasCost: row.actual_gas_cost === null ? null : BigInt(row.actual_gas_cost),
      authorization: receipt.type === 'eip7702',
    };
  });
  type Measured = (typeof measured)[number];

  const PARTS = ['pickup', 'sign', 'submit', 'toBlock', 'confirmations', 'resolve', 'observe'] as const;
  const dist = (xs: number[], digits = 2) => {
    if (xs.length === 0) return { p50: NaN, p95: NaN, p99: NaN, max: NaN };
    const s = [...xs].sort((a, b) => a - b);
    return { p50: +percentile(s, 50).toFixed(digits), p95: +percentile(s, 95).toFixed(digits), p99: +percentile(s, 99).toFixed(digits), max: +s.at(-1)!.toFixed(digits) };
  };
  const latencyOf = (group: Measured[]) => {
    const ms = group.map((m) => m.latencyMs);
    return { seconds: dist(ms.map((x) => x / 1000)), blocks: dist(ms.map((x) => x / BLOCK_MS)) };
  };
  const summarize = (p: Path) => {
    const group = measured.filter((m) => m.o.path === p);
    if (group.length === 0) return null;
    const worst = group.reduce((a, b) => (b.latencyMs > a.latencyMs ? b : a));
    const tail = [...group].sort((a, b) => b.latencyMs - a.latencyMs).slice(0, Math.max(1, Math.ceil(group.length / 10)));
    const meanParts = (g: Measured[]) => Object.fromEntries(PARTS.map((k) => [k, Math.round(mean(g.map((m) => m.parts[k])))]));
    return {
      path: p,
      confirmed: group.length,
      latency: latencyOf(group),
      byOrder: [0, 1].map((order) => ({ order, ...latencyOf(group.filter((m) => m.o.order === order)) })),
      answerMs: dist(group.map((m) => m.o.answeredAt - m.o.postAt), 0),
      floorSeconds: dist(group.map((m) => m.floorMs / 1000)),
      blocksToInclusion: { mean: +mean(group.map((m) => m.blocksToInclusion)).toFixed(2), ...dist(group.map((m) => m.blocksToInclusion), 0) },
      landedAfterFirstBlock: group.filter((m) => m.landedLate > 0).length,
      meanMs: meanParts(group),
      slowestTenthMeanMs: meanParts(tail),
      workerChecksAfterSending: p === 'sponsored' ? dist(group.map((m) => m.checks), 0) : null,
      worst: { seconds: +(worst.latencyMs / 1000).toFixed(2), order: worst.o.order, ms: Object.fromEntries(PARTS.map((k) => [k, Math.round(worst.parts[k])])) },
    };
  };
  const median = (xs: bigint[]) => percentile([...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)), 50).toString();
  const gasOf = (group: Measured[]) => {
    if (group.length === 0) return null;
    const sponsored = group[0]!.actualGasCost !== null;
    return {
      count: group.length,
      gasUsed: dist(group.map((m) => m.gasUsed), 0),
      feeWei: median(group.map((m) => m.feeWei)),
      actualGasCostWei: sponsored ? median(group.map((m) => m.actualGasCost!)) : null,
      /** The gas the EntryPoint charged the paymaster for, at the bundle's own gas price. */
      chargedGas: sponsored ? dist(group.map((m) => Number(m.actualGasCost! / m.gasPrice)), 0) : null,
    };
  };
  const sponsoredGroup = measured.filter((m) => m.o.path === 'sponsored');
  const plainGroup = measured.filter((m) => m.o.path === 'plain');
  const summary = { sponsored: summarize('sponsored'), plain: summarize('plain') };
  const p99 = (s: ReturnType<typeof summarize>) => s?.latency.blocks.p99 ?? NaN;
  const overPlainBlocks = +(p99(summary.sponsored) - p99(summary.plain)).toFixed(2);
  const result = {
    bench: 'sponsored',
    at: new Date().toISOString(),
    node: process.version,
    machine: `${cpus().length} × ${cpus()[0]?.model ?? 'cpu'}`,
    database: db.kind,
    walletsPerPath: WALLETS,
    transfersPerPath: 2 * WALLETS,
    spreadSeconds: SPREAD_MS / 1000,
    blockSeconds: BLOCK_SECONDS,
    confirmationLagBlocks: lag,
    pollMs: POLL_MS,
    sponsorship: { gasCapWei: settings.gasCapWei, dailyBudgetWei: settings.dailyBudgetWei },
    fundingSeconds: +fundSeconds.toFixed(1),
    wallSeconds: +(wallMs / 1000).toFixed(1),
    loadAverage: { before: loadBefore.map((l) => +l.toFixed(2)), after: loadAfter.map((l) => +l.toFixed(2)) },
    confirmed: confirmed.length,
    expected,
    executionModeMismatches: modeMismatch,
    notConfirmed: bad.map((o) => ({ path: o.path, walletId: o.walletId, transactionId: o.transactionId, status: o.status, error: o.error })),
    paths: summary,
    gas: {
      sponsoredFirst: gasOf(sponsoredGroup.filter((m) => m.o.order === 0)),
      sponsoredLater: gasOf(sponsoredGroup.filter((m) => m.o.order === 1)),
      sponsoredFirstCarryingAuthorization: sponsoredGroup.filter((m) => m.o.order === 0 && m.authorization).length,
      sponsoredLaterCarryingAuthorization: sponsoredGroup.filter((m) => m.o.order === 1 && m.authorization).length,
      plainFirst: gasOf(plainGroup.filter((m) => m.o.order === 0)),
      plainLater: gasOf(plainGroup.filter((m) => m.o.order === 1)),
    },
    funds: {
      depositDrawnWei: (fundsBefore.deposit - fundsAfter.deposit).toString(),
      actualGasCostSumWei: sponsoredGroup.reduce((n, m) => n + m.actualGasCost!, 0n).toString(),
      relayerBalanceChangeWei: (fundsAfter.relayerWei - fundsBefore.relayerWei).toString(),
      relayerFeesSumWei: sponsoredGroup.reduce((n, m) => n + m.feeWei, 0n).toString(),
    },
    sponsoredWorker: {
      runs: runs.count,
      runsThatLeased: runs.leasing,
      recordsLeased: runs.leased,
      leasingRunWallMs: runs.wallMs.length ? dist(runs.wallMs, 0) : null,
    },
    processCpuMsPerTransfer: +((processCpu.user + processCpu.system) / 1000 / Math.max(1, confirmed.length)).toFixed(1),
    target: { rule: `sponsored p99 ≤ plain p99 + ${TARGET_BLOCKS} blocks`, sponsoredP99MinusPlainP99Blocks: overPlainBlocks, holds: overPlainBlocks <= TARGET_BLOCKS },
  };

  const out: string[] = [];
  out.push(
    `\nsponsored bench — ${result.at}, node ${process.version}, ${result.machine}, ${db.kind === 'pglite' ? 'embedded PGlite' : 'PostgreSQL'}`,
    `${WALLETS} wallets per path, ${2 * WALLETS} transfers of 1 USDC per path over ${SPREAD_MS / 1000} s (paths interleaved); ${BLOCK_SECONDS} s blocks, confirmed once the head is ${lag} block(s) past the block; client polls every ${POLL_MS} ms; load ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after`,
    '',
    `${'path'.padEnd(11)}${'ok'.padStart(5)}  answer → confirmed p50 / p95 / p99 / max (s = blocks)   first transfer p99   second p99   floor p50   HTTP answer p50 / p99`,
  );
  for (const s of [summary.sponsored, summary.plain]) {
    if (!s) continue;
    const l = s.latency.seconds;
    out.push(
      `${s.path.padEnd(11)}${String(s.confirmed).padStart(5)}  ${`${l.p50.toFixed(2)} / ${l.p95.toFixed(2)} / ${l.p99.toFixed(2)} / ${l.max.toFixed(2)}`.padEnd(55)}` +
        `${`${s.byOrder[0]!.seconds.p99.toFixed(2)} s`.padEnd(21)}${`${s.byOrder[1]!.seconds.p99.toFixed(2)} s`.padEnd(13)}${`${s.floorSeconds.p50.toFixed(2)} s`.padEnd(12)}${s.answerMs.p50} / ${s.answerMs.p99} ms`,
    );
  }
  out.push(
    `target: sponsored p99 within ${TARGET_BLOCKS} blocks of the plain p99 — ${overPlainBlocks.toFixed(2)} blocks: ${result.target.holds ? 'holds' : 'does NOT hold'}`,
    '',
    'where the time goes (mean per transfer, s; sums to answer → confirmed): sponsored worker (pickup: answer → leased; sign; submit: signed → relayer tx sent),',
    'chain (to block: sent → its block seen, plain: answer → block; confirmations), resolve (confirmed by the chain → record confirmed), client poll',
  );
  out.push(`${''.padEnd(22)}${PARTS.map((k) => (k === 'toBlock' ? 'to block' : k).padStart(14)).join('')}   blocks to inclusion mean / p99 / max`);
  for (const s of [summary.sponsored, summary.plain]) {
    if (!s) continue;
    for (const [label, parts] of [[`${s.path} all`, s.meanMs], [`${s.path} slowest 10 %`, s.slowestTenthMeanMs]] as const) {
      out.push(`${label.padEnd(22)}${PARTS.map((k) => sec(parts[k]!).padStart(14)).join('')}${label.endsWith('all') ? `   ${s.blocksToInclusion.mean} / ${s.blocksToInclusion.p99} / ${s.blocksToInclusion.max}` : ''}`);
    }
    out.push(`${`${s.path} worst`.padEnd(22)}${PARTS.map((k) => sec(s.worst.ms[k]!).padStart(14)).join('')}   (${s.worst.seconds} s, ${s.worst.order === 0 ? 'first' : 'second'} transfer)`);
  }
  const g = result.gas;
  const gasLine = (label: string, x: ReturnType<typeof gasOf>) =>
    x
      ? `${label.padEnd(38)}${`${x.gasUsed.p50} (${x.gasUsed.p99 === x.gasUsed.p50 ? 'all' : `p99 ${x.gasUsed.p99}`})`.padEnd(22)}${(x.actualGasCostWei ?? '—').padEnd(22)}${String(x.chargedGas?.p50 ?? '—').padEnd(15)}${x.feeWei}`
      : `${label}: none confirmed`;
  out.push(
    '',
    `${'gas per operation (p50)'.padEnd(38)}${'tx gasUsed'.padEnd(22)}${'actualGasCost (wei)'.padEnd(22)}${'≈ gas charged'.padEnd(15)}tx fee: gasUsed × price (wei)`,
    gasLine(`sponsored first (${g.sponsoredFirstCarryingAuthorization} with 7702 auth.)`, g.sponsoredFirst),
    gasLine(`sponsored later (${g.sponsoredLaterCarryingAuthorization} with 7702 auth.)`, g.sponsoredLater),
    gasLine('plain ERC-20 first', g.plainFirst),
    gasLine('plain ERC-20 later', g.plainLater),
    `paymaster deposit drawn ${result.funds.depositDrawnWei} wei (Σ actualGasCost ${result.funds.actualGasCostSumWei}); relayer balance changed by ${result.funds.relayerBalanceChangeWei} wei (it paid Σ ${result.funds.relayerFeesSumWei} in fees)`,
    '',
    `sponsored worker: ${runs.count} runs, ${runs.leasing} leased ${runs.leased} records (a record is leased once per step or check); leasing run wall p50 / p99 ${result.sponsoredWorker.leasingRunWallMs?.p50} / ${result.sponsoredWorker.leasingRunWallMs?.p99} ms; checks after sending p50 / max ${summary.sponsored?.workerChecksAfterSending?.p50} / ${summary.sponsored?.workerChecksAfterSending?.max}`,
    `process CPU ${result.processCpuMsPerTransfer} ms per transfer; confirmed ${confirmed.length} of ${expected}${bad.length ? ` — FAILED: ${bad.length} ended otherwise` : ''}${modeMismatch ? `; ${modeMismatch} took the other execution mode` : ''}`,
  );
  console.log(out.join('\n'));
  for (const o of bad) console.error(`not confirmed: ${o.path} ${o.transactionId ?? '(no record)'} ended ${o.status}: ${JSON.stringify(o.error)}`);
  console.log(JSON.stringify(result));
  return confirmed.length === expected && bad.length === 0 && modeMismatch === 0;
}

let ok = false;
try {
  ok = await main();
} catch (error) {
  console.error(error);
} finally {
  for (const stop of stops) await stop().catch((error: unknown) => console.error('clean-up:', error));
  await database?.close().catch(() => undefined);
  await devnets?.stop().catch(() => undefined);
  await dropScratch?.().catch(() => undefined);
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
