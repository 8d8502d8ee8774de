/**
 * Test helper: a real ERC-4337 bundler (@pimlico/alto) in front of a local anvil.
 *
 * alto is GPL-3.0-or-later. It is a devDependency of @wallet/chains and only ever runs as a
 * separate test-time process spawned here; no service code imports it (the service talks to any
 * bundler through the JSON-RPC adapter in evm/sponsorship/bundler*.ts).
 *
 * alto listens on 0.0.0.0 with no host flag: a preloaded module (alto-loopback.mjs) moves it to
 * 127.0.0.1, and the start checks that nothing listens on the wildcard address. Its mempool is in
 * memory: kill() + restart() forgets every operation that was not yet in a broadcast transaction.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Address, Hex } from 'viem';

export interface StartAltoOptions {
  /** The node alto reads and sends bundles to (anvil). */
  rpcUrl: string;
  entryPoint: Address;
  /** Signs and pays for the handleOps transactions: fund it first. */
  executorPrivateKey: Hex;
  /** Deploys alto's simulation contracts on start: fund it first. */
  utilityPrivateKey: Hex;
  /** The chain's block time (alto polls receipts by it); default 1000. */
  blockTimeMs?: number;
  /** Appended verbatim to the command line. */
  extraArgs?: readonly string[];
}

export interface AltoInstance {
  /** JSON-RPC endpoint (POST). */
  readonly url: string;
  readonly pid: number;
  /** Spawn → first answer of the last (re)start, ms. */
  readonly startupMs: number;
  /** Resident set size of the alto process now, bytes (from /proc). */
  rssBytes(): number;
  /** Writes the captured output to a file and returns its path (for a failed test). */
  writeLogs(): string;
  /** SIGTERM, then SIGKILL after 3 s; resolves once exited. Idempotent. */
  stop(): Promise<void>;
  /** SIGKILL (no shutdown handler runs); resolves once exited. */
  kill(): Promise<void>;
  /** Stops it if it runs, then starts it again on the same port with the same flags. */
  restart(): Promise<void>;
}

const READY_TIMEOUT_MS = 30_000;
const STOP_GRACE_MS = 3_000;
const LOG_LIMIT = 512 * 1024;

/** alto's CLI entry, resolved from the installed package (its exports map only exposes esm/index.js). */
export function altoCliPath(): string {
  const main = createRequire(import.meta.url).resolve('@pimlico/alto');
  return path.join(path.dirname(main), 'cli', 'alto.js');
}

const LOOPBACK_PRELOAD = fileURLToPath(new URL('./alto-loopback.mjs', import.meta.url));

const live = new Set<ChildProcess>();
let exitHook = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (exitHook) return;
  exitHook = true;
  process.once('exit', () => {
    for (const c of live) c.kill('SIGKILL');
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether something listens on the IPv4 or IPv6 wildcard address at `port`. */
function wildcardListener(port: number): boolean {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const wildcard = [`00000000:${hexPort}`, `00000000000000000000000000000000:${hexPort}`];
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      if (state === '0A' && local !== undefined && wildcard.includes(local)) return true;
    }
  }
  return false;
}

async function supportedEntryPoints(url: string): Promise<string[] | undefined> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_supportedEntryPoints', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await res.json()) as { result?: unknown };
    return Array.isArray(body.result) ? body.result.map(String) : undefined;
  } catch {
    return undefined;
  }
}

const exited = (child: ChildProcess) => child.exitCode !== null || child.signalCode !== null;
const waitExit = (child: ChildProcess) => (exited(child) ? Promise.resolve() : new Promise<void>((r) => child.once('exit', () => r())));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

class AltoStartError extends Error {
  override readonly name = 'AltoStartError';
  constructor(
    message: string,
    readonly addressInUse: boolean,
  ) {
    super(message);
  }
}

/** Spawns alto on 127.0.0.1 and resolves once it answers eth_supportedEntryPoints with `entryPoint`. */
export async function startAlto(opts: StartAltoOptions): Promise<AltoInstance> {
  const args = (port: number) => [
    '--import', LOOPBACK_PRELOAD,
    altoCliPath(),
    '--port', String(port),
    '--rpc-url', opts.rpcUrl,
    '--entrypoints', opts.entryPoint,
    '--safe-mode', 'false',
    '--block-time', String(opts.blockTimeMs ?? 1000),
    // v2, as hosted Pimlico serves it: ops below pimlico_getUserOperationGasPrice or with too little
    // preVerificationGas are refused (v1 skips both checks).
    '--default-api-version', 'v2',
    // debug_bundler_setBundlingMode, to hold ops in the mempool in a test.
    '--enable-debug-endpoints', 'true',
    '--log-level', 'info',
    '--public-client-log-level', 'warn',
    '--wallet-client-log-level', 'warn',
    ...(opts.extraArgs ?? []),
  ];
  // A clean environment: keys are passed as ALTO_* variables (yargs .env('ALTO')), not on the
  // command line; nothing of the parent's (SENTRY_DSN, OTEL_*, a .env in the cwd) reaches alto.
  const env = {
    PATH: process.env.PATH ?? '',
    ALTO_EXECUTOR_PRIVATE_KEYS: opts.executorPrivateKey,
    ALTO_UTILITY_PRIVATE_KEY: opts.utilityPrivateKey,
    DOTENV_CONFIG_PATH: '/dev/null',
  };
  let log = '';
  const append = (chunk: string) => {
    log += chunk;
    if (log.length > LOG_LIMIT) log = log.slice(log.length - LOG_LIMIT);
  };
  const writeLogs = (port: number) => {
    const file = path.join(tmpdir(), `alto-${port}-${Date.now()}.log`);
    writeFileSync(file, log);
    return file;
  };

  let child: ChildProcess | undefined;
  let port = 0;
  let startupMs = 0;
  let expectExit = false;

  async function spawnOnce(onPort: number): Promise<void> {
    const started = performance.now();
    const c = spawn(process.execPath, args(onPort), { cwd: tmpdir(), env, stdio: ['ignore', 'pipe', 'pipe'] });
    c.stdout?.setEncoding('utf8').on('data', append);
    c.stderr?.setEncoding('utf8').on('data', append);
    c.unref();
    track(c);
    expectExit = false;
    c.once('exit', (code, signal) => {
      if (!expectExit) append(`\n[startAlto] alto exited unexpectedly (code ${code}, signal ${signal}); logs: ${writeLogs(onPort)}\n`);
    });
    const url = `http://127.0.0.1:${onPort}/rpc`;
    const deadline = Date.now() + READY_TIMEOUT_MS;
    for (;;) {
      if (exited(c)) {
        expectExit = true;
        throw new AltoStartError(`alto exited before answering (code ${c.exitCode}); logs: ${writeLogs(onPort)}`, /EADDRINUSE/.test(log));
      }
      const entryPoints = await supportedEntryPoints(url);
      if (entryPoints) {
        if (!entryPoints.some((e) => e.toLowerCase() === opts.entryPoint.toLowerCase())) {
          expectExit = true;
          c.kill('SIGKILL');
          throw new AltoStartError(`the bundler on ${url} does not serve ${opts.entryPoint} (${entryPoints.join(', ')})`, true);
        }
        break;
      }
      if (Date.now() > deadline) {
        expectExit = true;
        c.kill('SIGKILL');
        await waitExit(c);
        throw new AltoStartError(`alto did not answer within ${READY_TIMEOUT_MS} ms; logs: ${writeLogs(onPort)}`, false);
      }
      await sleep(50);
    }
    if (wildcardListener(onPort)) {
      expectExit = true;
      c.kill('SIGKILL');
      throw new Error(`alto listens on a wildcard address at port ${onPort}: the loopback preload did not apply`);
    }
    startupMs = performance.now() - started;
    child = c;
    port = onPort;
  }

  for (let n = 1; ; n++) {
    try {
      await spawnOnce(await freePort());
      break;
    } catch (err) {
      if (!(err instanceof AltoStartError && err.addressInUse) || n >= 3) throw err;
    }
  }

  const stop = async () => {
    const c = child;
    if (!c || exited(c)) return;
    expectExit = true;
    const done = waitExit(c);
    c.kill('SIGTERM');
    const timer = setTimeout(() => c.kill('SIGKILL'), STOP_GRACE_MS);
    try {
      await done;
    } finally {
      clearTimeout(timer);
    }
  };

  return {
    url: `http://127.0.0.1:${port}/rpc`,
    get pid() {
      return child?.pid ?? -1;
    },
    get startupMs() {
      return startupMs;
    },
    rssBytes() {
      const status = readFileSync(`/proc/${child?.pid}/status`, 'utf8');
      const kib = /^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1];
      if (!kib) throw new Error('no VmRSS for the alto process');
      return Number(kib) * 1024;
    },
    writeLogs: () => writeLogs(port),
    stop,
    async kill() {
      const c = child;
      if (!c || exited(c)) return;
      expectExit = true;
      const done = waitExit(c);
      c.kill('SIGKILL');
      await done;
    },
    async restart() {
      await stop();
      await spawnOnce(port);
    },
  };
}
