/**
 * The signer section's HTTP rows: POST /v1/wallets/{id}/sign-message through the whole API (auth,
 * policy stage, audit row and event in the database, embedded PGlite) on two services started side
 * by side (signing-server.ts): the key joined in the API process, as before the signer, and the
 * signer process as `npm start` runs it (secp256k1 joined there, FROST(Ed25519) across both). The
 * figure a partner meets, and the one the throughput target is judged on.
 *
 * Windows interleave (joined, signer, signer, joined) so a drift in the machine's load falls on both;
 * CPU per request of the API process and of the signer from /proc over exactly the measured windows.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { apiNodeFlags } from '../scripts/build.mjs';
import { repoRoot } from '../src/config.ts';
import { closedLoop, openLoop, type LoadResult } from './load.ts';
import { percentiles, processCpuMs } from './signer-load.ts';

interface Server {
  child: ChildProcess;
  url: string;
  apiKey: string;
  signerPid: number | null;
  dataDir: string;
}

async function startServer(vault: 'joined' | 'signer'): Promise<Server> {
  const dataDir = mkdtempSync(path.join(tmpdir(), `wallet-bench-${vault}-`));
  // With the API's own node options (npm start's), whichever vault it runs.
  const child = spawn(process.execPath, [...apiNodeFlags, '--import', 'tsx', 'apps/api/bench/signing-server.ts'], {
    cwd: repoRoot,
    env: { ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, LOCAL_DEVNETS: 'off', CONSOLE: 'off', LOG_LEVEL: 'warn', DATABASE_URL: '', BENCH_VAULT: vault },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const ready = await new Promise<{ url: string; apiKey: string; signerPid: number | null }>((resolve, reject) => {
    let buffer = '';
    child.stdout!.on('data', (chunk: Buffer) => {
      buffer += chunk;
      const line = buffer.split('\n').find((l) => l.startsWith('{"url"'));
      if (line) resolve(JSON.parse(line) as never);
    });
    child.once('exit', (code) => reject(new Error(`the ${vault} bench service exited with ${code}`)));
  });
  return { child, dataDir, ...ready };
}

async function stopServer(server: Server): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.stdin!.end();
  const timer = setTimeout(() => server.child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
  rmSync(server.dataDir, { recursive: true, force: true });
}

export interface HttpMeasured extends LoadResult {
  max: number;
  /** CPU ms per request: the API process, and the signer process (null: none). */
  apiCpuMs: number;
  signerCpuMs: number | null;
}

async function measured(server: Server, run: () => Promise<LoadResult>): Promise<HttpMeasured> {
  const api0 = processCpuMs(server.child.pid)!;
  const signer0 = server.signerPid ? processCpuMs(server.signerPid) : null;
  const result = await run();
  const api1 = processCpuMs(server.child.pid)!;
  const signer1 = server.signerPid ? processCpuMs(server.signerPid) : null;
  return {
    ...result,
    max: result.latencies.at(-1) ?? 0,
    apiCpuMs: (api1 - api0) / result.requests,
    signerCpuMs: signer0 !== null && signer1 !== null ? (signer1 - signer0) / result.requests : null,
  };
}

function combine(rounds: HttpMeasured[]): HttpMeasured {
  const requests = rounds.reduce((s, r) => s + r.requests, 0);
  const seconds = rounds.reduce((s, r) => s + r.seconds, 0);
  const statuses: Record<number, number> = {};
  for (const r of rounds) for (const [k, v] of Object.entries(r.statuses)) statuses[Number(k)] = (statuses[Number(k)] ?? 0) + v;
  const latencies = rounds.flatMap((r) => r.latencies).sort((a, b) => a - b);
  const weighted = (f: (r: HttpMeasured) => number | null) => (rounds.some((r) => f(r) === null) ? null : rounds.reduce((s, r) => s + f(r)! * r.requests, 0) / requests);
  return { requests, seconds, perSecond: requests / seconds, statuses, latencies, ...percentiles(latencies), apiCpuMs: weighted((r) => r.apiCpuMs)!, signerCpuMs: weighted((r) => r.signerCpuMs) };
}

export interface SignerHttpOptions {
  signs: number;
  concurrency: number;
  /**
   * In flight for the EVM throughput rows, one pair of rows per level: each path's throughput is its
   * best level's rate, so that its CPU, not its latency, sets it (the path through the signer has one
   * more hop and a durable write in every request, and needs more in flight to fill the cores).
   */
  saturatingConcurrency: number[];
  /** Requests per path and level in the throughput rows (two interleaved windows each). */
  saturatingSigns: number;
  evmRate: number;
  solanaRate: number;
  openSeconds: number;
}

export interface SignerHttpRows {
  evm: {
    closed: { joined: HttpMeasured; signer: HttpMeasured };
    saturated: { concurrency: number; joined: HttpMeasured; signer: HttpMeasured }[];
    open: { joined: HttpMeasured; signer: HttpMeasured };
  };
  solana: { closed: { joined: HttpMeasured; signer: HttpMeasured }; open: { joined: HttpMeasured; signer: HttpMeasured } };
}

export async function signerHttpBench(options: SignerHttpOptions): Promise<SignerHttpRows> {
  const servers = await Promise.all([startServer('joined'), startServer('signer')]);
  const [joined, signer] = servers;
  try {
    const message = JSON.stringify({ message: 'benchmark message: sign me' });
    const paths = async (type: 'EVM' | 'SOLANA') => {
      const out = {} as Record<'joined' | 'signer', () => { method: string; path: string; headers: Record<string, string>; body: string }>;
      for (const [name, server] of [['joined', joined], ['signer', signer]] as const) {
        const headers = { 'x-api-key': server.apiKey };
        const response = await fetch(`${server.url}/v1/wallets`, {
          method: 'POST',
          headers: { ...headers, 'content-type': 'application/json' },
          body: JSON.stringify({ type, userIdentifier: `bench-${type}`, userIdentifierType: 'CUSTOM_ID' }),
        });
        if (response.status !== 201) throw new Error(`${name}: wallet creation answered ${response.status} ${await response.text()}`);
        const wallet = (await response.json()) as { id: string };
        const request = { method: 'POST', path: `/v1/wallets/${wallet.id}/sign-message`, headers, body: message };
        out[name] = () => request;
      }
      return out;
    };
    const servedBy = { joined, signer };
    const interleaved = async (run: (server: Server, which: 'joined' | 'signer') => Promise<LoadResult>) => {
      const windows = { joined: [] as HttpMeasured[], signer: [] as HttpMeasured[] };
      for (const which of ['joined', 'signer', 'signer', 'joined'] as const) windows[which].push(await measured(servedBy[which], () => run(servedBy[which], which)));
      return { joined: combine(windows.joined), signer: combine(windows.signer) };
    };
    const rows = async (type: 'EVM' | 'SOLANA', rate: number) => {
      const request = await paths(type);
      for (const which of ['joined', 'signer'] as const) await closedLoop(servedBy[which].url, 300, options.concurrency, request[which]);
      const closed = await interleaved((server, which) => closedLoop(server.url, Math.round(options.signs / 2), options.concurrency, request[which]));
      const saturated: { concurrency: number; joined: HttpMeasured; signer: HttpMeasured }[] = [];
      for (const concurrency of type === 'EVM' ? options.saturatingConcurrency : []) {
        saturated.push({ concurrency, ...(await interleaved((server, which) => closedLoop(server.url, Math.round(options.saturatingSigns / 2), concurrency, request[which]))) });
      }
      const open = await interleaved((server, which) => openLoop(server.url, rate, options.openSeconds / 2, request[which]));
      return { closed, saturated, open };
    };
    const evm = await rows('EVM', options.evmRate);
    const solana = await rows('SOLANA', options.solanaRate);
    return { evm, solana: { closed: solana.closed, open: solana.open } };
  } finally {
    await Promise.all(servers.map(stopServer));
  }
}
