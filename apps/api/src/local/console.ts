/**
 * Local mode: the Next.js console (apps/admin) runs next to the API as a child process of the
 * service, started after the API listens and stopped with it (like the devnets).
 *
 * A production build is served (`next start`): it is built first with `next build` when
 * `apps/admin/.next` is missing or older than the console's sources (about 30-40 s on 2 cores,
 * once per change), since `next dev` compiles every page on its first visit (seconds each) and
 * keeps a file watcher and dev overlay around. The console forwards `/trpc` and `/graphql` to
 * the API given in API_URL, read at request time, so one build serves any API port. Builds hold
 * `apps/admin/.next-build.lock` (build-lock.ts): a second process waits and then finds the build
 * fresh, instead of writing the same `.next` at the same time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../logger.ts';
import { buildUnlessFresh } from './build-lock.ts';
import { repoRoot } from '../config.ts';

export const adminDir = path.join(repoRoot, 'apps/admin');
export const consoleBuildLock = path.join(adminDir, '.next-build.lock');
const exitWithParent = fileURLToPath(new URL('./exit-with-parent.cjs', import.meta.url));

export interface LocalConsole {
  /** Resolves with the console's URL once it answers, or rejects when it could not start. */
  ready: Promise<string>;
  stop(): Promise<void>;
}

const nextBin = () => createRequire(path.join(adminDir, 'package.json')).resolve('next/dist/bin/next');

function newestMtime(entry: string): number {
  if (!existsSync(entry)) return 0;
  const stat = statSync(entry);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const name of readdirSync(entry)) {
    if (name === 'node_modules' || name === '.next' || name.endsWith('.test.ts')) continue;
    newest = Math.max(newest, newestMtime(path.join(entry, name)));
  }
  return newest;
}

/** Whether `apps/admin/.next` holds a build at least as new as everything that goes into it. */
export function consoleBuildIsFresh(): boolean {
  const buildId = path.join(adminDir, '.next/BUILD_ID');
  if (!existsSync(buildId)) return false;
  const inputs = ['src', 'next.config.ts', 'postcss.config.mjs', 'package.json', 'tsconfig.json'].map((p) => path.join(adminDir, p));
  // The browser bundle includes the domain's zod schemas.
  inputs.push(path.join(repoRoot, 'packages/domain/src'));
  return statSync(buildId).mtimeMs >= Math.max(...inputs.map(newestMtime));
}

const children = new Set<ChildProcess>();
let exitHook = false;
/** Kills the whole process group (next build and next start fork workers). */
function killGroup(child: ChildProcess, signal: NodeJS.Signals) {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    child.kill(signal);
  }
}

function run(args: string[], env: NodeJS.ProcessEnv, logger: Logger, tail: string[]): ChildProcess {
  const child = spawn(process.execPath, [nextBin(), ...args], {
    cwd: adminDir,
    env: {
      ...process.env,
      NEXT_TELEMETRY_DISABLED: '1',
      ...env,
      EXIT_WITH_PARENT_PID: String(process.pid),
      NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --require ${JSON.stringify(exitWithParent)}`.trim(),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const c of children) killGroup(c, 'SIGKILL');
    });
  }
  const keep = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (!line.trim()) continue;
      tail.push(line);
      if (tail.length > 40) tail.shift();
      logger.debug({ console: line }, 'console output');
    }
  };
  child.stdout!.on('data', keep);
  child.stderr!.on('data', keep);
  return child;
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

export function startLocalConsole(options: { apiUrl: string; host: string; port: number; logger: Logger }): LocalConsole {
  const { apiUrl, host, port, logger } = options;
  const url = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  let stopped = false;
  let current: ChildProcess | undefined;
  const tail: string[] = [];

  const ready = (async () => {
    await buildUnlessFresh(
      consoleBuildLock,
      consoleBuildIsFresh,
      async () => {
        const started = Date.now();
        logger.info({ dir: adminDir }, 'building the console (next build; only when its sources changed)');
        current = run(['build', '--turbopack'], {}, logger, tail);
        const code = await exited(current);
        if (stopped) throw new Error('stopped');
        if (code !== 0) throw new Error(`next build failed (exit ${code}):\n${tail.join('\n')}`);
        logger.info({ ms: Date.now() - started }, 'console built');
      },
      {
        cancelled: () => stopped,
        onWait: (holderPid) => logger.info({ holderPid }, 'waiting for another process building the console'),
      },
    );
    if (stopped) throw new Error('stopped');
    current = run(['start', '--hostname', host, '--port', String(port)], { API_URL: apiUrl, PORT: String(port) }, logger, tail);
    const server = current;
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (stopped) throw new Error('stopped');
      if (server.exitCode !== null) throw new Error(`next start exited with ${server.exitCode}:\n${tail.join('\n')}`);
      try {
        const response = await fetch(`${url}/sign-in`, { signal: AbortSignal.timeout(2000) });
        if (response.ok) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`the console did not answer at ${url} within 60 s:\n${tail.join('\n')}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    return url;
  })();

  ready.then(
    (consoleUrl) => logger.info({ consoleUrl, apiUrl }, 'console listening'),
    (error: Error) => {
      if (!stopped) logger.error({ err: error.message }, 'the console could not start (the API keeps running; CONSOLE=off skips it)');
    },
  );

  return {
    ready,
    async stop() {
      stopped = true;
      const child = current;
      if (!child) return;
      const done = exited(child);
      killGroup(child, 'SIGTERM');
      const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 5000);
      await done;
      clearTimeout(timer);
      // Workers of the group that outlived their parent.
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // none left
      }
    },
  };
}
