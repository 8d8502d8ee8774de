import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase } from '@wallet/db';
import { expect } from 'vitest';
import { repoRoot } from '../config.ts';

const run = promisify(execFile);

type Cleanups = (() => Promise<unknown>)[];

/**
 * The environment of CLI processes (and of a service they may reach) in local mode without
 * devnets: on a scratch PostgreSQL database when `postgres`, else on embedded PGlite in a data
 * directory of its own (PORT 0). `cleanups` collects what the suite's afterAll undoes.
 */
export async function cliEnvironment(label: string, cleanups: Cleanups, options: { postgres: boolean }): Promise<Record<string, string>> {
  const dir = mkdtempSync(path.join(tmpdir(), `wallet-${label}-`));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  let database: Record<string, string> = { DATA_DIR: path.join(dir, 'data'), PORT: '0', DATABASE_URL: '' };
  if (options.postgres) {
    const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 't');
    cleanups.push(scratch.drop);
    database = { DATA_DIR: dir, DATABASE_URL: scratch.url };
  }
  const env: Record<string, string> = { ...(process.env as Record<string, string>), APP_ENV: 'local', LOCAL_DEVNETS: 'off', ...database };
  // `npm run` would set it; a CLI resolves relative paths against it.
  delete env.INIT_CWD;
  return env;
}

/** Runs `apps/api/src/cli/<args[0]>.ts` as a process in `env`, as `npm run <args[0]> -- …` does. */
export function cliOf(env: Record<string, string>) {
  const command = (args: string[]) => run(process.execPath, ['--import', 'tsx', `apps/api/src/cli/${args[0]}.ts`, ...args.slice(1)], { cwd: repoRoot, env });
  return {
    /** One JSON line on stdout. */
    async cli(args: string[]) {
      const lines = (await command(args)).stdout.trim().split('\n');
      expect(lines).toHaveLength(1);
      return JSON.parse(lines[0]!);
    },
    /** Exit code 1, nothing on stdout, the error object as the last stderr line. */
    async refused(args: string[]) {
      const failure = (await command(args).then(
        () => null,
        (e: unknown) => e,
      )) as { code: number; stdout: string; stderr: string } | null;
      expect(failure?.code).toBe(1);
      expect(failure!.stdout).toBe('');
      return JSON.parse(failure!.stderr.trim().split('\n').at(-1)!);
    },
  };
}
