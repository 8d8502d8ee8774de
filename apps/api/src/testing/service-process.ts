import { spawn, type ChildProcess } from 'node:child_process';
import { afterAll } from 'vitest';
import { buildApi, startCommand } from '../../scripts/build.mjs';
import { repoRoot } from '../config.ts';

export interface ServiceProcess {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/**
 * The environment of a service process in a test: this process's environment, APP_ENV local, its
 * own data directory and embedded database, any free port, no devnets of its own (the test passes
 * its chains in `extra`), info logs.
 */
export function localServiceEnv(dataDir: string, extra: Record<string, string>): Record<string, string> {
  return {
    ...(process.env as Record<string, string>),
    APP_ENV: 'local',
    DATA_DIR: dataDir,
    PORT: '0',
    DATABASE_URL: '',
    LOG_LEVEL: 'info',
    LOCAL_DEVNETS: 'off',
    ...extra,
  };
}

/**
 * Starts the service as `npm start` does (the bundle of apps/api/src/main.ts, built when stale) with `env`, and resolves
 * with its URL once it logs that it listens. The admin console is off unless `env` turns it on. `nodeArgs` runs
 * the TypeScript sources instead, with those node options before the entry (e.g. loader hooks).
 */
export async function spawnService(
  env: Record<string, string | undefined>,
  children: ChildProcess[] = [],
  nodeArgs?: string[],
): Promise<ServiceProcess> {
  if (!nodeArgs) await buildApi();
  const args = nodeArgs ? [...nodeArgs, 'apps/api/src/main.ts'] : startCommand.args;
  const child = spawn(process.execPath, args, {
    cwd: repoRoot,
    env: { CONSOLE: 'off', ...startCommand.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setInterval(() => {
      const line = output.split('\n').find((l) => l.includes('wallet service listening'));
      if (line) {
        clearInterval(timer);
        resolve(JSON.parse(line).url);
      }
    }, 25);
    child.once('exit', (code) => {
      clearInterval(timer);
      reject(new Error(`service exited with ${code}: ${output}`));
    });
  });
  return { child, url, output: () => output };
}

/**
 * The child processes and cleanups of a test file: after the suite, children still running are
 * killed and the cleanups run in reverse order. Call it at the top level of the file.
 */
/** Resolves once `child` has exited (at once when it has): with the signal that ended it, or its exit code. */
export function exited(child: ChildProcess): Promise<NodeJS.Signals | number | null> {
  return new Promise((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.signalCode ?? child.exitCode) : child.once('exit', (code, signal) => resolve(signal ?? code))));
}

export function suiteProcesses() {
  const children: ChildProcess[] = [];
  const cleanups: Array<() => Promise<unknown>> = [];
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
  });
  return { children, cleanups };
}
