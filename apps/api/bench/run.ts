/**
 * npm run bench: wallet creations per second and GET /v1/wallets/{id} latency against the real
 * service (embedded PGlite, own process), next to a bare express route measured in the same run;
 * signing per wallet type next to the raw signer; signing with 100 policies next to none (policies.ts);
 * signing with the request log on next to a second service with it off (request-log.ts); signing at
 * the vault level through a real signer process next to the key joined in process (signer.ts).
 * threshold ECDSA through the signer next to the isolated path (threshold.ts); a two-call batch,
 * self-paid and sponsored, next to a plain transfer (calls.ts).
 * BENCH_ONLY=policies, request-log, signer, threshold or calls runs that section alone (also npm run
 * bench:signer, bench:threshold, bench:calls).
 * Not a test: figures depend on the machine; compare the two columns, not absolute numbers.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import net from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../src/config.ts';
import { buildApi, startCommand } from '../scripts/build.mjs';
import { deriveAddress, generateKey, schemeOfType, signers, type WalletType } from '@wallet/domain';
import { joinedKeyMaterial } from '@wallet/domain/custody/joined-key.ts';
import { createScratchDatabase } from '@wallet/db';
import { closedLoop, openLoop, type LoadResult } from './load.ts';
import { policyBench } from './policies.ts';
import { requestLogBench } from './request-log.ts';
import { signerBench } from './signer.ts';
import { thresholdBench } from './threshold.ts';

const CREATIONS = Number(process.env.BENCH_CREATIONS ?? 2000);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 20000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 4);
const SIGNS = Number(process.env.BENCH_SIGNS ?? 3000);
const OPEN_LOOP_RATE = Number(process.env.BENCH_OPEN_LOOP_RATE ?? 200);
const OPEN_LOOP_SECONDS = Number(process.env.BENCH_OPEN_LOOP_SECONDS ?? 10);

/** Signatures per second of the signer alone, on this process's one core, for one second. */
async function rawSigningLimit(type: WalletType): Promise<number> {
  const key = generateKey(schemeOfType[type]);
  const material = joinedKeyMaterial(schemeOfType[type], key.secret, deriveAddress(type, key.publicKey));
  const op = signers[type].message;
  const input = { message: 'benchmark message: sign me' };
  for (let i = 0; i < 200; i++) await op.sign(material, input);
  let count = 0;
  const started = performance.now();
  while (performance.now() - started < 1000) {
    await op.sign(material, input);
    count++;
  }
  return count / ((performance.now() - started) / 1000);
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-'));
const children: ChildProcess[] = [];
let finished = false;

/** BENCH_DATABASE_URL: run on a fresh database of that PostgreSQL server instead of embedded PGlite. */
async function benchDatabaseUrl(): Promise<{ url: string; drop: () => Promise<void> } | null> {
  const base = process.env.BENCH_DATABASE_URL;
  return base ? createScratchDatabase(base, 'bench') : null;
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

const database = await benchDatabaseUrl();
const port = await freePort();
const env = { ...process.env, LOCAL_DEVNETS: 'off', CONSOLE: 'off', APP_ENV: 'local', DATA_DIR: dataDir, PORT: String(port), LOG_LEVEL: 'warn', DATABASE_URL: database?.url ?? '', REQUEST_LOG: 'on' };
const only = process.env.BENCH_ONLY;
// The request log section's second service (REQUEST_LOG=off): its own data directory and port.
const offDataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-off-'));

// BENCH_SERVICE_NODE_ARGS: extra node options for the service process, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
// (NODE_OPTIONS does not accept --cpu-prof).
const serviceNodeArgs = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(/\s+/).filter(Boolean);

function startProcess(args: string[], readyLine: (line: string) => string | undefined, extraEnv: Record<string, string> = {}): Promise<string> {
  const script = args.at(-1);
  const child = spawn(process.execPath, args, { cwd: repoRoot, env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk) => {
      buffer += chunk;
      for (const line of buffer.split('\n')) {
        const url = readyLine(line);
        if (url) resolve(url);
      }
    });
    child.once('exit', (code) => {
      if (!finished) reject(new Error(`${script} exited with ${code}`));
    });
  });
}

async function waitForHealth(url: string): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const ok = await fetch(`${url}/health`).then((r) => r.ok, () => false);
    if (ok) return url;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('service did not start');
}

const parse = (line: string) => {
  try {
    return JSON.parse(line) as { url?: string; msg?: string };
  } catch {
    return {};
  }
};

function row(name: string, result: LoadResult) {
  return `${name.padEnd(34)} ${result.perSecond.toFixed(0).padStart(8)}/s   p50 ${result.p50.toFixed(2).padStart(6)} ms   p99 ${result.p99.toFixed(2).padStart(6)} ms   ${JSON.stringify(result.statuses)}`;
}

const run = promisify(execFile);

try {
  const bareUrl = await startProcess(['--import', 'tsx', 'apps/api/bench/bare-server.ts'], (line) => parse(line).url);
  // The service as `npm start` runs it: the bundle, with the same environment.
  await buildApi();
  void startProcess([...serviceNodeArgs, ...startCommand.args], () => undefined, startCommand.env).catch((error) => {
    console.error(error);
    process.exit(1);
  });
  const serviceUrl = await waitForHealth(`http://127.0.0.1:${port}`);
  // BENCH_ONLY=policies or request-log: only that section (the first ones take minutes).
  if (!only) {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'bench', '--rate-limit', '0'], { cwd: repoRoot, env });
    const apiKey = (JSON.parse(stdout) as { apiKey: string }).apiKey;
    const headers = { 'x-api-key': apiKey };
    const types = ['EVM', 'COSMOS', 'SOLANA', 'STELLAR', 'SUI'];

    // Warm up both servers (JIT, connection pools, prepared statements).
    await closedLoop(serviceUrl, 200, CONCURRENCY, (i) => ({ method: 'POST', path: '/v1/wallets', headers, body: JSON.stringify({ type: types[i % 5], userIdentifier: `warm-${i}`, userIdentifierType: 'CUSTOM_ID' }) }));
    const created = await closedLoop(serviceUrl, CREATIONS, CONCURRENCY, (i) => ({
      method: 'POST',
      path: '/v1/wallets',
      headers,
      body: JSON.stringify({ type: types[i % 5], userIdentifier: `bench-${i}`, userIdentifierType: 'CUSTOM_ID' }),
    }));
    const list = await fetch(`${serviceUrl}/v1/wallets?limit=100`, { headers }).then((r) => r.json() as Promise<{ data: { id: string }[] }>);
    const ids = list.data.map((w) => w.id);
    await closedLoop(serviceUrl, 1000, CONCURRENCY, (i) => ({ method: 'GET', path: `/v1/wallets/${ids[i % ids.length]}`, headers }));
    await closedLoop(bareUrl, 1000, CONCURRENCY, (i) => ({ method: 'GET', path: `/bare/${ids[i % ids.length]}` }));
    const bare = await closedLoop(bareUrl, LOOKUPS, CONCURRENCY, (i) => ({ method: 'GET', path: `/bare/${ids[i % ids.length]}` }));
    const lookup = await closedLoop(serviceUrl, LOOKUPS, CONCURRENCY, (i) => ({ method: 'GET', path: `/v1/wallets/${ids[i % ids.length]}`, headers }));
    // Open loop: requests on a fixed schedule whatever the answers' latency, so queueing shows in p99.
    const bareOpen = await openLoop(bareUrl, OPEN_LOOP_RATE, OPEN_LOOP_SECONDS, (i) => ({ method: 'GET', path: `/bare/${ids[i % ids.length]}` }));
    const lookupOpen = await openLoop(serviceUrl, OPEN_LOOP_RATE, OPEN_LOOP_SECONDS, (i) => ({ method: 'GET', path: `/v1/wallets/${ids[i % ids.length]}`, headers }));

    const ratio = lookup.perSecond / bare.perSecond;
    console.log(`\nwallet service bench — ${new Date().toISOString()}, node ${process.version}, concurrency ${CONCURRENCY}, database ${database ? 'PostgreSQL' : 'embedded PGlite'}`);
    console.log(row(`POST /v1/wallets (${CREATIONS})`, created));
    console.log(row(`GET /v1/wallets/{id} (${LOOKUPS})`, lookup));
    console.log(row(`bare express GET (${LOOKUPS})`, bare));
    console.log(row(`GET /v1/wallets/{id} open ${OPEN_LOOP_RATE}/s`, lookupOpen));
    console.log(row(`bare express GET open ${OPEN_LOOP_RATE}/s`, bareOpen));
    console.log(`lookup throughput vs bare route: ${(ratio * 100).toFixed(0)}%`);
    console.log(
      `targets: creation >= 200/s: ${created.perSecond >= 200 ? 'met' : 'NOT met'}; lookup open-loop p99 <= 10 ms: ${lookupOpen.p99 <= 10 ? 'met' : 'NOT met'}; lookup >= 40% of bare: ${ratio >= 0.4 ? 'met' : 'NOT met'}`,
    );

    // Signing: sign-message per wallet type over HTTP (closed loop, then open loop at a fixed rate),
    // next to the same signer called in a loop on one core with no HTTP or database.
    console.log(`\nsign-message — closed loop at concurrency ${CONCURRENCY}; open loop at ${OPEN_LOOP_RATE}/s for ${OPEN_LOOP_SECONDS} s`);
    const message = JSON.stringify({ message: 'benchmark message: sign me' });
    for (const type of types as WalletType[]) {
      const wallet = (await fetch(`${serviceUrl}/v1/wallets`, {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json' },
        body: JSON.stringify({ type, userIdentifier: `signer-${type}`, userIdentifierType: 'CUSTOM_ID' }),
      }).then((r) => r.json())) as { id: string };
      const path = `/v1/wallets/${wallet.id}/sign-message`;
      const request = () => ({ method: 'POST', path, headers, body: message });
      const raw = await rawSigningLimit(type);
      await closedLoop(serviceUrl, 300, CONCURRENCY, request);
      const closed = await closedLoop(serviceUrl, SIGNS, CONCURRENCY, request);
      const open = await openLoop(serviceUrl, OPEN_LOOP_RATE, OPEN_LOOP_SECONDS, request);
      const share = closed.perSecond / raw;
      console.log(
        `${type.padEnd(8)} raw ${raw.toFixed(0).padStart(6)}/s | HTTP ${closed.perSecond.toFixed(0).padStart(5)}/s (${(share * 100).toFixed(0)}% of raw) p50 ${closed.p50.toFixed(2)} ms p99 ${closed.p99.toFixed(2)} ms | open loop p50 ${open.p50.toFixed(2)} ms p99 ${open.p99.toFixed(2)} ms ${JSON.stringify(open.statuses)}` +
          (type === 'EVM' ? ` | targets: open-loop p99 <= 10 ms ${open.p99 <= 10 ? 'met' : 'NOT met'}, >= 30% of raw ${share >= 0.3 ? 'met' : 'NOT met'}` : ''),
      );
    }

  }

  if (!only || only === 'policies') await policyBench({
    serviceUrl,
    dataDir,
    signs: SIGNS,
    concurrency: CONCURRENCY,
    openLoopRate: OPEN_LOOP_RATE,
    openLoopSeconds: OPEN_LOOP_SECONDS,
    row,
    async createKey(partner) {
      const created = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', partner, '--rate-limit', '0'], { cwd: repoRoot, env });
      return JSON.parse(created.stdout) as { apiKey: string; projectId: string };
    },
  });

  if (!only || only === 'request-log') {
    const offPort = await freePort();
    const offEnv = { DATA_DIR: offDataDir, PORT: String(offPort), REQUEST_LOG: 'off' };
    void startProcess([...serviceNodeArgs, ...startCommand.args], () => undefined, { ...startCommand.env, ...offEnv }).catch((error) => {
      console.error(error);
      process.exit(1);
    });
    const offUrl = await waitForHealth(`http://127.0.0.1:${offPort}`);
    const key = async (extraEnv: Record<string, string>) => {
      const created = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'bench-request-log', '--rate-limit', '0'], { cwd: repoRoot, env: { ...env, ...extraEnv } });
      return (JSON.parse(created.stdout) as { apiKey: string }).apiKey;
    };
    await requestLogBench({
      services: { on: { url: serviceUrl, apiKey: await key({}) }, off: { url: offUrl, apiKey: await key(offEnv) } },
      signs: SIGNS,
      concurrency: CONCURRENCY,
      openLoopRate: OPEN_LOOP_RATE,
      openLoopSeconds: OPEN_LOOP_SECONDS,
      row,
    });
  }

  // The signer process against the key joined in this process (its own signer; no HTTP).
  if (!only || only === 'signer') await signerBench({ concurrency: CONCURRENCY, evmRate: OPEN_LOOP_RATE, openSeconds: OPEN_LOOP_SECONDS });
  if (!only || only === 'threshold') await thresholdBench();
  // Batched calls next to a plain transfer, on its own devnet and service (bench/calls.ts, also npm run bench:calls).
  if (!only || only === 'calls') {
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'apps/api/bench/calls.ts'], { cwd: repoRoot, stdio: 'inherit' });
      child.once('exit', (exitCode) => resolve(exitCode));
    });
    if (code !== 0) console.log(`batched calls: bench/calls.ts exited ${code} (some requests did not confirm; see above)`);
  }
} finally {
  finished = true;
  for (const child of children) child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await database?.drop();
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(offDataDir, { recursive: true, force: true });
}
