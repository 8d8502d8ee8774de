import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { removeStaleSocketDirs, socketBase, startPGliteServer } from './pglite-server.ts';

const serverModule = new URL('./pglite-server.ts', import.meta.url).href;

/** A separate process that starts a PGlite server and prints its socket directory, then waits to be killed. */
function serverProcess(dataDir: string) {
  const script = `import(${JSON.stringify(serverModule)}).then(async (m) => {
    const server = await m.startPGliteServer(${JSON.stringify(dataDir)});
    console.log(JSON.stringify(server.connection));
    setInterval(() => {}, 1000);
  });`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const connection = new Promise<{ host: string }>((resolve, reject) => {
    createInterface({ input: child.stdout! }).once('line', (line) => resolve(JSON.parse(line) as { host: string }));
    child.once('exit', (code) => reject(new Error(`server process exited with ${code}`)));
  });
  return { child, connection };
}

describe('the PGlite socket directory', () => {
  const dirs: string[] = [];
  const tempDir = (prefix: string) => {
    const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
    dirs.push(dir);
    return dir;
  };
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it("is removed by the next start when its process was SIGKILLed, and a live process's is kept", async () => {
    const killed = serverProcess(tempDir('wallet-killed-'));
    const killedDir = (await killed.connection).host;
    const live = serverProcess(tempDir('wallet-live-'));
    const liveDir = (await live.connection).host;
    try {
      expect(path.basename(killedDir)).toMatch(new RegExp(`^wallet-pglite-${killed.child.pid}-`));
      const exited = new Promise((resolve) => killed.child.once('exit', resolve));
      killed.child.kill('SIGKILL');
      await exited;
      expect(existsSync(path.join(killedDir, '.s.PGSQL.5432'))).toBe(true); // left behind

      const server = await startPGliteServer(tempDir('wallet-next-'));
      try {
        expect(existsSync(killedDir)).toBe(false);
        expect(existsSync(liveDir)).toBe(true);
        expect(path.dirname(server.connection.host)).toBe(path.dirname(killedDir));
        expect(Buffer.byteLength(path.join(server.connection.host, '.s.PGSQL.5432'))).toBeLessThanOrEqual(107);
        expect(await server.query<{ one: number }>('SELECT 1 AS one')).toEqual([{ one: 1 }]);
      } finally {
        await server.close();
      }
      expect(existsSync(server.connection.host)).toBe(false);
    } finally {
      live.child.kill('SIGKILL');
    }
  }, 120_000);

  it('leaves directories of other names and of this process alone', () => {
    const base = tempDir('wallet-base-');
    for (const name of ['wallet-pglite-abc123', `wallet-pglite-${process.pid}-x`, 'other-1-x', 'wallet-pglite-999999999-x']) mkdirSync(path.join(base, name));
    expect(removeStaleSocketDirs(base)).toEqual(['wallet-pglite-999999999-x']);
    expect(existsSync(path.join(base, 'wallet-pglite-abc123'))).toBe(true);
    expect(existsSync(path.join(base, `wallet-pglite-${process.pid}-x`))).toBe(true);
  });

  it('keeps socket paths within the 107-byte limit, falling back to /tmp under a long TMPDIR', () => {
    const longest = () => Buffer.byteLength(path.join(socketBase(), 'wallet-pglite-4194304-XXXXXX', '.s.PGSQL.5432'));
    expect(longest()).toBeLessThanOrEqual(107);
    const saved = process.env.TMPDIR;
    process.env.TMPDIR = path.join(tempDir('wallet-long-'), 'x'.repeat(80));
    try {
      expect(socketBase()).toBe('/tmp');
      expect(longest()).toBeLessThanOrEqual(107);
    } finally {
      if (saved === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = saved;
    }
  });
});
