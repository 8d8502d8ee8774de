/**
 * Runs the signer as a child of the calling process (the API in local mode, tests): builds
 * apps/signer/dist/main.js when stale, starts `node apps/signer/dist/main.js` with the given env,
 * waits for its ready line, and restarts it when it exits unexpectedly, after a delay that doubles
 * from 0.2 s to 5 s (back to 0.2 s once a child stayed up 10 s). The child runs with
 * SIGNER_EXIT_WITH_PARENT=1 and its stdin on a pipe from here, so it exits when this process dies,
 * however it dies. Its log lines are passed to `logger`.
 *
 * The first start rejects when the child exits before it is ready (a configuration refusal, whose
 * reason is in the error); later exits only restart it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { READY_MESSAGE } from '../transport/protocol.ts';

const signerDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const repoRoot = path.resolve(signerDir, '../..');

interface BuildModule {
  buildSigner(): Promise<boolean>;
  signerStartCommand: { args: string[]; env: Record<string, string> };
}

export interface SupervisorLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface SupervisorOptions {
  env: Record<string, string | undefined>;
  logger: SupervisorLogger;
  /** Called each time a signer child is ready (first start and every restart). */
  onReady?: (signer: { address: string; pid: number }) => void;
  /** Time a child has to print its ready line (default 30000 ms); one that does not is killed. */
  readyTimeoutMs?: number;
  minRestartDelayMs?: number;
  maxRestartDelayMs?: number;
}

export interface SupervisedSigner {
  stop(): Promise<void>;
  pid(): number | undefined;
  restarts(): number;
  /** The address of the last ready child. */
  address(): string | undefined;
}

const STABLE_MS = 10_000;
/** The signer's exit status when another live signer holds its store (apps/signer/src/main.ts). */
const STORE_BUSY_EXIT = 75;
/** How long the first start waits for a busy store to be freed before using the other signer. */
const SHARED_AFTER_MS = 3000;

export async function startSupervisedSigner(options: SupervisorOptions): Promise<SupervisedSigner> {
  const { logger } = options;
  const build = (await import(pathToFileURL(path.join(signerDir, 'scripts', 'build.mjs')).href)) as BuildModule;
  if (await build.buildSigner()) logger.info({ file: path.join(signerDir, 'dist', 'main.js') }, 'built the signer');
  const minDelay = options.minRestartDelayMs ?? 200;
  const maxDelay = options.maxRestartDelayMs ?? 5000;
  const readyTimeoutMs = options.readyTimeoutMs ?? 30_000;

  let child: ChildProcess | undefined;
  let stopping = false;
  let restarts = 0;
  let consecutiveFailures = 0;
  let address: string | undefined;
  let restartTimer: NodeJS.Timeout | undefined;
  let firstStart: { resolve(): void; reject(error: Error): void } | undefined;
  let exited: Promise<void> = Promise.resolve();
  const killOnExit = () => child?.kill('SIGKILL');
  process.on('exit', killOnExit);

  function spawnChild(): void {
    restartTimer = undefined;
    const started = Date.now();
    let readyAt: number | undefined;
    let lastReason: string | undefined;
    const proc = spawn(process.execPath, build.signerStartCommand.args, {
      cwd: repoRoot,
      env: { ...(options.env as NodeJS.ProcessEnv), ...build.signerStartCommand.env, SIGNER_EXIT_WITH_PARENT: '1' },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child = proc;
    exited = new Promise((resolve) => proc.once('close', () => resolve()));
    proc.stdin!.on('error', () => {});
    const readyTimer = setTimeout(() => {
      logger.error({ pid: proc.pid, readyTimeoutMs }, 'signer did not become ready in time: killing it');
      proc.kill('SIGKILL');
    }, readyTimeoutMs);

    createInterface({ input: proc.stdout! }).on('line', (line) => {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        logger.info({ source: 'signer', pid: proc.pid, line: line.slice(0, 1000) });
        return;
      }
      const { msg, level, ...fields } = entry;
      if (msg === READY_MESSAGE && readyAt === undefined) {
        readyAt = Date.now();
        clearTimeout(readyTimer);
        address = String(entry.address);
        // The libsecp256k1 builds it loaded (native, or the WebAssembly fallback): the operator's to see.
        logger.info({ source: 'signer', pid: proc.pid, address, restarts, secp256k1: entry.secp256k1, thresholdEcdsa: entry.thresholdEcdsa }, 'signer ready');
        options.onReady?.({ address, pid: proc.pid! });
        firstStart?.resolve();
        firstStart = undefined;
        return;
      }
      if (typeof entry.reason === 'string') lastReason = entry.reason;
      const log = level === 'error' || level === 'fatal' ? logger.error : level === 'warn' ? logger.warn : logger.info;
      log.call(logger, { source: 'signer', ...fields }, typeof msg === 'string' ? msg : undefined);
    });
    createInterface({ input: proc.stderr! }).on('line', (line) => logger.warn({ source: 'signer', pid: proc.pid, stderr: line.slice(0, 1000) }));

    // 'close', not 'exit': the child's last lines (a refusal's reason) have been read by then.
    proc.once('close', (code, signal) => {
      clearTimeout(readyTimer);
      if (child === proc) child = undefined;
      if (stopping) return;
      // Another live signer serves this data directory (a second API process of the deployment on
      // the same DATA_DIR, or the previous one still shutting down): use it, and try again to take
      // over, so that this process has a signer of its own once the other one is gone.
      if (code === STORE_BUSY_EXIT) {
        const waited = Date.now() - startedAt;
        if (firstStart && waited >= SHARED_AFTER_MS) {
          logger.info({ waitedMs: waited }, 'another signer serves this data directory: using it, and taking over when it stops');
          firstStart.resolve();
          firstStart = undefined;
        }
        restartTimer = setTimeout(spawnChild, firstStart ? 100 : 1000);
        return;
      }
      if (firstStart) {
        const pending = firstStart;
        firstStart = undefined;
        pending.reject(new Error(`the signer exited before it was ready (${signal ?? `status ${code}`})${lastReason ? `: ${lastReason}` : ''}`));
        return;
      }
      if (readyAt !== undefined && Date.now() - readyAt >= STABLE_MS) consecutiveFailures = 0;
      const delay = Math.min(maxDelay, minDelay * 2 ** consecutiveFailures);
      consecutiveFailures++;
      restarts++;
      logger.warn({ pid: proc.pid, code, signal, upMs: Date.now() - started, restartInMs: delay, restarts }, 'signer exited unexpectedly: restarting it');
      restartTimer = setTimeout(spawnChild, delay);
    });
  }

  const startedAt = Date.now();
  await new Promise<void>((resolve, reject) => {
    firstStart = { resolve, reject };
    spawnChild();
  }).catch((error: unknown) => {
    process.off('exit', killOnExit);
    throw error;
  });

  return {
    pid: () => child?.pid,
    restarts: () => restarts,
    address: () => address,
    async stop() {
      stopping = true;
      if (restartTimer) clearTimeout(restartTimer);
      const proc = child;
      if (proc && proc.exitCode === null && proc.signalCode === null) {
        proc.kill('SIGTERM');
        const timer = setTimeout(() => proc.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      process.off('exit', killOnExit);
    },
  };
}
