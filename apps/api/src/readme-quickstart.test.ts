import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { freshClone } from './testing/fresh-clone.ts';
import { documentedShapes, quickstartBlocks, shapeMismatch } from './testing/readme-quickstart.ts';

/**
 * The README's Quickstart, run as a newcomer runs it: in a fresh clone, `npm start` in one process, then every
 * other shell block pasted in order into one bash. Two things differ from a laptop, both forced by sharing
 * the machine with other suites: the service listens on a free port (the blocks' `127.0.0.1:8080` is
 * rewritten to it) and the console is off (the Quickstart never opens it). Every output the README
 * documents (`# {…}` after a command) must have the keys and values it shows, in order. The Quickstart's
 * files go to the temporary folder it names (`mktemp -d`, under a TMPDIR of the test's), so the clone's
 * working tree is as clean afterwards as before (`git status`, the clone's files staged in a new repository).
 */
const clone = freshClone('wallet-quickstart-');
const tmp = path.join(clone, '.data', 'quickstart-tmp'); // .data is ignored: the folder itself is no change
const processes: ChildProcess[] = [];

afterAll(() => {
  // Whole process groups, also of a session that exited: a background job it left runs on in its group.
  for (const child of processes) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* the group is gone */
    }
  }
  rmSync(clone, { recursive: true, force: true });
});

/** The webhook listeners still running in the clone (their working directory is in it). */
function listenersInClone(): string[] {
  const found: string[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      if (!readlinkSync(`/proc/${pid}/cwd`).startsWith(clone)) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
      if (command.includes('webhooks.ts')) found.push(`${pid} ${command}`);
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return found;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs `command` in the clone in its own process group; resolves with its output once `ready` matches it, or at exit. */
function run(command: string, args: string[], env: NodeJS.ProcessEnv, ready?: RegExp) {
  const child = spawn(command, args, { cwd: clone, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  processes.push(child);
  const output = { stdout: '', stderr: '' };
  child.stdout!.on('data', (chunk) => (output.stdout += chunk));
  child.stderr!.on('data', (chunk) => (output.stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  const started = new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (ready?.test(output.stdout)) resolve(clearInterval(timer));
    }, 50);
    void exited.then((code) => {
      clearInterval(timer);
      if (ready) reject(new Error(`${command} ${args.join(' ')} exited with ${code}:\n${output.stdout}\n${output.stderr}`));
    });
  });
  return { child, output, exited, started };
}

describe('the README Quickstart', () => {
  it('runs as written from a fresh clone, and every output has the documented shape', async () => {
    const [start, ...rest] = quickstartBlocks();
    expect(start!.trim()).toBe('npm install && npm start');
    execFileSync('git', ['init', '-q'], { cwd: clone });
    execFileSync('git', ['add', '--all'], { cwd: clone });
    const status = () => execFileSync('git', ['status', '--porcelain', '--untracked-files=all', '--ignored=no'], { cwd: clone, encoding: 'utf8' });
    const before = status();
    mkdirSync(tmp, { recursive: true });
    const port = await freePort();
    const env: NodeJS.ProcessEnv = { ...process.env, APP_ENV: 'local', DATABASE_URL: '', DATA_DIR: '', REDIS_URL: '', LOG_LEVEL: 'info' };
    delete env.DATA_DIR;
    const service = run('npm', ['start'], { ...env, PORT: String(port), CONSOLE: 'off' }, /wallet service listening/);
    await service.started;

    const script = rest.join('\n').replaceAll('http://127.0.0.1:8080', `http://127.0.0.1:${port}`);
    const session = run('bash', ['-e', '-o', 'pipefail', '-c', script], { ...env, TMPDIR: tmp });
    const code = await Promise.race([session.exited, new Promise((resolve) => setTimeout(() => resolve('timed out'), 200_000))]);
    const log = () => `${session.output.stdout}\n--- stderr\n${session.output.stderr}\n--- listen.log\n${readOrEmpty('listen.log')}`;
    expect(code, log()).toBe(0);
    // Nothing the Quickstart (npm start included) wrote is left in the tree, and nothing tracked changed.
    const [was, is] = [before, status()].map((text) => text.split('\n').filter(Boolean));
    expect({ new: is!.filter((line) => !was!.includes(line)), gone: was!.filter((line) => !is!.includes(line)) }).toEqual({ new: [], gone: [] });

    const outputs = session.output.stdout.split('\n').filter((line) => line.trim()).map((line) => JSON.parse(line) as Record<string, unknown>);
    const shapes = documentedShapes(rest.join('\n'));
    expect(outputs.map((_, i) => shapes[i]?.comment ?? '(undocumented output)'), log()).toEqual(shapes.map((shape) => shape.comment));
    const mismatches = shapes.map((shape, i) => shapeMismatch(outputs[i]!, shape)).filter(Boolean);
    expect(mismatches).toEqual([]);

    // What the steps are for, beyond their shapes.
    const documented = (fragment: string) => outputs[shapes.findIndex((shape) => shape.comment.includes(fragment))]!;
    expect(documented('"evm"')).toMatchObject({ evm: [{ chainId: 84532, rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+/) }] });
    expect(documented('"baseUnits"')).toMatchObject({ token: 'native', amount: '1' });
    const denied = documented('POLICY_DENIED');
    expect(denied).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [{ policyId: 'quickstart', ruleId: 'only-dead' }] });
    expect(documented('"status":"approved"')).toMatchObject({ status: 'approved' });
    expect(documented('now signed').transactionId).toEqual(expect.any(String));
    const record = documented('"status":"confirmed","hash",…');
    const fromClient = documented('"status":"confirmed","hash"}');
    expect(fromClient).toMatchObject({ status: 'confirmed', hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) });
    expect(fromClient.transactionId).not.toBe(record.transactionId);
    expect(documented('"type":"rest.transaction.confirmed"')).toMatchObject({ type: 'rest.transaction.confirmed' });
    expect(JSON.stringify(documented('"type":"rest.transaction.confirmed"'))).toContain(String(record.transactionId));
    // The listener printed every delivery it received, and the last block's `kill %1` stopped it.
    expect(readOrEmpty('events.jsonl').split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(3);
    expect(readOrEmpty('listen.log')).toMatch(/ready: https:\/\/127\.0\.0\.1:\d+/);
    let left = listenersInClone();
    for (let i = 0; i < 50 && left.length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      left = listenersInClone();
    }
    expect(left).toEqual([]);
  }, 300_000);
});

/** A file of the Quickstart's folder: the one `mktemp -d` made under the test's TMPDIR (tsx and npm may add their own). */
function readOrEmpty(file: string): string {
  try {
    const folders = readdirSync(tmp).filter((name) => name.startsWith('tmp.'));
    if (folders.length !== 1) return '';
    return readFileSync(path.join(tmp, folders[0]!, file), 'utf8');
  } catch {
    return '';
  }
}
