/**
 * npm run bench:yield — yield deposits and withdrawals end to end on the local devnet (not a test).
 *
 * Anvil with the yield contracts (Aave V3 pool, MetaMorpho vault) mining a block every second, the
 * service in this process as `npm start` wires it (createServices + createApp on a loopback port,
 * the monitor worker and the yield worker with their default cadences), embedded PGlite in its
 * worker thread (or a fresh database of the PostgreSQL server at BENCH_DATABASE_URL).
 *
 * BENCH_WALLETS wallets (default 50) are created and funded (native + USDC) before the clock
 * starts, and one extra wallet runs a deposit and withdrawal first as a warm-up (not measured).
 * Then every wallet at once: POST a deposit of BENCH_YIELD_AMOUNT USDC (default 10), poll it until
 * `confirmed`, POST a withdrawal of `all`, poll it until `confirmed`. Markets (BENCH_YIELD_MARKETS):
 * `split` (default: even wallets the pool, odd ones the vault), `pool` or `vault`.
 *
 * Per phase: time from POST to the poll that saw `confirmed` (p50 / p99 / max), next to the floor
 * set by the chain, computed per operation from the block that was the head at its POST: each step
 * lands in the next block and counts as confirmed once the monitor's coverage (min(finalized,
 * latest − 1)) reaches it; the next step is sent in that moment. Block times are seen by a sampler
 * in a child process (eth_blockNumber every 25 ms), so a busy main thread does not move them.
 * Target (issue #13): p99 within 3 blocks of that floor.
 *
 * CPU: process.cpuUsage() around every yield runner run (the whole process, PGlite's thread
 * included, so it also counts whatever ran concurrently: HTTP, monitor, the bench's polling), and
 * the process's total CPU over the measured window, each per operation; and an estimate of the
 * yield runner's own share: its runs' CPU minus the process's rate outside runs over their wall time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createScratchDatabase, openDatabase, type Database } from '@wallet/db';
import { createApp } from '../src/app.ts';
import { startBlockSampler } from './block-sampler.ts';
import { loadConfig } from '../src/config.ts';
import { startLocalDevnets, type LocalDevnets } from '../src/local/devnets.ts';
import { createLogger } from '../src/logger.ts';
import { createServices } from '../src/services.ts';
import { startMonitorWorker } from '../src/workers/monitor-worker.ts';
import { startYieldWorker } from '../src/workers/yield-worker.ts';

const WALLETS = Number(process.env.BENCH_WALLETS ?? 50);
const MARKETS = process.env.BENCH_YIELD_MARKETS ?? 'split';
const AMOUNT = process.env.BENCH_YIELD_AMOUNT ?? '10';
/** How often each wallet's client polls its operation. */
const POLL_MS = Number(process.env.BENCH_POLL_MS ?? 200);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 180_000);
/** Experiments only: the monitor's active-window check interval (default: the service's, 5 s). */
const MONITOR_ACTIVE_MS = process.env.BENCH_MONITOR_ACTIVE_MS ? Number(process.env.BENCH_MONITOR_ACTIVE_MS) : undefined;
/** Yield runner runs in flight at once (default 3, as the service's yield worker); 1 gives an estimate of the runner's own CPU. */
const YIELD_CONCURRENCY = Number(process.env.BENCH_YIELD_CONCURRENCY ?? 3);
const BLOCK_SECONDS = 1;
const BLOCK_MS = BLOCK_SECONDS * 1000;
const TARGET_BLOCKS = 3;
const CHAIN_ID = 84532;
const POOL = 'poolprov-v3:84532:usdc';
const VAULT = 'vaultprov-v2-base-sepolia-demo-usdc';
if (!['split', 'pool', 'vault'].includes(MARKETS)) throw new Error('BENCH_YIELD_MARKETS: split, pool or vault');
const marketOf = (i: number) => (MARKETS === 'pool' || (MARKETS === 'split' && i % 2 === 0) ? POOL : VAULT);
const marketName = (id: string) => (id === POOL ? 'pool' : 'vault');

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : 0);
const sec = (ms: number) => (ms / 1000).toFixed(2);

interface Outcome {
  walletId: string;
  phase: 'deposit' | 'withdrawal';
  marketId: string;
  operationId: string;
  postAt: number;
  observedAt: number;
  status: string;
  error?: unknown;
}

interface StepRow {
  phase: string;
  created: string;
  submitted: string | null;
  resolved: string | null;
  block: string | null;
  evidence: string | null;
}

let devnets: LocalDevnets | undefined;
let database: Database | undefined;
let dropScratch: (() => Promise<void>) | undefined;
const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-yield-'));
const stops: (() => Promise<void>)[] = [];
process.once('SIGINT', () => process.exit(130)); // anvil is killed by its exit hook; the rest dies with the process

async function openBenchDatabase(): Promise<Database> {
  const base = process.env.BENCH_DATABASE_URL;
  if (!base) return openDatabase({ dataDir: path.join(dataDir, 'db') });
  const scratch = await createScratchDatabase(base, 'bench_yield');
  dropScratch = scratch.drop;
  return openDatabase({ databaseUrl: scratch.url });
}

async function main(): Promise<boolean> {
  const loadBefore = loadavg();
  [devnets, database] = await Promise.all([startLocalDevnets({ blockTimeSeconds: BLOCK_SECONDS, slotMs: 3_600_000, yieldMarkets: true }), openBenchDatabase()]);
  const chain = devnets;
  const db = database;
  const config = loadConfig({ ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' });
  const monitor = MONITOR_ACTIVE_MS ? { cadence: { activeIntervalMs: MONITOR_ACTIVE_MS } } : undefined;
  const services = await createServices(config, { database: db, chains: chain, monitor });
  const logger = createLogger('warn');
  const server = createApp({ services, logger }).listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  stops.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  stops.push(() => services.close());
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const { apiKey } = await services.apiKeys.create({ partner: 'bench-yield', plan: 'scale', rateLimitPerMinute: 0 });

  // The yield runner, measured: process CPU (user + system) and wall time of every run in the window.
  const cpu = { measuring: false, yieldUs: 0, runs: 0, leasingRuns: 0, leased: 0, runMs: 0 };
  const runner = services.yieldRunner;
  const measuredRunner = {
    batchSize: runner.batchSize,
    async runOnce() {
      const c = process.cpuUsage();
      const t = performance.now();
      const result = await runner.runOnce();
      if (cpu.measuring) {
        const d = process.cpuUsage(c);
        cpu.yieldUs += d.user + d.system;
        cpu.runs++;
        cpu.runMs += performance.now() - t;
        if (result.leased > 0) cpu.leasingRuns++;
        cpu.leased += result.leased;
      }
      return result;
    },
  };
  const monitorWorker = startMonitorWorker({ monitor: services.monitor, logger });
  // The yield worker as the service runs it (BENCH_YIELD_CONCURRENCY runs in flight, default 3 like the
  // service); overlapping runs' CPU is counted more than once in the per-run figure.
  const yieldWorker = startYieldWorker({ runner: measuredRunner, concurrency: YIELD_CONCURRENCY, logger });
  stops.unshift(() => monitorWorker.stop(), () => yieldWorker.stop());
  const sampler = startBlockSampler(chain.evmRpcUrl);
  stops.unshift(() => sampler.stop());

  // Confirmation lag: a block B counts as confirmed once the head is at B + lag (min(finalized, latest - 1) >= B).
  const heads = await chain.gateways.evm(CHAIN_ID)!.getHeads();
  const lag = Number(heads.latest - (heads.finalized < heads.latest - 1n ? heads.finalized : heads.latest - 1n));

  async function api(method: string, urlPath: string, body?: unknown, headers: Record<string, string> = {}) {
    const response = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : undefined) as Record<string, any> };
  }

  async function createFundedWallet(label: string): Promise<string> {
    const wallet = await api('POST', '/v1/wallets', { type: 'EVM', userIdentifier: label, userIdentifierType: 'CUSTOM_ID' });
    if (wallet.status !== 201 && wallet.status !== 200) throw new Error(`wallet creation: ${wallet.status} ${JSON.stringify(wallet.body)}`);
    const id = wallet.body.id as string;
    for (const [token, amount] of [['native', '1'], ['usdc', '100']] as const) {
      const funded = await api('POST', '/v1/local/faucet', { walletId: id, amount, token });
      if (funded.status !== 200) throw new Error(`faucet: ${funded.status} ${JSON.stringify(funded.body)}`);
    }
    return id;
  }

  /** Runs deposit-then-withdraw rounds in the clients' process (bench/yield-clients.mjs). */
  const clients = spawn(process.execPath, [path.join(path.dirname(fileURLToPath(import.meta.url)), 'yield-clients.mjs')], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  stops.push(async () => void clients.kill());
  type ClientResult = { ok: true; outcomes: Outcome[] } | { ok: false; error: string };
  const depositThenWithdraw = (jobs: { walletId: string; marketId: string; tag: string }[]) =>
    new Promise<ClientResult[]>((resolve) => {
      clients.once('message', (message: { results: ClientResult[] }) => resolve(message.results));
      clients.send({ baseUrl, apiKey, pollMs: POLL_MS, timeoutMs: TIMEOUT_MS, amount: AMOUNT, jobs });
    });

  // Before the clock: wallets funded, one warm-up round (JIT, prepared statements, PGlite's first seconds).
  const fundStart = Date.now();
  const wallets = await Promise.all(Array.from({ length: WALLETS }, (_, i) => createFundedWallet(`bench-yield-${i}`)));
  const warmWallet = await createFundedWallet('bench-yield-warmup');
  const fundSeconds = (Date.now() - fundStart) / 1000;
  const [warm] = await depositThenWithdraw([{ walletId: warmWallet, marketId: marketOf(0), tag: 'warmup' }]);
  if (!warm!.ok || warm!.outcomes.some((o) => o.status !== 'confirmed')) throw new Error(`warm-up did not confirm: ${JSON.stringify(warm)}`);

  // The clock: every wallet at once.
  const cpuStart = process.cpuUsage();
  const wallStart = Date.now();
  cpu.measuring = true;
  const settled = await depositThenWithdraw(wallets.map((walletId, i) => ({ walletId, marketId: marketOf(i), tag: `bench-${i}` })));
  cpu.measuring = false;
  const wallMs = Date.now() - wallStart;
  const processCpu = process.cpuUsage(cpuStart);
  const loadAfter = loadavg();
  await sampler.stop();
  stops.shift();

  const outcomes = settled.flatMap((s) => (s.ok ? s.outcomes : []));
  const crashed = settled.flatMap((s) => (s.ok ? [] : [s.error]));
  const bad = outcomes.filter((o) => o.status !== 'confirmed');
  const expected = WALLETS * 2;

  // Each operation's steps and their records, as the service stored them (same clock as the client).
  const rows = await db.query<{ id: string; resolved_at: Date | null; steps: StepRow[] }>(
    `SELECT o.id, o.resolved_at,
            json_agg(json_build_object('phase', s.phase, 'created', t.created_at, 'submitted', t.submitted_at, 'resolved', t.resolved_at, 'block', t.block_number::text, 'evidence', t.evidence_at)
                     ORDER BY CASE s.phase WHEN 'approval' THEN 0 ELSE 1 END) AS steps
       FROM yield_operations o JOIN yield_operation_steps s ON s.operation_id = o.id JOIN transaction_records t ON t.id = s.transaction_id
      GROUP BY o.id, o.resolved_at`,
  );
  const byId = new Map(rows.map((r) => [r.id, r]));
  const time = (value: string | Date | null) => (value === null ? NaN : new Date(value).getTime());

  interface Measured {
    outcome: Outcome;
    steps: number;
    latencyMs: number;
    floorMs: number;
    overBlocks: number;
    lostBlocks: number;
    parts: { pickup: number; between: number; finish: number; toBlock: number; confirmations: number; monitor: number; observe: number };
    monitorLags: number[];
    /** Per step: the monitor's first check found no receipt yet (its evidence came with the resolving check). */
    missedFirst: boolean[];
    /** Per step: blocks that came after its sending without it (0 when it landed in the next one). */
    blocksSkipped: number[];
  }
  const measured: Measured[] = outcomes
    .filter((o) => o.status === 'confirmed')
    .map((outcome) => {
      const row = byId.get(outcome.operationId);
      if (!row || row.steps.length === 0) throw new Error(`operation ${outcome.operationId} has no stored steps`);
      const steps = row.steps;
      const opResolved = time(row.resolved_at);
      const head = sampler.headAt(outcome.postAt);
      // Floor: step k lands in the block after the previous step's confirming block; confirmed `lag` blocks later.
      const floorBlock = head + steps.length * (lag + 1);
      const floorMs = sampler.seenAt(floorBlock) - outcome.postAt;
      const parts = { pickup: 0, between: 0, finish: 0, toBlock: 0, confirmations: 0, monitor: 0, observe: outcome.observedAt - opResolved };
      const monitorLags: number[] = [];
      const missedFirst: boolean[] = [];
      const blocksSkipped: number[] = [];
      let previous = outcome.postAt;
      for (const step of steps) {
        const block = Number(step.block);
        const [submitted, resolved] = [time(step.submitted), time(step.resolved)];
        const landed = sampler.seenAt(block);
        const covered = sampler.seenAt(block + lag);
        parts[previous === outcome.postAt ? 'pickup' : 'between'] += submitted - previous;
        parts.toBlock += landed - submitted;
        parts.confirmations += covered - landed;
        parts.monitor += resolved - covered;
        monitorLags.push(resolved - covered);
        missedFirst.push(time(step.evidence) >= resolved);
        blocksSkipped.push(block - sampler.firstAfter(submitted));
        previous = resolved;
      }
      parts.finish = opResolved - previous;
      const latencyMs = outcome.observedAt - outcome.postAt;
      const lastCovered = Number(steps.at(-1)!.block) + lag;
      return { outcome, steps: steps.length, latencyMs, floorMs, overBlocks: (latencyMs - floorMs) / BLOCK_MS, lostBlocks: lastCovered - floorBlock, parts, monitorLags, missedFirst, blocksSkipped };
    });

  /** The operation furthest over its floor, and where its time went (ms). */
  const worstOf = (group: Measured[]) => {
    const w = group.reduce((a, b) => (b.overBlocks > a.overBlocks ? b : a));
    return { overBlocks: +w.overBlocks.toFixed(2), lostBlocks: w.lostBlocks, ms: Object.fromEntries(Object.entries(w.parts).map(([k, v]) => [k, Math.round(v)])) };
  };
  const summarize = (label: string, group: Measured[]) => {
    if (group.length === 0) return null;
    const latency = group.map((m) => m.latencyMs).sort((a, b) => a - b);
    const over = group.map((m) => m.overBlocks).sort((a, b) => a - b);
    const floors = group.map((m) => m.floorMs).sort((a, b) => a - b);
    const steps = Math.max(...group.map((m) => m.steps));
    const nominalFloorBlocks = steps * (lag + 1);
    const lags = group.flatMap((m) => m.monitorLags);
    const missed = group.flatMap((m) => m.missedFirst);
    const lagsWhen = (flag: boolean) => lags.filter((_, i) => missed[i] === flag);
    const skipped = group.flatMap((m) => m.blocksSkipped);
    return {
      label,
      operations: group.length,
      steps,
      latencyMs: { p50: percentile(latency, 50), p99: percentile(latency, 99), max: latency.at(-1)! },
      floorMs: { p50: percentile(floors, 50), min: floors[0]!, max: floors.at(-1)! },
      nominalFloorBlocks,
      p99MinusNominalFloorBlocks: +((percentile(latency, 99) - nominalFloorBlocks * BLOCK_MS) / BLOCK_MS).toFixed(2),
      overFloorBlocks: { p50: +percentile(over, 50).toFixed(2), p99: +percentile(over, 99).toFixed(2), max: +over.at(-1)!.toFixed(2) },
      blocksLostBeforeFinalStep: { mean: +mean(group.map((m) => m.lostBlocks)).toFixed(2), max: Math.max(...group.map((m) => m.lostBlocks)) },
      meanMs: Object.fromEntries((['pickup', 'between', 'finish', 'toBlock', 'confirmations', 'monitor', 'observe'] as const).map((k) => [k, Math.round(mean(group.map((m) => m.parts[k])))])),
      monitorLagMs: { max: Math.max(...lags), over1s: lags.filter((l) => l > 1000).length, steps: lags.length },
      firstCheckBeforeBlock: { steps: lagsWhen(true).length, meanLagMs: Math.round(mean(lagsWhen(true))), othersMeanLagMs: Math.round(mean(lagsWhen(false))) },
      withinTarget: percentile(over, 99) <= TARGET_BLOCKS,
      worst: worstOf(group),
      /** Steps that did not land in the first block after they were sent (the node left them for a later one). */
      landedLate: { steps: skipped.filter((b) => b > 0).length, of: skipped.length, maxBlocks: Math.max(...skipped) },
    };
  };
  const phases = (['deposit', 'withdrawal'] as const).map((p) => summarize(p, measured.filter((m) => m.outcome.phase === p)));
  const perMarket =
    MARKETS === 'split'
      ? (['deposit', 'withdrawal'] as const).flatMap((p) => [POOL, VAULT].map((mk) => summarize(`${p} ${marketName(mk)}`, measured.filter((m) => m.outcome.phase === p && m.outcome.marketId === mk))))
      : [];
  const operations = measured.length;
  const result = {
    at: new Date().toISOString(),
    node: process.version,
    database: db.kind,
    wallets: WALLETS,
    markets: MARKETS,
    amount: AMOUNT,
    blockSeconds: BLOCK_SECONDS,
    confirmationLagBlocks: lag,
    pollMs: POLL_MS,
    monitorActiveIntervalMs: MONITOR_ACTIVE_MS ?? 'default',
    yieldRunsInFlight: YIELD_CONCURRENCY,
    fundingSeconds: +fundSeconds.toFixed(1),
    wallSeconds: +(wallMs / 1000).toFixed(1),
    loadAverage: { before: loadBefore.map((l) => +l.toFixed(2)), after: loadAfter.map((l) => +l.toFixed(2)) },
    confirmed: operations,
    expected,
    notConfirmed: bad.map((o) => ({ phase: o.phase, walletId: o.walletId, operationId: o.operationId, status: o.status, error: o.error })),
    crashed,
    phases: phases.filter((p) => p !== null),
    perMarket: perMarket.filter((p) => p !== null),
    cpu: {
      yieldRunnerMsPerOperation: +(cpu.yieldUs / 1000 / Math.max(1, operations)).toFixed(2),
      yieldRunnerMsTotal: Math.round(cpu.yieldUs / 1000),
      yieldRuns: cpu.runs,
      yieldRunsThatLeased: cpu.leasingRuns,
      operationStepsLeased: cpu.leased,
      yieldRunWallMsTotal: Math.round(cpu.runMs),
      processMsPerOperation: +((processCpu.user + processCpu.system) / 1000 / Math.max(1, operations)).toFixed(2),
      processMsTotal: Math.round((processCpu.user + processCpu.system) / 1000),
      processCoresBusy: +((processCpu.user + processCpu.system) / 1000 / wallMs).toFixed(2),
      // The rest of the process (API, monitor, clients) at its rate outside the runs, removed from the runs' CPU.
      // (Not with overlapping runs, BENCH_YIELD_CONCURRENCY > 1: their wall time exceeds the window's.)
      yieldRunnerOwnMsPerOperationEstimate: YIELD_CONCURRENCY > 1 ? null : +(
        (cpu.yieldUs / 1000 - (((processCpu.user + processCpu.system - cpu.yieldUs) / 1000) * cpu.runMs) / Math.max(1, wallMs - cpu.runMs)) /
        Math.max(1, operations)
      ).toFixed(2),
    },
  };

  // The table.
  const out: string[] = [];
  out.push(
    `\nyield bench — ${result.at}, node ${process.version}, ${WALLETS} wallets (${MARKETS === 'split' ? 'half pool, half vault' : MARKETS}), deposit ${AMOUNT} USDC then withdraw all, ${db.kind === 'pglite' ? 'embedded PGlite' : 'PostgreSQL'}`,
    `${BLOCK_SECONDS} s blocks; a step is confirmed once the head is ${lag} block(s) past its block (min(finalized, latest − 1)); client polls every ${POLL_MS} ms;${MONITOR_ACTIVE_MS ? ` monitor active interval ${MONITOR_ACTIVE_MS} ms (experiment);` : ''}${YIELD_CONCURRENCY !== 3 ? ` ${YIELD_CONCURRENCY} yield run(s) in flight (the service runs 3);` : ''} load average ${loadBefore[0]!.toFixed(2)} before, ${loadAfter[0]!.toFixed(2)} after`,
    '',
    `${'phase'.padEnd(18)}${'ops'.padStart(5)}  POST → confirmed p50 / p99 / max   chain floor p50 (nominal)   p99 − nominal   over own floor p50 / p99   target p99 ≤ ${TARGET_BLOCKS} blocks`,
  );
  for (const p of [...result.phases, ...result.perMarket]) {
    out.push(
      `${p.label.padEnd(18)}${String(p.operations).padStart(5)}  ${`${sec(p.latencyMs.p50)} / ${sec(p.latencyMs.p99)} / ${sec(p.latencyMs.max)} s`.padEnd(33)}` +
        `${`${sec(p.floorMs.p50)} s (${p.nominalFloorBlocks} blocks)`.padEnd(28)}${`${p.p99MinusNominalFloorBlocks.toFixed(2)} blocks`.padEnd(16)}` +
        `${`${p.overFloorBlocks.p50.toFixed(2)} / ${p.overFloorBlocks.p99.toFixed(2)} blocks`.padEnd(27)}${p.withinTarget ? 'met' : 'NOT met'}`,
    );
  }
  out.push(
    '',
    'where the time goes (mean per operation, s; sums to POST → confirmed): yield worker (pickup: POST → first step sent; between: approval confirmed',
    '→ action sent; finish: last step confirmed → operation confirmed), chain (sent → in a block → confirmed by the chain), monitor (chain → record), client poll',
  );
  out.push(
    `${'phase'.padEnd(18)}${'pickup'.padStart(8)}${'between'.padStart(9)}${'finish'.padStart(8)}${'to block'.padStart(10)}${'confirm.'.padStart(10)}${'monitor'.padStart(9)}${'observe'.padStart(9)}   blocks lost   monitor lag > 1 s   1st check before block (their lag / others')`,
  );
  for (const p of result.phases) {
    const m = p.meanMs as Record<string, number>;
    out.push(
      `${p.label.padEnd(18)}${sec(m.pickup!).padStart(8)}${sec(m.between!).padStart(9)}${sec(m.finish!).padStart(8)}${sec(m.toBlock!).padStart(10)}${sec(m.confirmations!).padStart(10)}${sec(m.monitor!).padStart(9)}${sec(m.observe!).padStart(9)}` +
        `   ${`${p.blocksLostBeforeFinalStep.mean} (max ${p.blocksLostBeforeFinalStep.max})`.padEnd(14)}${`${p.monitorLagMs.over1s}/${p.monitorLagMs.steps} (max ${sec(p.monitorLagMs.max)} s)`.padEnd(20)}` +
          `${p.firstCheckBeforeBlock.steps}/${p.monitorLagMs.steps} steps (${sec(p.firstCheckBeforeBlock.meanLagMs)} / ${sec(p.firstCheckBeforeBlock.othersMeanLagMs)} s)`,
    );
  }
  for (const p of result.phases) {
    const w = p.worst;
    out.push(`${`worst ${p.label}`.padEnd(18)} ${w.overBlocks.toFixed(2)} blocks over its floor, ${w.lostBlocks} lost before its last step; ${Object.entries(w.ms).map(([k, v]) => `${k} ${sec(v)}`).join(', ')} s`);
    out.push(`${''.padEnd(18)} ${p.landedLate.steps} of ${p.landedLate.of} steps landed after the first block that followed their sending (at most ${p.landedLate.maxBlocks} block(s) later)`);
  }
  const c = result.cpu;
  out.push(
    '',
    `yield worker CPU: ${c.yieldRunnerMsPerOperation} ms per operation (${c.yieldRunnerMsTotal} ms in ${c.yieldRuns} runs taking ${sec(c.yieldRunWallMsTotal)} s, ${c.yieldRunsThatLeased} of them leased ${c.operationStepsLeased} operations;` +
      ` whole-process CPU during each run, concurrent work included); own share ${c.yieldRunnerOwnMsPerOperationEstimate === null ? 'not estimated (overlapping runs)' : `estimated at ${c.yieldRunnerOwnMsPerOperationEstimate} ms per operation`}`,
    `process CPU: ${c.processMsPerOperation} ms per operation (${c.processMsTotal} ms over ${result.wallSeconds} s = ${c.processCoresBusy} cores; API, monitor, yield worker, ${db.kind === 'pglite' ? "PGlite's thread" : 'the PostgreSQL client'}; the clients run in their own process)`,
    `confirmed ${operations} of ${expected} operations${bad.length || crashed.length ? ` — FAILED: ${bad.length} ended otherwise, ${crashed.length} wallets crashed` : ''}`,
  );
  console.log(JSON.stringify(result));
  console.log(out.join('\n'));
  for (const o of bad) console.error(`not confirmed: ${o.phase} ${o.operationId} (${marketName(o.marketId)}) ended ${o.status}: ${JSON.stringify(o.error)}`);
  for (const message of crashed) console.error(`wallet failed: ${message}`);
  return operations === expected && bad.length === 0 && crashed.length === 0;
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
