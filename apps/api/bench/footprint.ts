/**
 * npm run bench:footprint: resident memory at rest and start-to-healthy time of the stack started
 * exactly as `npm start` starts it, next to a bare node process measured in the same run.
 * 1. `npm start` on a fresh DATA_DIR (embedded database, local devnets, console), then at rest;
 * 2. `npm start` again on the same DATA_DIR (a restart: console built, database migrated);
 * 3. `npm start` on PostgreSQL with no devnets and no console (the API alone) on a brand-new scratch
 *    database, whose first start migrates it;
 * 4. the same again on that database (a restart: already migrated).
 * RSS is read from /proc for every process the start spawned (npm and sh excluded), after
 * BENCH_REST_SECONDS (default 10) without traffic. Not a test: compare rows of one run.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createScratchDatabase } from '@wallet/db';
import { repoRoot } from '../src/config.ts';

const REST_SECONDS = Number(process.env.BENCH_REST_SECONDS ?? 10);
const POSTGRES_URL = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres';

interface ProcessInfo {
  pid: number;
  ppid: number;
  rssMb: number;
  command: string;
}

function readProcess(pid: number): ProcessInfo | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const ppid = Number(/^PPid:\s+(\d+)/m.exec(status)?.[1]);
    const rssKb = Number(/^VmRSS:\s+(\d+)/m.exec(status)?.[1] ?? 0);
    const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
    return { pid, ppid, rssMb: rssKb / 1024, command };
  } catch {
    return undefined;
  }
}

/** Every live descendant of `root` (root included). */
function processTree(root: number): ProcessInfo[] {
  const all = readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map((name) => readProcess(Number(name)))
    .filter((p): p is ProcessInfo => p !== undefined);
  const tree: ProcessInfo[] = [];
  const queue = [root];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    const self = all.find((p) => p.pid === pid);
    if (self) tree.push(self);
    for (const child of all.filter((p) => p.ppid === pid)) queue.push(child.pid);
  }
  return tree;
}

function role(command: string): string | undefined {
  if (/apps\/api\/dist\/main\.js|apps\/api\/src\/main\.ts/.test(command)) return 'API (+ embedded database, LiteSVM)';
  if (/anvil/.test(command)) return 'anvil';
  if (/next/.test(command)) return 'console (next start)';
  if (/(^|\/)(npm|sh)( |$)|npm-cli\.js/.test(command)) return undefined;
  return command.slice(0, 60);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function waitFor(url: string, child: ChildProcess, timeoutMs = 600_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
    if (await fetch(url).then((r) => r.ok, () => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} not ready`);
}

interface StartResult {
  apiHealthySeconds: number;
  consoleReadySeconds?: number;
  processes: { role: string; rssMb: number }[];
}

/** `npm start` with `env`, timed to healthy, measured at rest, then stopped with SIGINT (Ctrl-C). */
async function measureStart(name: string, env: Record<string, string>, withConsole: boolean): Promise<StartResult> {
  const port = await freePort();
  const consolePort = await freePort();
  const started = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: repoRoot,
    env: { ...process.env, LOG_LEVEL: 'warn', PORT: String(port), CONSOLE_PORT: String(consolePort), ...env },
    stdio: ['ignore', 'ignore', 'inherit'],
    detached: true,
  });
  try {
    await waitFor(`http://127.0.0.1:${port}/health`, child);
    const apiHealthySeconds = (performance.now() - started) / 1000;
    let consoleReadySeconds: number | undefined;
    if (withConsole) {
      await waitFor(`http://127.0.0.1:${consolePort}/sign-in`, child);
      consoleReadySeconds = (performance.now() - started) / 1000;
    }
    await new Promise((resolve) => setTimeout(resolve, REST_SECONDS * 1000));
    const processes = processTree(child.pid!).flatMap((p) => {
      const label = role(p.command);
      return label ? [{ role: label, rssMb: p.rssMb }] : [];
    });
    console.error(`${name}: measured`);
    return { apiHealthySeconds, consoleReadySeconds, processes };
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    process.kill(-child.pid!, 'SIGINT');
    const timer = setTimeout(() => process.kill(-child.pid!, 'SIGKILL'), 20_000);
    await exited;
    clearTimeout(timer);
  }
}

function bareNodeRss(): Promise<number> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60_000)'], { stdio: 'ignore' });
  return new Promise((resolve) =>
    setTimeout(() => {
      const rss = readProcess(child.pid!)?.rssMb ?? NaN;
      child.kill();
      resolve(rss);
    }, 1000),
  );
}

function print(name: string, result: StartResult) {
  const total = result.processes.reduce((sum, p) => sum + p.rssMb, 0);
  const ready = result.consoleReadySeconds === undefined ? '' : `, console ready ${result.consoleReadySeconds.toFixed(1)} s`;
  console.log(`\n${name}: API healthy ${result.apiHealthySeconds.toFixed(1)} s${ready}; at rest after ${REST_SECONDS} s:`);
  for (const p of result.processes) console.log(`  ${p.role.padEnd(40)} ${p.rssMb.toFixed(0).padStart(6)} MB`);
  console.log(`  ${'total'.padEnd(40)} ${total.toFixed(0).padStart(6)} MB`);
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-footprint-'));
const scratch = await createScratchDatabase(POSTGRES_URL, 'footprint');
try {
  const bare = await bareNodeRss();
  const local = { APP_ENV: 'local', DATA_DIR: dataDir, DATABASE_URL: '' };
  const first = await measureStart('first start', local, true);
  const restart = await measureStart('restart', local, true);
  const postgres = { APP_ENV: 'local', DATA_DIR: path.join(dataDir, 'pg'), DATABASE_URL: scratch.url, LOCAL_DEVNETS: 'off', CONSOLE: 'off' };
  const apiFresh = await measureStart('PostgreSQL first start (migrates)', postgres, false);
  const apiAlone = await measureStart('PostgreSQL restart', postgres, false);

  console.log(`\nfootprint bench — ${new Date().toISOString()}, node ${process.version}`);
  console.log(`bare node process: ${bare.toFixed(0)} MB`);
  print('npm start, fresh DATA_DIR (embedded database, devnets, console)', first);
  print('npm start again (restart, console already built)', restart);
  print('npm start on a new PostgreSQL database, LOCAL_DEVNETS=off CONSOLE=off (API alone, migrates)', apiFresh);
  print('npm start on PostgreSQL again, LOCAL_DEVNETS=off CONSOLE=off (API alone, restart)', apiAlone);
  const total = (result: StartResult) => result.processes.reduce((sum, p) => sum + p.rssMb, 0);
  const check = (label: string, value: number, limit: number, unit: string) => `${label} ${value.toFixed(unit === 's' ? 1 : 0)} ${unit} <= ${limit} ${unit}: ${value <= limit ? 'met' : 'NOT met'}`;
  console.log('\ntargets:');
  for (const line of [
    check('API alone on PostgreSQL, fresh database', total(apiFresh), 150, 'MB'),
    check('API alone on PostgreSQL, restart', total(apiAlone), 150, 'MB'),
    check('whole local stack, fresh DATA_DIR', total(first), 450, 'MB'),
    check('whole local stack, restart', total(restart), 420, 'MB'),
    check('restart to healthy', restart.apiHealthySeconds, 4, 's'),
  ])
    console.log(`  ${line}`);
} finally {
  await scratch.drop();
  rmSync(dataDir, { recursive: true, force: true });
}
