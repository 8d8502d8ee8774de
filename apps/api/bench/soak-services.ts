/**
 * The soak's two service processes (slots A and B) on one database: started as `npm start` runs the
 * service (imitating spawnService of src/testing/service-process.ts, which cannot be imported outside
 * vitest), SIGKILLed and started again on demand, stopped at the end. Each process's output goes
 * to its own file in the log directory; its error and fatal log lines are counted by message.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { buildApi, startCommand } from '../scripts/build.mjs';
import { repoRoot } from '../src/config.ts';

const run = promisify(execFile);
const READY_TIMEOUT_MS = 60_000;
const STOP_GRACE_MS = 10_000;

export interface ServiceSlot {
  name: 'A' | 'B';
  /** Set while the process listens; null while it is down or starting. */
  url: string | null;
  child: ChildProcess | null;
  /** Processes this slot has started so far. */
  starts: number;
}

export interface ServiceEvents {
  /** Processes that exited without the soak killing or stopping them (each restarted). */
  unexpectedExits: { slot: string; start: number; code: number | null; signal: string | null }[];
  failedStarts: number;
  /** Error and fatal log lines of every process, counted by message. */
  errorLines: Map<string, number>;
}

/** A log line's message for the error counts: pino's `msg` and the error's own message, or the raw text. */
function errorKey(line: string): string | null {
  if (!line.startsWith('{')) return /error|fatal/i.test(line) ? line.slice(0, 200) : null;
  try {
    const entry = JSON.parse(line) as { level?: number; msg?: string; err?: { message?: string } };
    if ((entry.level ?? 0) < 50) return null;
    return `${entry.msg ?? ''}${entry.err?.message ? `: ${entry.err.message}` : ''}`.slice(0, 200);
  } catch {
    return null;
  }
}

export function createServicePair(env: Record<string, string>, logDir: string) {
  const slots: [ServiceSlot, ServiceSlot] = [
    { name: 'A', url: null, child: null, starts: 0 },
    { name: 'B', url: null, child: null, starts: 0 },
  ];
  const events: ServiceEvents = { unexpectedExits: [], failedStarts: 0, errorLines: new Map() };
  /** Children the soak is ending on purpose (killed or stopped): their exit is not a crash. */
  const ending = new WeakSet<ChildProcess>();
  let stopping = false;

  function spawnOnce(slot: ServiceSlot): Promise<string> {
    // A start racing the soak's clean-up (a restart after a crash, Ctrl-C) must not leave a process behind.
    if (stopping) return Promise.reject(new Error('the soak is stopping'));
    const start = ++slot.starts;
    const log = createWriteStream(path.join(logDir, `service-${slot.name}-${start}.log`));
    const child = spawn(process.execPath, startCommand.args, {
      cwd: repoRoot,
      env: { CONSOLE: 'off', ...startCommand.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    slot.child = child;
    let pendingText = '';
    let listened = false;
    let onListening: (url: string) => void = () => undefined;
    const listening = new Promise<string>((resolve) => (onListening = resolve));
    const scan = (chunk: Buffer) => {
      log.write(chunk);
      pendingText += chunk.toString('utf8');
      const lines = pendingText.split('\n');
      pendingText = lines.pop()!;
      for (const line of lines) {
        if (line.includes('wallet service listening')) {
          listened = true;
          onListening((JSON.parse(line) as { url: string }).url);
        }
        const key = errorKey(line);
        if (key !== null) events.errorLines.set(key, (events.errorLines.get(key) ?? 0) + 1);
      }
    };
    child.stdout!.on('data', scan);
    child.stderr!.on('data', scan);
    const exited = new Promise<never>((_, reject) => {
      child.once('exit', (code, signal) => {
        log.end();
        if (slot.child === child) {
          slot.child = null;
          slot.url = null;
        }
        // One that dies before it listens is retried by startSlot; later, it is restarted here.
        if (listened && !ending.has(child)) {
          events.unexpectedExits.push({ slot: slot.name, start, code, signal });
          if (!stopping) void startSlot(slot).catch(() => undefined);
        }
        reject(new Error(`service ${slot.name}#${start} exited (${code ?? signal}) before it listened; see ${path.join(logDir, `service-${slot.name}-${start}.log`)}`));
      });
    });
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`service ${slot.name}#${start} did not listen within ${READY_TIMEOUT_MS} ms`)), READY_TIMEOUT_MS).unref());
    exited.catch(() => undefined);
    return Promise.race([listening, exited, timeout]).catch((error: unknown) => {
      ending.add(child);
      child.kill('SIGKILL');
      throw error;
    });
  }

  /** Starts the slot's process and resolves once it listens (three tries). */
  async function startSlot(slot: ServiceSlot): Promise<void> {
    await buildApi();
    for (let attempt = 1; ; attempt++) {
      try {
        slot.url = await spawnOnce(slot);
        return;
      } catch (error) {
        events.failedStarts++;
        if (attempt >= 3 || stopping) throw error;
      }
    }
  }

  /** SIGKILL, as a crash or an OOM kill would end it; resolves once it has exited. */
  async function kill(slot: ServiceSlot): Promise<void> {
    const child = slot.child;
    if (!child) return;
    slot.url = null;
    ending.add(child);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGKILL');
    await exited;
  }

  return {
    slots,
    events,
    start: startSlot,
    kill,
    living: () => slots.filter((s) => s.url !== null),

    /** SIGTERM (the service's graceful stop), SIGKILL after STOP_GRACE_MS. */
    async stopAll(): Promise<void> {
      stopping = true;
      await Promise.all(
        slots.map(async (slot) => {
          const child = slot.child;
          slot.url = null;
          if (!child || child.exitCode !== null || child.signalCode !== null) return;
          ending.add(child);
          const exited = new Promise((resolve) => child.once('exit', resolve));
          child.kill('SIGTERM');
          const timer = setTimeout(() => child.kill('SIGKILL'), STOP_GRACE_MS);
          await exited;
          clearTimeout(timer);
        }),
      );
    },

    /** For an interrupted soak: SIGKILL whatever still runs, synchronously. */
    killAllNow(): void {
      stopping = true;
      for (const slot of slots) {
        if (slot.child) ending.add(slot.child);
        slot.child?.kill('SIGKILL');
      }
    },
  };
}

export type ServicePair = ReturnType<typeof createServicePair>;

/** Runs one of the service's CLIs (src/cli) as a process with `env`; its JSON answer. */
export async function runCli<T>(script: string, args: string[], env: Record<string, string>): Promise<T> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', `apps/api/src/cli/${script}`, ...args], { cwd: repoRoot, env });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as T;
}
