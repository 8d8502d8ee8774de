/**
 * The signer section of `npm run bench` (alone: `npm run bench:signer`): signing at the vault level
 * through a real signer process (`node apps/signer/dist/main.js`, local mode, mTLS over its Unix
 * socket) with the API's own client and vault (`createApiKeyVault`: secp256k1 joined in the signer,
 * FROST(Ed25519) with this process as participant 1 and coordinator), next to the path before the
 * signer, measured in the same run: the key joined in this process (`createLocalKeyVault`, XOR
 * Ed25519 halves for Solana). Then the same through the whole HTTP API (signer-http.ts): closed loop
 * with BENCH_CONCURRENCY in flight and, for EVM, at each level of BENCH_SIGNER_HTTP_SATURATING_CONCURRENCY
 * (16,64; BENCH_SIGNER_HTTP_SATURATING_SIGNS, 8000, requests per path and level): each path's
 * throughput is its best level's rate, its CPU rather than its latency setting it, and the
 * throughput target is judged on those two.
 *
 * - EVM sign-message: closed loop (BENCH_CONCURRENCY in flight, windows interleaved between the two
 *   paths; also BENCH_SIGNER_WIDE_CONCURRENCY, 32, in flight: the log's group commit at work) and open loop at BENCH_SIGNER_EVM_RATE (200/s) for BENCH_SIGNER_OPEN_SECONDS (10 s, as two
 *   interleaved halves).
 * - Solana sign-message: open loop at BENCH_SIGNER_SOLANA_RATE (100/s); a short closed loop too.
 * - CPU per signature of each party over each measured window: this process (`process.cpuUsage`,
 *   which also carries the load loop, the same for both paths) and the signer (`/proc/<pid>/stat`).
 *
 * Not a test: it prints what it measured, with the targets (through the signer >= 80 % of the
 * in-process throughput; open-loop p99 <= 10 ms for both chains) marked met or NOT met.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http2 from 'node:http2';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { fileURLToPath } from 'node:url';
import {
  API_KEK_ROLES,
  deriveAddress,
  fileKekProvider,
  formatPublicKey,
  parseSigningInput,
  resolveRecoveryPublicKey,
  schemeOfType,
  SIGNER_KEK_ROLES,
  VAULT_METHODS,
  type EncryptedShare,
  type KeyVault,
  type VaultWallet,
  type WalletType,
} from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { createSignerClient, signerClientSettings } from '@wallet/signer/client';
import { buildSigner, signerStartCommand } from '../../signer/scripts/build.mjs';
import { repoRoot } from '../src/config.ts';
import { createApiKeyVault } from '../src/custody/remote-vault.ts';
import { signerHttpBench, type HttpMeasured } from './signer-http.ts';
import { closedLoopCalls, fsyncProbe, openLoopCalls, parseSignerMetrics, percentiles, type CallLoadResult, type SignerCounters } from './signer-load.ts';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

export interface SignerBenchOptions {
  concurrency?: number;
  /** Seconds of EVM closed loop per path (two interleaved windows; Solana's is half as long). */
  closedSeconds?: number;
  evmRate?: number;
  solanaRate?: number;
  openSeconds?: number;
  /** Requests per path of the HTTP rows' closed loop (default BENCH_SIGNS, 3000). */
  signs?: number;
}

/** Starts the signer as its own process and resolves with it once it listens (apps/api/src/testing/signer-process.ts on the signer-tests branch). */
export async function spawnSigner(env: Record<string, string>): Promise<ChildProcess> {
  await buildSigner();
  // stdin is a pipe and SIGNER_EXIT_WITH_PARENT=1: if this process dies the signer exits too.
  // BENCH_SIGNER_NODE_ARGS: extra node options for the signer, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`.
  const nodeArgs = (process.env.BENCH_SIGNER_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);
  const child = spawn(process.execPath, [...nodeArgs, ...signerStartCommand.args], {
    cwd: repoRoot,
    env: { ...process.env, ...env, SIGNER_EXIT_WITH_PARENT: '1' },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let output = '';
  let ready = false;
  const onOutput = (chunk: Buffer) => {
    if (ready) process.stderr.write(`[signer] ${chunk.toString()}`);
    else output += chunk;
  };
  child.stdout!.on('data', onOutput);
  child.stderr!.on('data', onOutput);
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (!output.includes('wallet signer listening')) return;
      clearInterval(timer);
      clearTimeout(deadline);
      ready = true;
      resolve();
    }, 20);
    const deadline = setTimeout(() => {
      clearInterval(timer);
      child.kill('SIGKILL');
      reject(new Error(`the signer did not start within 30 s: ${output}`));
    }, 30_000);
    child.once('exit', (code) => {
      clearInterval(timer);
      clearTimeout(deadline);
      if (!ready) reject(new Error(`the signer exited with ${code}: ${output}`));
    });
  });
  return child;
}

export async function stopSigner(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}

/** GET /metrics of the signer over its own mTLS listener, with the API's client credentials. */
function signerMetricsReader(settings: ReturnType<typeof signerClientSettings>) {
  const socketPath = settings.url.replace(/^unix:/, '');
  let session: http2.ClientHttp2Session | undefined;
  const read = () =>
    new Promise<SignerCounters>((resolve, reject) => {
      session ??= http2.connect('https://wallet-signer', {
        createConnection: () => tls.connect({ path: socketPath, ...settings.tls, servername: 'wallet-signer', ALPNProtocols: ['h2'], minVersion: 'TLSv1.3' }),
      });
      const stream = session.request({ ':method': 'GET', ':path': '/metrics' });
      let text = '';
      stream.setEncoding('utf8');
      stream.on('data', (chunk: string) => (text += chunk));
      stream.on('end', () => resolve(parseSignerMetrics(text)));
      stream.on('error', reject);
    });
  return { read, close: () => session?.close() };
}

/** The signer's side of one measured window: mean time in its signing handler, signatures per log group commit. */
interface SignerSide {
  handlerSeconds: number;
  handled: number;
  logged: number;
  fsyncBatches: number;
}

type Measured = CallLoadResult & { signer?: SignerSide };

const SIGN_METHODS = [VAULT_METHODS.sign, VAULT_METHODS.frostSign];

function signerDelta(before: SignerCounters, after: SignerCounters): SignerSide {
  const total = (c: SignerCounters, k: 'sum' | 'count') => SIGN_METHODS.reduce((s, m) => s + (c.handler[m]?.[k] ?? 0), 0);
  return {
    handlerSeconds: total(after, 'sum') - total(before, 'sum'),
    handled: total(after, 'count') - total(before, 'count'),
    logged: after.logged - before.logged,
    fsyncBatches: after.fsyncBatches - before.fsyncBatches,
  };
}

export interface BenchWallet {
  wallet: VaultWallet;
  shares: EncryptedShare[];
}

export async function createWallet(vault: KeyVault, type: WalletType): Promise<BenchWallet> {
  const id = randomUUID();
  const key = await vault.createWalletKey({ walletId: id, scheme: schemeOfType[type], clientHeldUserShare: false });
  return {
    wallet: { id, type, scheme: schemeOfType[type], address: deriveAddress(type, key.publicKey), publicKey: formatPublicKey(type, key.publicKey) },
    shares: key.shares,
  };
}

/** One sign-message call at the vault level, as the signing pipeline makes it after its policy stage. */
type Call = () => Promise<unknown>;

export function signer(vault: KeyVault, { wallet, shares }: BenchWallet): Call {
  const input = parseSigningInput(wallet.type, 'message', { message: 'benchmark message: sign me' });
  return () => vault.sign({ wallet, shares, operation: 'message', input, requestId: randomUUID(), action: 'wallet.sign.sign-message' });
}

const ms = (value: number) => value.toFixed(2).padStart(6);
const cpu = (value: number | null) => (value === null ? '   n/a' : value.toFixed(3).padStart(6));
const errorsOf = (r: CallLoadResult) => (Object.keys(r.errors).length > 0 ? `  ERRORS ${JSON.stringify(r.errors)}` : '');

const signerSide = (r: Measured) =>
  r.signer && r.signer.handled > 0
    ? `   in the signer: ${((r.signer.handlerSeconds * 1000) / r.signer.handled).toFixed(2)} ms mean, ${(r.signer.logged / Math.max(1, r.signer.fsyncBatches)).toFixed(1)} sig/fsync`
    : '';

function closedRow(name: string, r: Measured) {
  return `${name.padEnd(30)} ${r.perSecond.toFixed(0).padStart(6)}/s   p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms   CPU/sig: API ${cpu(r.cpuSelfMs)} ms, signer ${cpu(r.cpuOtherMs)} ms${signerSide(r)}${errorsOf(r)}`;
}

function openRow(name: string, r: Measured) {
  return `${name.padEnd(30)} p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  max ${ms(r.max)} ms   CPU/sig: API ${cpu(r.cpuSelfMs)} ms, signer ${cpu(r.cpuOtherMs)} ms   (${r.ok} signed)${signerSide(r)}${errorsOf(r)}`;
}

/** Adds up rounds of the same path: counts and time, CPU weighted by count, percentiles over all their latencies. */
function combine(rounds: Measured[]): Measured {
  const ok = rounds.reduce((s, r) => s + r.ok, 0);
  const seconds = rounds.reduce((s, r) => s + r.seconds, 0);
  const weighted = (f: (r: CallLoadResult) => number | null) => (rounds.some((r) => f(r) === null) ? null : rounds.reduce((s, r) => s + f(r)! * r.ok, 0) / ok);
  const errors: Record<string, number> = {};
  for (const r of rounds) for (const [k, v] of Object.entries(r.errors)) errors[k] = (errors[k] ?? 0) + v;
  const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  return {
    ok,
    errors,
    seconds,
    perSecond: ok / seconds,
    ...percentiles(latencies),
    latencies,
    cpuSelfMs: weighted((r) => r.cpuSelfMs)!,
    cpuOtherMs: weighted((r) => r.cpuOtherMs),
    signer: rounds.every((r) => r.signer)
      ? {
          handlerSeconds: rounds.reduce((s, r) => s + r.signer!.handlerSeconds, 0),
          handled: rounds.reduce((s, r) => s + r.signer!.handled, 0),
          logged: rounds.reduce((s, r) => s + r.signer!.logged, 0),
          fsyncBatches: rounds.reduce((s, r) => s + r.signer!.fsyncBatches, 0),
        }
      : undefined,
  };
}

const allOk = (r: HttpMeasured) => Object.keys(r.statuses).every((status) => status === '200');
function httpRow(name: string, r: HttpMeasured) {
  return `${name.padEnd(34)} ${r.perSecond.toFixed(0).padStart(6)}/s   p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  max ${ms(r.max)} ms   CPU/req: API ${cpu(r.apiCpuMs)} ms, signer ${cpu(r.signerCpuMs)} ms   ${JSON.stringify(r.statuses)}`;
}

const met = (ok: boolean) => (ok ? 'met' : 'NOT met');
const load = () => loadavg().map((l) => l.toFixed(2)).join(' ');

export async function signerBench(options: SignerBenchOptions = {}): Promise<void> {
  const concurrency = options.concurrency ?? num('BENCH_CONCURRENCY', 4);
  const closedSeconds = options.closedSeconds ?? num('BENCH_SIGNER_CLOSED_SECONDS', 6);
  const wideConcurrency = num('BENCH_SIGNER_WIDE_CONCURRENCY', 32);
  const evmRate = options.evmRate ?? num('BENCH_SIGNER_EVM_RATE', 200);
  const solanaRate = options.solanaRate ?? num('BENCH_SIGNER_SOLANA_RATE', 100);
  const openSeconds = options.openSeconds ?? num('BENCH_SIGNER_OPEN_SECONDS', 10);

  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-signer-'));
  let child: ChildProcess | undefined;
  let client: ReturnType<typeof createSignerClient> | undefined;
  let metrics: ReturnType<typeof signerMetricsReader> | undefined;
  try {
    console.log(`\nsigner — ${new Date().toISOString()}, node ${process.version}, load average ${load()} (1/5/15 min)`);
    child = await spawnSigner({
      APP_ENV: 'local',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      // Every signature of a path goes to one wallet: the default 600/min would refuse the run.
      SIGNER_MAX_SIGNATURES_PER_WALLET_PER_MINUTE: '100000000',
    });
    const pid = child.pid;
    // The API's side as the service builds it (signer-connection.ts): its client over the local
    // socket and credentials, its own KEK file, the recovery key the signer generated in DATA_DIR.
    const settings = signerClientSettings({ APP_ENV: 'local' }, dataDir);
    client = createSignerClient(settings);
    const remote = createApiKeyVault(client, {
      keks: fileKekProvider(path.join(dataDir, 'api'), API_KEK_ROLES),
      recovery: () => resolveRecoveryPublicKey({ appEnv: 'local', file: undefined, localDir: path.join(dataDir, 'recovery') }),
    });
    // Before the signer: the API joined the key itself (its own share KEKs; Ed25519 as XOR halves).
    const local = createLocalKeyVault({ keks: fileKekProvider(path.join(dataDir, 'in-process'), SIGNER_KEK_ROLES), xorEd25519Wallets: true });

    const evm = { baseline: signer(local, await createWallet(local, 'EVM')), remote: signer(remote, await createWallet(remote, 'EVM')) };
    const solana = { baseline: signer(local, await createWallet(local, 'SOLANA')), remote: signer(remote, await createWallet(remote, 'SOLANA')) };

    metrics = signerMetricsReader(settings);
    const readMetrics = metrics.read;
    // One measured window of a path; through the signer, also its side of that window from /metrics.
    const measure = async (viaSigner: boolean, run: () => Promise<CallLoadResult>): Promise<Measured> => {
      const before = viaSigner ? await readMetrics() : undefined;
      const result = await run();
      return before ? { ...result, signer: signerDelta(before, await readMetrics()) } : result;
    };
    // Two windows per path, in the order baseline, new, new, baseline, so a drift in the machine's
    // load falls on both paths alike; counts, CPU and percentiles are over both windows.
    const interleaved = async (paths: { baseline: Call; remote: Call }, run: (call: Call) => Promise<CallLoadResult>) => {
      const windows = { baseline: [] as Measured[], remote: [] as Measured[] };
      for (const which of ['baseline', 'remote', 'remote', 'baseline'] as const) windows[which].push(await measure(which === 'remote', () => run(paths[which])));
      return { baseline: combine(windows.baseline), remote: combine(windows.remote) };
    };

    // What a signature of the log waits for: one line and fdatasync, beside the signer's store.
    const disk = fsyncProbe(path.join(dataDir, 'signer'), 200);

    // Warm-up: JIT, the connection, libsecp256k1, sodium.
    for (const call of [evm.baseline, evm.remote, solana.baseline, solana.remote]) await closedLoopCalls(call, 1, concurrency, pid);

    const evmClosed = await interleaved(evm, (call) => closedLoopCalls(call, closedSeconds / 2, concurrency, pid));
    // The same with many in flight: the signature log's group commit then shares each fdatasync.
    const evmWide = await interleaved(evm, (call) => closedLoopCalls(call, closedSeconds / 4, wideConcurrency, pid));
    const solClosed = await interleaved(solana, (call) => closedLoopCalls(call, closedSeconds / 4, concurrency, pid));
    const evmOpen = await interleaved(evm, (call) => openLoopCalls(call, evmRate, openSeconds / 2, pid));
    const solOpen = await interleaved(solana, (call) => openLoopCalls(call, solanaRate, openSeconds / 2, pid));

    const share = evmClosed.remote.perSecond / evmClosed.baseline.perSecond;
    const fsyncRow = (d: { p50: number; p99: number; max: number }) => `p50 ${d.p50.toFixed(2)} ms, p99 ${d.p99.toFixed(2)} ms, max ${d.max.toFixed(2)} ms`;
    console.log(`one line + fdatasync beside the signer's log (200 times each, alternating): extending the file ${fsyncRow(disk.extends)}; over padding written ahead (as the signer's journals write) ${fsyncRow(disk.overwrites)}`);
    console.log(`closed loop, ${concurrency} in flight unless said (EVM 2 × ${closedSeconds / 2} s, ${wideConcurrency} in flight and Solana 2 × ${closedSeconds / 4} s per path, interleaved):`);
    console.log(closedRow('EVM in-process (joined here)', evmClosed.baseline));
    console.log(closedRow('EVM joined in the signer', evmClosed.remote));
    console.log(closedRow(`EVM in-process, ${wideConcurrency} in flight`, evmWide.baseline));
    console.log(closedRow(`EVM signer, ${wideConcurrency} in flight`, evmWide.remote));
    console.log(closedRow('Solana in-process (XOR joined)', solClosed.baseline));
    console.log(closedRow('Solana FROST (API + signer)', solClosed.remote));
    console.log(`open loop, 2 × ${openSeconds / 2} s per path (interleaved), latency from the scheduled start:`);
    console.log(openRow(`EVM in-process ${evmRate}/s`, evmOpen.baseline));
    console.log(openRow(`EVM signer ${evmRate}/s`, evmOpen.remote));
    console.log(openRow(`Solana in-process ${solanaRate}/s`, solOpen.baseline));
    console.log(openRow(`Solana FROST ${solanaRate}/s`, solOpen.remote));
    console.log(`vault level: EVM through the signer ${(share * 100).toFixed(0)} % of the in-process throughput; load average ${load()}`);
    const clean = [evmClosed, evmWide, solClosed, evmOpen, solOpen].every((pair) => Object.keys(pair.baseline.errors).length + Object.keys(pair.remote.errors).length === 0);

    // The same comparison through the whole API: sign-message over HTTP, key joined in the API against the signer process.
    const saturatingConcurrency = (process.env.BENCH_SIGNER_HTTP_SATURATING_CONCURRENCY ?? '16,64').split(',').map(Number);
    if (saturatingConcurrency.some((c) => !Number.isInteger(c) || c < 1)) throw new Error('BENCH_SIGNER_HTTP_SATURATING_CONCURRENCY: a comma-separated list of positive integers');
    const saturatingSigns = num('BENCH_SIGNER_HTTP_SATURATING_SIGNS', 8000);
    const http = await signerHttpBench({ signs: options.signs ?? num('BENCH_SIGNS', 3000), concurrency, saturatingConcurrency, saturatingSigns, evmRate, solanaRate, openSeconds });
    console.log(`over HTTP: POST /v1/wallets/{id}/sign-message through the whole API (embedded PGlite), key joined in the API vs the signer process:`);
    for (const [chain, rows] of [['EVM', http.evm], ['Solana', http.solana]] as const) {
      console.log(httpRow(`${chain} joined in the API, closed`, rows.closed.joined));
      console.log(httpRow(`${chain} via the signer, closed`, rows.closed.signer));
      for (const level of 'saturated' in rows ? rows.saturated : []) {
        console.log(httpRow(`${chain} joined, ${level.concurrency} in flight`, level.joined));
        console.log(httpRow(`${chain} via signer, ${level.concurrency} in flight`, level.signer));
      }
      console.log(httpRow(`${chain} joined in the API, ${chain === 'EVM' ? evmRate : solanaRate}/s`, rows.open.joined));
      console.log(httpRow(`${chain} via the signer, ${chain === 'EVM' ? evmRate : solanaRate}/s`, rows.open.signer));
    }
    // Throughput is each path's maximum: judged with enough in flight that neither waits on latency; at 4 in flight the signer's round trip and fsync also count.
    const best = (which: 'joined' | 'signer') => http.evm.saturated.reduce((a, b) => (b[which].perSecond > a[which].perSecond ? b : a));
    const [bestJoined, bestSigner] = [best('joined'), best('signer')];
    const httpShare = bestSigner.signer.perSecond / bestJoined.joined.perSecond;
    const httpShareAtFew = http.evm.closed.signer.perSecond / http.evm.closed.joined.perSecond;
    const shareAt = http.evm.saturated.map((l) => `${((l.signer.perSecond / l.joined.perSecond) * 100).toFixed(0)} % with ${l.concurrency}`).join(', ');
    const httpClean = [http.evm.closed, ...http.evm.saturated, http.evm.open, http.solana.closed, http.solana.open].every((pair) => allOk(pair.joined) && allOk(pair.signer));
    console.log(
      `over HTTP: EVM through the signer ${(httpShare * 100).toFixed(0)} % of the joined throughput (each at its best level: joined ${Math.round(bestJoined.joined.perSecond)}/s with ${bestJoined.concurrency} in flight, signer ${Math.round(bestSigner.signer.perSecond)}/s with ${bestSigner.concurrency}; at each level ${shareAt}; ${(httpShareAtFew * 100).toFixed(0)} % with ${concurrency}); load average ${load()}`,
    );
    console.log(
      `targets: EVM sign-message via the signer >= 80 % of joined (HTTP): ${met(httpShare >= 0.8)}; EVM p99 <= 10 ms at ${evmRate}/s: vault ${met(evmOpen.remote.p99 <= 10)}, HTTP ${met(http.evm.open.signer.p99 <= 10)}; ` +
        `Solana FROST p99 <= 10 ms at ${solanaRate}/s: vault ${met(solOpen.remote.p99 <= 10)}, HTTP ${met(http.solana.open.signer.p99 <= 10)}${clean && httpClean ? '' : '; some signatures FAILED (see ERRORS / statuses)'}`,
    );
  } finally {
    metrics?.close();
    await client?.close();
    if (child) await stopSigner(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await signerBench();
