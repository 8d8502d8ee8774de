/**
 * Threshold ECDSA (DKLs23) through a real signer process, beside the isolated path (the key joined in
 * the signer) in the same run: `npm run bench:threshold` (also the last section of `npm run bench`).
 * The benchmark process is the API's vault (`createApiKeyVault`: participant 1), the signer process
 * participant 2, over mTLS on its Unix socket. Every call is `vault.sign({ operation: 'message' })`.
 *
 * - wallet creation (DKG + OT setup, 5 exchanges), BENCH_THRESHOLD_CREATIONS (5) in a row;
 * - on demand, open loop at BENCH_THRESHOLD_RATE (5/s) for BENCH_THRESHOLD_SECONDS (10 s), both paths;
 * - sustained, closed loop with BENCH_THRESHOLD_CONCURRENCY (4) in flight for the same time;
 * - with a presignature ready: BENCH_THRESHOLD_POOL_RATE (20/s) offered for BENCH_THRESHOLD_POOL_SECONDS
 *   (10 s: 200 signatures, so that the p99 is not the second-slowest of 100), round robin over
 *   enough wallets that their pools (4 each) hold the window's signatures once filled, the pool worker refilling meanwhile; the exchanges each signature took, their
 *   sizes, and the event-loop delay of this process (the API) during the on-demand and pooled rows;
 * - the CPU per signature of each party over exactly the measured windows.
 * Latency counts from the scheduled start. Not a test: compare the columns, not absolute numbers.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { API_KEK_ROLES, DKLS_METHODS, deriveAddress, fileKekProvider, formatPublicKey, presignPoolOf, resolveRecoveryPublicKey, type CustodyMode, type KeyVault } from '@wallet/domain';
import { createSignerClient, encodeFrame, signerClientSettings } from '@wallet/signer/client';
import { createApiKeyVault, type SignerCaller } from '../src/custody/remote-vault.ts';
import { startPresignPoolWorker } from '../src/workers/presign-pool-worker.ts';
import { signer, spawnSigner, stopSigner, type BenchWallet } from './signer.ts';
import { closedLoopCalls, openLoopCalls, percentiles, processCpuMs, type CallLoadResult } from './signer-load.ts';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

async function createEvmWallet(vault: KeyVault, custodyMode: CustodyMode): Promise<BenchWallet> {
  const id = randomUUID();
  const key = await vault.createWalletKey({ walletId: id, scheme: 'DKLS', clientHeldUserShare: false, custodyMode });
  return { wallet: { id, type: 'EVM', scheme: 'DKLS', address: deriveAddress('EVM', key.publicKey), publicKey: formatPublicKey('EVM', key.publicKey) }, shares: key.shares };
}

const ms = (value: number) => value.toFixed(1).padStart(7);
const cpu = (value: number | null) => (value === null ? '    n/a' : value.toFixed(2).padStart(7));
const errors = (r: CallLoadResult) => (Object.keys(r.errors).length > 0 ? `  ERRORS ${JSON.stringify(r.errors)}` : '');
/** Runs `body` with an event-loop delay histogram of this process: its p99 and max in ms. */
async function withLoopDelay<T>(body: () => Promise<T>): Promise<{ result: T; delay: string }> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  histogram.enable();
  try {
    const result = await body();
    histogram.disable();
    return { result, delay: `event-loop delay of the API: p99 ${(histogram.percentile(99) / 1e6).toFixed(1)} ms, max ${(histogram.max / 1e6).toFixed(1)} ms` };
  } finally {
    histogram.disable();
  }
}

/**
 * The signer calls by method, and the bytes each carried on the wire (its frame, as wallet-signer/2 writes it),
 * measured on the first calls of each method only: a method's messages have fixed sizes, and encoding
 * every refill's ~80 KB a second time would add its garbage to the API's event loop being measured.
 */
const SIZED_CALLS = 8;
/** Round trips of the signFinish calls (the pooled row's one exchange), as this process saw them. */
const finishTimes: number[] = [];
function countingCaller(inner: SignerCaller) {
  const counts: Record<string, { calls: number; bytes: number; sized: number }> = {};
  const caller: SignerCaller = {
    call<T>(method: string, params: unknown, requestId?: string) {
      const pooled = (params as { pool?: boolean } | null)?.pool === true;
      const c = (counts[pooled ? `${method} (pool)` : method] ??= { calls: 0, bytes: 0, sized: 0 });
      c.calls++;
      if (c.sized < SIZED_CALLS) {
        c.sized++;
        c.bytes += encodeFrame(0, { method, requestId, params }).length;
      }
      const started = performance.now();
      const answer = inner.call<T>(method, params, requestId);
      if (method === DKLS_METHODS.signFinish) void answer.then(() => finishTimes.push(performance.now() - started), () => undefined);
      return answer;
    },
  };
  const reset = () => {
    for (const key of Object.keys(counts)) delete counts[key];
  };
  return { caller, counts, reset };
}

const row = (name: string, r: CallLoadResult) =>
  `${name.padEnd(34)} ${r.perSecond.toFixed(1).padStart(6)}/s  p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  max ${ms(r.max)} ms  CPU/sig: API ${cpu(r.cpuSelfMs)} ms, signer ${cpu(r.cpuOtherMs)} ms  (${r.ok})${errors(r)}`;

export async function thresholdBench(): Promise<void> {
  const rate = num('BENCH_THRESHOLD_RATE', 5);
  const seconds = num('BENCH_THRESHOLD_SECONDS', 10);
  const concurrency = num('BENCH_THRESHOLD_CONCURRENCY', 4);
  const creations = num('BENCH_THRESHOLD_CREATIONS', 5);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-threshold-'));
  const child = await spawnSigner({ APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'warn', SIGNER_MAX_SIGNATURES_PER_WALLET_PER_MINUTE: '100000000' });
  const client = createSignerClient(signerClientSettings({ APP_ENV: 'local' }, dataDir));
  const counting = countingCaller(client);
  try {
    const vault = createApiKeyVault(counting.caller, {
      keks: fileKekProvider(path.join(dataDir, 'api'), API_KEK_ROLES),
      recovery: () => resolveRecoveryPublicKey({ appEnv: 'local', file: undefined, localDir: path.join(dataDir, 'recovery') }),
    });
    console.log(`\n## Threshold ECDSA (DKLs23) through the signer process, beside the isolated path (signer pid ${child.pid})`);

    const times: number[] = [];
    const [selfBefore, signerBefore] = [process.cpuUsage(), processCpuMs(child.pid)];
    let threshold: BenchWallet | undefined;
    for (let i = 0; i < creations; i++) {
      const start = performance.now();
      threshold = await createEvmWallet(vault, 'threshold');
      times.push(performance.now() - start);
    }
    const self = process.cpuUsage(selfBefore);
    const signerCpu = (processCpuMs(child.pid) ?? 0) - (signerBefore ?? 0);
    const created = percentiles(times.sort((a, b) => a - b));
    console.log(
      `${'creation to ready (DKG + OT setup)'.padEnd(34)} p50 ${ms(created.p50)} ms  max ${ms(created.max)} ms  CPU/wallet: API ${cpu((self.user + self.system) / 1000 / creations)} ms, signer ${cpu(signerCpu / creations)} ms  (${creations}, one after another)`,
    );

    const isolated = signer(vault, await createEvmWallet(vault, 'isolated'));
    const thresholdCall = signer(vault, threshold!);
    // Warm both paths (JIT, the TLS session) before measuring.
    for (let i = 0; i < 5; i++) await Promise.all([isolated(), thresholdCall()]);
    console.log(row(`isolated, open loop ${rate}/s`, await openLoopCalls(isolated, rate, seconds, child.pid)));
    const onDemand = await withLoopDelay(() => openLoopCalls(thresholdCall, rate, seconds, child.pid));
    console.log(row(`threshold on demand, open ${rate}/s`, onDemand.result));
    console.log(`${''.padEnd(34)} ${onDemand.delay}`);
    console.log(row(`isolated, closed ${concurrency} in flight`, await closedLoopCalls(isolated, seconds, concurrency, child.pid)));
    console.log(row(`threshold, closed ${concurrency} in flight`, await closedLoopCalls(thresholdCall, seconds, concurrency, child.pid)));
    await pooledRows(vault, counting, child.pid);
  } finally {
    await client.close();
    await stopSigner(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** With a presignature ready: the pools filled first, then 20/s offered round robin over their wallets while the pool worker refills. */
async function pooledRows(vault: KeyVault, counting: ReturnType<typeof countingCaller>, signerPid: number | undefined): Promise<void> {
  const rate = num('BENCH_THRESHOLD_POOL_RATE', 20);
  const seconds = num('BENCH_THRESHOLD_POOL_SECONDS', 10);
  const perWallet = 4;
  const count = num('BENCH_THRESHOLD_POOL_WALLETS', Math.ceil((rate * seconds) / perWallet) + 5);
  const pool = presignPoolOf(vault)!;
  const wallets: BenchWallet[] = [];
  for (let i = 0; i < count; i++) wallets.push(await createEvmWallet(vault, 'threshold'));
  const calls = wallets.map((w) => signer(vault, w));
  // One signature each makes the wallets active (this process signed with them recently).
  await Promise.all(calls.map((call) => call()));
  const worker = startPresignPoolWorker({ idleMs: 50, logger: { error: (obj: object, msg?: string) => console.error(msg, obj) } });
  try {
    const fillStart = performance.now();
    while (pool.size() < count * perWallet && performance.now() - fillStart < 120_000) await new Promise((resolve) => setTimeout(resolve, 100));
    const filled = pool.size();
    const fillSeconds = (performance.now() - fillStart) / 1000;
    // BENCH_THRESHOLD_POOL_REFILL=0: the window without refills (what the refills' CPU costs the pooled path).
    if (process.env.BENCH_THRESHOLD_POOL_REFILL === '0') await worker.stop();
    counting.reset();
    finishTimes.length = 0;
    const pooled = await withLoopDelay(() => openLoopCalls((i) => calls[i % calls.length]!(), rate, seconds, signerPid));
    const finishes = counting.counts[DKLS_METHODS.signFinish]?.calls ?? 0;
    const onDemand = counting.counts[DKLS_METHODS.signStart]?.calls ?? 0;
    console.log(row(`threshold, presignature ready, open ${rate}/s`, pooled.result));
    console.log(`${''.padEnd(34)} ${pooled.delay}`);
    const finish = percentiles(finishTimes.sort((a, b) => a - b));
    console.log(`${''.padEnd(34)} the signFinish exchange alone (signer and transport): p50 ${ms(finish.p50)} ms  p99 ${ms(finish.p99)} ms  max ${ms(finish.max)} ms`);
    const perExchange = (method: string) => {
      const c = counting.counts[method];
      return c ? `${(c.bytes / c.sized / 1024).toFixed(1)} KB` : 'n/a';
    };
    console.log(
      `${''.padEnd(34)} ${count} wallets, ${filled} presignatures ready after ${fillSeconds.toFixed(1)} s; of ${finishes} signatures ${finishes - onDemand} took one exchange (signFinish only, ${perExchange(DKLS_METHODS.signFinish)} up), ${onDemand} were made on demand; ${pool.size()} ready at the end (${counting.counts[`${DKLS_METHODS.signStart} (pool)`]?.calls ?? 0} refilled meanwhile)`,
    );
  } finally {
    await worker.stop();
    await pool.close();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await thresholdBench();
