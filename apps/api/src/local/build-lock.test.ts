import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { acquireLock } from './build-lock.ts';

const lockModule = new URL('./build-lock.ts', import.meta.url).href;

/**
 * A process doing what the console start does: `buildUnlessFresh` on a shared lock, where "fresh"
 * is a marker file that the build writes after `buildMs`; it logs its build's start and end.
 */
function builder(dir: string, buildMs: number) {
  const script = `import { appendFileSync, existsSync, writeFileSync } from 'node:fs';
  const { buildUnlessFresh } = await import(${JSON.stringify(lockModule)});
  const dir = ${JSON.stringify(dir)};
  const result = await buildUnlessFresh(dir + '/build.lock', () => existsSync(dir + '/BUILD_ID'), async () => {
    appendFileSync(dir + '/log', 'start ' + process.pid + '\\n');
    await new Promise((resolve) => setTimeout(resolve, ${buildMs}));
    writeFileSync(dir + '/BUILD_ID', String(process.pid));
    appendFileSync(dir + '/log', 'end ' + process.pid + '\\n');
  }, { pollMs: 50 });
  console.log(result);`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  const result = new Promise<string>((resolve, reject) =>
    child.once('exit', (code, signal) => (code === 0 ? resolve(output.trim()) : reject(new Error(`builder exited with ${code ?? signal}`)))),
  );
  result.catch(() => undefined);
  return { child, result };
}

const logOf = (dir: string) => (existsSync(path.join(dir, 'log')) ? readFileSync(path.join(dir, 'log'), 'utf8').trim().split('\n') : []);

async function until(predicate: () => boolean, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('the console build lock', () => {
  const dirs: string[] = [];
  const children: ChildProcess[] = [];
  const tempDir = () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wallet-build-lock-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const child of children.splice(0)) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('lets one of three concurrent processes build; the others wait and then find the build fresh', async () => {
    const dir = tempDir();
    const builders = [builder(dir, 800), builder(dir, 800), builder(dir, 800)];
    children.push(...builders.map((b) => b.child));
    const results = await Promise.all(builders.map((b) => b.result));
    expect(results.sort()).toEqual(['built', 'fresh', 'fresh']);
    const log = logOf(dir);
    expect(log).toHaveLength(2);
    expect(log[0]).toMatch(/^start \d+$/);
    expect(log[1]).toBe(log[0]!.replace('start', 'end'));
    expect(existsSync(path.join(dir, 'build.lock'))).toBe(false);
  }, 60_000);

  it('takes over the lock of a holder killed mid-build (SIGKILL) and builds', async () => {
    const dir = tempDir();
    const first = builder(dir, 60_000);
    children.push(first.child);
    await until(() => logOf(dir).length === 1);
    expect(readFileSync(path.join(dir, 'build.lock'), 'utf8')).toBe(String(first.child.pid));
    const second = builder(dir, 100);
    children.push(second.child);
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(logOf(dir)).toEqual([`start ${first.child.pid}`]); // still waiting for the live holder
    first.child.kill('SIGKILL');
    expect(await second.result).toBe('built');
    expect(logOf(dir)).toEqual([`start ${first.child.pid}`, `start ${second.child.pid}`, `end ${second.child.pid}`]);
  }, 60_000);

  it('takes a lock whose pid is gone at once, and tells who holds a live one', async () => {
    const dir = tempDir();
    const lockFile = path.join(dir, 'build.lock');
    const gone = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => gone.once('exit', resolve));
    writeFileSync(lockFile, String(gone.pid));
    const release = await acquireLock(lockFile, { pollMs: 10 });
    expect(readFileSync(lockFile, 'utf8')).toBe(String(process.pid));
    release();
    expect(existsSync(lockFile)).toBe(false);

    const holder = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)']);
    children.push(holder);
    writeFileSync(lockFile, String(holder.pid));
    const waited: Array<number | null> = [];
    let cancel = false;
    const waiting = acquireLock(lockFile, { pollMs: 10, onWait: (pid) => waited.push(pid), cancelled: () => cancel });
    await until(() => waited.length > 0);
    expect(waited).toEqual([holder.pid]);
    cancel = true;
    await expect(waiting).rejects.toThrow(/cancelled/);
    expect(readFileSync(lockFile, 'utf8')).toBe(String(holder.pid));
  });
});
