import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { buildApi, startCommand } from '../../apps/api/scripts/build.mjs';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const TEST_CA_FILE = path.join(repoRoot, 'apps/api/src/webhooks/testing/ca.pem');

export interface Stack {
  apiUrl: string;
  consoleUrl: string;
  dataDir: string;
  owner: { email: string; password: string; partnerId: string };
  support: { email: string; password: string };
  /** Output of the service (API + console), for failure reports. */
  output(): string;
  stop(): Promise<void>;
}

/**
 * Where the service's output holds one of the secrets (by its place in `secrets`, never its value),
 * or null. The one line that prints the first owner's password by design (`consoleOwner`) is skipped.
 */
export function secretInOutput(output: string, secrets: Array<{ kind: string; value: string }>): string | null {
  const lines = output.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.startsWith('{"consoleOwner"')) continue;
    const found = secrets.find((s) => s.value && line.includes(s.value));
    if (found) return `a ${found.kind} appears in line ${index + 1} of the service output`;
  }
  return null;
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts the service as `npm start` does (local mode: embedded PGlite in a temporary DATA_DIR,
 * local devnets, the console next to it, built first when stale) on free ports, waits until the
 * console answers, and creates a support account on the owner's partner through the staff CLI.
 */
export async function startStack(): Promise<Stack> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-e2e-'));
  const consolePort = await freePort();
  const env = {
    ...process.env,
    APP_ENV: 'local',
    DATA_DIR: dataDir,
    PORT: '0',
    HOST: '127.0.0.1',
    CONSOLE_PORT: String(consolePort),
    DATABASE_URL: '',
    REDIS_URL: '',
    LOG_LEVEL: 'info',
    NEXT_TELEMETRY_DISABLED: '1',
    // The receiver the tests start uses the committed test CA.
    WEBHOOK_CA_FILE: TEST_CA_FILE,
    WEBHOOK_RETRY_BASE_MS: '2000',
    WEBHOOK_TIMEOUT_MS: '5000',
    // 50-stranded makes a nonce gap and fills it from the console: the nonce-gap worker must not
    // fill it first. Its poll loop ticks once as the service starts (before any wallet exists),
    // then after NONCE_GAP_INTERVAL_MS; a failed tick retries within 30 s, so the gap's age
    // (NONCE_GAP_AFTER_MS) keeps it out of the worker's reach too.
    NONCE_GAP_INTERVAL_MS: '3600000',
    NONCE_GAP_AFTER_MS: '3600000',
  };
  await buildApi();
  const child: ChildProcess = spawn(process.execPath, startCommand.args, {
    cwd: repoRoot,
    env: { ...env, ...startCommand.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const lines = () => output.split('\n').filter((l) => l.startsWith('{'));
  const find = (predicate: (json: Record<string, unknown>) => boolean) => {
    for (const line of lines()) {
      try {
        const json = JSON.parse(line) as Record<string, unknown>;
        if (predicate(json)) return json;
      } catch {
        // not JSON
      }
    }
    return undefined;
  };

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
    }
    rmSync(dataDir, { recursive: true, force: true });
  };

  try {
    const started = Date.now();
    // A fresh clone builds the console first (next build, ~30-60 s on 2 cores).
    const deadline = started + 240_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the service exited with ${child.exitCode}:\n${output}`);
      if (find((j) => j.msg === 'the console could not start')) throw new Error(`the console could not start:\n${output}`);
      if (find((j) => j.msg === 'console listening')) break;
      if (Date.now() > deadline) throw new Error(`the stack did not come up within 240 s:\n${output}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const listening = find((j) => j.msg === 'wallet service listening')!;
    const consoleLine = find((j) => j.msg === 'console listening')!;
    const owner = find((j) => 'consoleOwner' in j)!.consoleOwner as Stack['owner'];
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'apps/api/src/cli/staff.ts', 'create', '--partner', 'local', '--email', 'support@local.test', '--role', 'support'],
      { cwd: repoRoot, env },
    );
    const created = JSON.parse(stdout.trim().split('\n').at(-1)!) as { email: string; password: string };
    process.stdout.write(`e2e stack up in ${((Date.now() - started) / 1000).toFixed(1)} s: API ${String(listening.url)}, console ${String(consoleLine.consoleUrl)}\n`);
    return {
      apiUrl: listening.url as string,
      consoleUrl: consoleLine.consoleUrl as string,
      dataDir,
      owner,
      support: { email: created.email, password: created.password },
      output: () => output,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}
