/**
 * npm run bench: wallet creations per second and GET /v1/wallets/{id} latency against the real
 * service (embedded PGlite, own process), next to a bare express route measured in the same run.
 * Not a test: figures depend on the machine; compare the two columns, not absolute numbers.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { repoRoot } from '../src/config.ts';
import { readControlFile } from '../src/local/control.ts';
import { closedLoop, type LoadResult } from './load.ts';

const CREATIONS = Number(process.env.BENCH_CREATIONS ?? 2000);
const LOOKUPS = Number(process.env.BENCH_LOOKUPS ?? 20000);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 16);

const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-'));
const env = { ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, PORT: '0', LOG_LEVEL: 'warn', DATABASE_URL: process.env.BENCH_DATABASE_URL ?? '' };
const children: ChildProcess[] = [];

function startProcess(script: string, readyLine: (line: string) => string | undefined): Promise<string> {
  const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: repoRoot, env, stdio: ['ignore', 'pipe', 'inherit'] });
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
    child.once('exit', (code) => reject(new Error(`${script} exited with ${code}`)));
  });
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

async function waitForControlFile(): Promise<string> {
  for (let i = 0; i < 600; i++) {
    const control = readControlFile(dataDir);
    if (control) return control.url;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('service did not start');
}

const run = promisify(execFile);

try {
  const bareUrl = await startProcess('apps/api/bench/bare-server.ts', (line) => parse(line).url);
  void startProcess('apps/api/src/main.ts', () => undefined).catch((error) => {
    console.error(error);
    process.exit(1);
  });
  const serviceUrl = await waitForControlFile();
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

  const ratio = lookup.perSecond / bare.perSecond;
  console.log(`\nwallet service bench — ${new Date().toISOString()}, node ${process.version}, concurrency ${CONCURRENCY}, database ${env.DATABASE_URL ? 'PostgreSQL' : 'embedded PGlite'}`);
  console.log(row(`POST /v1/wallets (${CREATIONS})`, created));
  console.log(row(`GET /v1/wallets/{id} (${LOOKUPS})`, lookup));
  console.log(row(`bare express GET (${LOOKUPS})`, bare));
  console.log(`lookup throughput vs bare route: ${(ratio * 100).toFixed(0)}%`);
  console.log(`targets: creation >= 200/s: ${created.perSecond >= 200 ? 'met' : 'NOT met'}; lookup p99 <= 10 ms: ${lookup.p99 <= 10 ? 'met' : 'NOT met'}; lookup >= 40% of bare: ${ratio >= 0.4 ? 'met' : 'NOT met'}`);
} finally {
  for (const child of children) child.kill('SIGTERM');
  await new Promise((resolve) => setTimeout(resolve, 500));
  rmSync(dataDir, { recursive: true, force: true });
}
