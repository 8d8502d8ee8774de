import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { pidAlive } from '../store/lock.ts';
import { createSignerClient, SignerUnavailableError } from './client.ts';
import { signerClientSettings } from './settings.ts';
import { startSupervisedSigner } from './supervisor.ts';

const root = mkdtempSync(path.join(tmpdir(), 'signer-sup-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function memoryLogger() {
  const lines: Array<{ level: string; msg?: string } & Record<string, unknown>> = [];
  const at = (level: string) => (obj: object, msg?: string) => lines.push({ level, msg, ...obj });
  return { lines, info: at('info'), warn: at('warn'), error: at('error') };
}

async function waitFor(condition: () => boolean, timeoutMs = 8000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('supervised signer process', () => {
  it("logs the libsecp256k1 builds the signer loaded when it is ready (the native addon here), and runs it with its node options", async () => {
    const dataDir = path.join(root, 'builds');
    const logger = memoryLogger();
    const signer = await startSupervisedSigner({ env: { DATA_DIR: dataDir, LOG_LEVEL: 'warn' }, logger });
    try {
      expect(logger.lines.find((l) => l.msg === 'signer ready')).toMatchObject({ secp256k1: 'native', thresholdEcdsa: 'native' });
      // Started with the node options of its start command: no warning about them (it comes before the ready line).
      expect(logger.lines.filter((l) => String(l.msg).includes('--single-threaded-gc'))).toEqual([]);
    } finally {
      await signer.stop();
    }
  });

  it('a second supervisor on the same data directory uses the first one\'s signer, and takes over when it stops', async () => {
    const dataDir = path.join(root, 'shared');
    const env = { DATA_DIR: dataDir, SIGNER_DEMO_HANDLERS: '1', LOG_LEVEL: 'warn' };
    const first = await startSupervisedSigner({ env, logger: memoryLogger() });
    const logger = memoryLogger();
    const second = await startSupervisedSigner({ env, logger });
    const client = createSignerClient({ ...signerClientSettings(env, dataDir), timeoutMs: 4000 });
    try {
      expect(logger.lines.some((l) => /another signer serves this data directory/.test(l.msg ?? ''))).toBe(true);
      await expect(client.call('pid', {})).resolves.toEqual({ pid: first.pid() });
      await first.stop();
      await waitFor(() => second.pid() !== undefined && pidAlive(second.pid()!), 10_000);
      let answer: unknown;
      await waitFor(() => {
        void client.call('pid', {}).then((a) => (answer = a), () => undefined);
        return (answer as { pid?: number } | undefined)?.pid === second.pid();
      }, 10_000);
    } finally {
      await client.close();
      await second.stop();
      await first.stop();
    }
  }, 30_000);

  it('answers, survives SIGKILL mid-request (the call fails fast, the same client works after the restart), and stop() leaves nothing behind', async () => {
    const dataDir = path.join(root, 'a');
    const env = { DATA_DIR: dataDir, SIGNER_DEMO_HANDLERS: '1', LOG_LEVEL: 'warn' };
    const logger = memoryLogger();
    const ready: number[] = [];
    const signer = await startSupervisedSigner({ env, logger, onReady: ({ pid }) => ready.push(pid) });
    const settings = signerClientSettings(env, dataDir);
    const client = createSignerClient({ ...settings, timeoutMs: 4000 });
    try {
      const first = signer.pid()!;
      await expect(client.call('pid', {})).resolves.toEqual({ pid: first });

      // Killed while it works on a request: that call is SignerUnavailableError well within its time-out.
      const inFlight = client.call('sleep', { ms: 3000 }).catch((e: unknown) => e);
      await new Promise((resolve) => setTimeout(resolve, 150));
      const killedAt = Date.now();
      process.kill(first, 'SIGKILL');
      const error = await inFlight;
      expect(error).toBeInstanceOf(SignerUnavailableError);
      expect(Date.now() - killedAt).toBeLessThan(2000);

      // Restarted by the supervisor; the same client's next call reaches the new process.
      await waitFor(() => ready.length === 2);
      expect(signer.restarts()).toBe(1);
      const second = signer.pid()!;
      expect(second).not.toBe(first);
      await expect(client.call('pid', {})).resolves.toEqual({ pid: second });
      expect(logger.lines.some((l) => l.msg === 'signer exited unexpectedly: restarting it' && l.signal === 'SIGKILL' && l.restartInMs === 200)).toBe(true);
      await expect(client.health()).resolves.toMatchObject({ reachable: true, status: 'ok' });
    } finally {
      await client.close();
      const last = signer.pid();
      await signer.stop();
      expect(last === undefined || !pidAlive(last)).toBe(true);
      expect(signer.pid()).toBeUndefined();
      expect(existsSync(path.join(dataDir, 'signer', 'signer.sock'))).toBe(false);
      expect(existsSync(path.join(dataDir, 'signer', 'signer.lock'))).toBe(false);
    }
  });

  it('rejects the first start when the signer refuses its configuration, with the reason', async () => {
    await expect(startSupervisedSigner({ env: { APP_ENV: 'production', DATA_DIR: path.join(root, 'b') }, logger: memoryLogger() })).rejects.toThrow(/exited before it was ready \(status 78\)[\s\S]*USER_SHARE_KEKS and SERVICE_SHARE_KEKS are not both set/);
  });

  it('exits when its parent process dies (SIGKILL)', async () => {
    const env = { DATA_DIR: path.join(root, 'c'), LOG_LEVEL: 'warn' };
    const parent = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'testing', 'supervised-parent.ts')], {
      env: { ...process.env, SUPERVISED_ENV: JSON.stringify(env) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const childPid = await new Promise<number>((resolve, reject) => {
      parent.once('exit', (code) => reject(new Error(`parent exited ${code}`)));
      createInterface({ input: parent.stdout! }).once('line', (line) => resolve((JSON.parse(line) as { childPid: number }).childPid));
    });
    expect(pidAlive(childPid)).toBe(true);
    parent.kill('SIGKILL');
    await waitFor(() => !pidAlive(childPid), 5000);
  });
});
