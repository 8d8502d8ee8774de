/**
 * Local EVM devnet: spawns the anvil binary from @foundry-rs/anvil-linux-amd64 directly (never
 * through npx — killing the wrapper leaves anvil running) and stops it by pid.
 *
 * Always runs with `--slots-in-an-epoch 1` (with the default 32, `finalized` stays at block 0 for
 * 64 blocks) and interval mining (`--block-time`), so confirmations and the finalized head move
 * even without traffic.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync, readlinkSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';

export interface StartAnvilOptions {
  /** 0 or omitted: a free port. */
  port?: number;
  /** Default 84532 (Base Sepolia's id). */
  chainId?: number;
  /** Interval mining period; default 1; fractional values (e.g. 0.25) are accepted by anvil. */
  blockTimeSeconds?: number;
  /** Extra anvil CLI arguments appended verbatim (e.g. `['--fork-url', url]`). */
  extraArgs?: readonly string[];
  /**
   * Keep the chain in this file (anvil `--state`): loaded on start when it exists (blocks, receipts,
   * accounts, genesis hash), written every `stateIntervalSeconds` and on SIGTERM/SIGINT. A file
   * anvil cannot parse (e.g. cut short by a crash mid-write) is moved aside and the chain starts fresh.
   */
  statePath?: string;
  /** Default 5. */
  stateIntervalSeconds?: number;
}

export interface AnvilInstance {
  rpcUrl: string;
  chainId: number;
  pid: number;
  /** The file a corrupt state was moved to before this start, if that happened. */
  discardedState?: string;
  /** The pid of an anvil left running on the same state file (its parent was killed) that this start stopped first. */
  stoppedLeftover?: number;
  /** SIGTERM, then SIGKILL after 3 s (10 s with a state file, which anvil writes on SIGTERM); resolves once the process has exited. Idempotent. */
  stop(): Promise<void>;
}

const READY_TIMEOUT_MS = 10_000;
const STOP_GRACE_MS = 3_000;
const STOP_GRACE_WITH_STATE_MS = 10_000;

/** Absolute path of the anvil binary shipped by the optional dependency. */
export function anvilBinaryPath(): string {
  const require = createRequire(import.meta.url);
  let pkgJson: string;
  try {
    pkgJson = require.resolve('@foundry-rs/anvil-linux-amd64/package.json');
  } catch (err) {
    throw new Error(
      `anvil binary not found: @foundry-rs/anvil-linux-amd64 is not installed (platform ${process.platform}-${process.arch})`,
      { cause: err },
    );
  }
  return join(dirname(pkgJson), 'bin', 'anvil');
}

// One process-wide 'exit' hook kills every anvil we still own (sync SIGKILL: nothing async runs in 'exit').
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of live) {
        try {
          c.kill('SIGKILL');
        } catch {
          /* already gone */
        }
      }
    });
  }
}

/** Rejects with EADDRINUSE-style error if something already listens on 127.0.0.1:port. */
/**
 * Whether process `pid` holds the listening socket of 127.0.0.1:`port` (read from /proc). Every
 * local anvil answers the same chain id, so an answer alone does not say the node is ours: another
 * process (a parallel test file's anvil) may bind the port between freePort() and our anvil's bind.
 */
function holdsListeningSocket(pid: number, port: number): boolean {
  const local = `0100007F:${port.toString(16).toUpperCase().padStart(4, '0')}`;
  const listening = new Set<string>();
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, localAddress, , state, , , , , , inode] = line.trim().split(/\s+/);
    if (localAddress === local && state === '0A') listening.add(`socket:[${inode}]`);
  }
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    try {
      return listening.has(readlinkSync(`/proc/${pid}/fd/${fd}`));
    } catch {
      return false;
    }
  });
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolvePort(port));
    });
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function rpcChainId(rpcUrl: string): Promise<number | undefined> {
  try {
    const res = await fetch(rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await res.json()) as { result?: string };
    return body.result ? Number(BigInt(body.result)) : undefined;
  } catch {
    return undefined;
  }
}

function waitExit(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((r) => child.once('exit', () => r()));
}

class AnvilStartError extends Error {
  constructor(
    message: string,
    readonly addressInUse: boolean,
    readonly badStateFile = false,
  ) {
    super(message);
    this.name = 'AnvilStartError';
  }
}

async function startOnce(
  port: number,
  chainId: number,
  blockTime: number,
  extraArgs: readonly string[],
  stopGraceMs = STOP_GRACE_MS,
): Promise<AnvilInstance> {
  const args = [
    '--host', '127.0.0.1',
    '--port', String(port),
    '--chain-id', String(chainId),
    '--slots-in-an-epoch', '1',
    '--block-time', String(blockTime),
    '--silent',
    ...extraArgs,
  ];
  const child = spawn(anvilBinaryPath(), args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (d: string) => {
    if (stderr.length < 16_384) stderr += d;
  });
  let spawnError: Error | undefined;
  child.once('error', (e) => (spawnError = e));
  // Do not keep the parent alive just because anvil runs; the 'exit' hook reaps it.
  child.unref();
  (child.stderr as { unref?: () => void } | null)?.unref?.();
  track(child);

  const rpcUrl = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = waitExit(child);
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), stopGraceMs);
    try {
      await exited;
    } finally {
      clearTimeout(timer);
    }
  };

  const deadline = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (spawnError) throw new AnvilStartError(`anvil failed to spawn: ${spawnError.message}`, false);
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new AnvilStartError(
        `anvil exited before becoming ready (code ${child.exitCode}, signal ${child.signalCode}): ${stderr.trim()}`,
        /address already in use|os error 98/i.test(stderr),
        /for '--(load-)?state <PATH>'/.test(stderr),
      );
    }
    const id = await rpcChainId(rpcUrl);
    if (id !== undefined) {
      if (child.pid === undefined || !holdsListeningSocket(child.pid, port)) {
        await stop();
        throw new AnvilStartError(`port ${port} on 127.0.0.1 is not available (another process answers there)`, true);
      }
      break;
    }
    if (Date.now() > deadline) {
      await stop();
      throw new AnvilStartError(`anvil not ready after ${READY_TIMEOUT_MS} ms on ${rpcUrl}: ${stderr.trim()}`, false);
    }
    await sleep(25);
  }
  if (child.pid === undefined) throw new AnvilStartError('anvil has no pid', false);
  return { rpcUrl, chainId, pid: child.pid, stop };
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/**
 * An anvil survives a SIGKILL of the process that started it (the 'exit' hook cannot run) and would
 * keep dumping into the state file. Its pid is kept next to the file: a leftover still running on
 * this file is stopped with SIGTERM (so it writes its latest state) before a new one loads it.
 */
async function stopLeftover(statePath: string): Promise<number | undefined> {
  const pidFile = `${statePath}.pid`;
  let pid: number;
  let cmdline: string;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
    cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    rmSync(pidFile, { force: true });
    return undefined;
  }
  if (!cmdline.includes('anvil') || !cmdline.split('\0').includes(statePath)) {
    rmSync(pidFile, { force: true });
    return undefined;
  }
  process.kill(pid, 'SIGTERM');
  const deadline = Date.now() + STOP_GRACE_WITH_STATE_MS;
  while (isAlive(pid) && Date.now() < deadline) await sleep(25);
  if (isAlive(pid)) process.kill(pid, 'SIGKILL');
  rmSync(pidFile, { force: true });
  return pid;
}

/** Starts anvil and resolves once `eth_chainId` answers. */
export async function startAnvil(opts: StartAnvilOptions = {}): Promise<AnvilInstance> {
  const chainId = opts.chainId ?? 84532;
  const blockTime = opts.blockTimeSeconds ?? 1;
  const stateArgs = opts.statePath ? ['--state', opts.statePath, '--state-interval', String(opts.stateIntervalSeconds ?? 5)] : [];
  const extra = [...stateArgs, ...(opts.extraArgs ?? [])];
  const grace = opts.statePath ? STOP_GRACE_WITH_STATE_MS : STOP_GRACE_MS;
  if (!(blockTime > 0 && Number.isFinite(blockTime))) throw new Error(`blockTimeSeconds must be > 0, got ${blockTime}`);
  if (!(Number.isSafeInteger(chainId) && chainId > 0)) throw new Error(`chainId must be a positive integer, got ${chainId}`);
  if (opts.port !== undefined && !(Number.isInteger(opts.port) && opts.port >= 0 && opts.port < 65536)) {
    throw new Error(`invalid port ${opts.port}`);
  }
  const stoppedLeftover = opts.statePath ? await stopLeftover(opts.statePath) : undefined;
  let discardedState: string | undefined;
  const attempt = async (port: number): Promise<AnvilInstance> => {
    try {
      return await startOnce(port, chainId, blockTime, extra, grace);
    } catch (err) {
      if (!(err instanceof AnvilStartError && err.badStateFile && opts.statePath && !discardedState)) throw err;
      discardedState = `${opts.statePath}.corrupt-${Date.now()}`;
      renameSync(opts.statePath, discardedState);
      return startOnce(port, chainId, blockTime, extra, grace);
    }
  };
  const withDiscarded = (a: AnvilInstance): AnvilInstance => {
    if (!opts.statePath) return a;
    const pidFile = `${opts.statePath}.pid`;
    writeFileSync(pidFile, String(a.pid));
    return {
      ...a,
      ...(discardedState ? { discardedState } : {}),
      ...(stoppedLeftover ? { stoppedLeftover } : {}),
      async stop() {
        await a.stop();
        rmSync(pidFile, { force: true });
      },
    };
  };
  if (opts.port) return withDiscarded(await attempt(opts.port));
  // Free port chosen here, so another process can grab it before anvil binds: retry a few times.
  for (let n = 1; ; n++) {
    try {
      return withDiscarded(await attempt(await freePort()));
    } catch (err) {
      if (!(err instanceof AnvilStartError && err.addressInUse) || n >= 3) throw err;
    }
  }
}
