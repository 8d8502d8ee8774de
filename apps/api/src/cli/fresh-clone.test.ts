import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../config.ts';

const run = promisify(execFile);
const cloneDir = mkdtempSync(path.join(tmpdir(), 'wallet-clone-'));

/**
 * A fresh clone after `npm install`: the repository's own files (tracked and new, never ignored
 * ones such as the generated Prisma client) and a node_modules whose packages are this checkout's,
 * except the workspace links, which point into the clone.
 */
function freshClone(): string {
  const files = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repoRoot, encoding: 'utf8' })
    .split('\0')
    .filter((file) => file && existsSync(path.join(repoRoot, file)));
  for (const file of files) {
    mkdirSync(path.dirname(path.join(cloneDir, file)), { recursive: true });
    copyFileSync(path.join(repoRoot, file), path.join(cloneDir, file));
  }
  const modules = path.join(repoRoot, 'node_modules');
  mkdirSync(path.join(cloneDir, 'node_modules/@wallet'), { recursive: true });
  for (const entry of readdirSync(modules)) {
    if (entry === '@wallet') continue;
    symlinkSync(path.join(modules, entry), path.join(cloneDir, 'node_modules', entry));
  }
  for (const entry of readdirSync(path.join(modules, '@wallet'))) {
    symlinkSync(readlinkSync(path.join(modules, '@wallet', entry)), path.join(cloneDir, 'node_modules/@wallet', entry));
  }
  return cloneDir;
}

afterAll(() => rmSync(cloneDir, { recursive: true, force: true }));

describe('a fresh clone', () => {
  it('runs the keys CLI before any start, generating the Prisma client once', async () => {
    const clone = freshClone();
    const marker = path.join(clone, 'packages/db/src/generated/prisma/.source-hash');
    expect(existsSync(marker)).toBe(false);
    const env = { ...process.env, APP_ENV: 'local', DATA_DIR: path.join(clone, '.data'), DATABASE_URL: '' };
    const first = await run('npm', ['run', '--silent', 'keys', '--', 'create', '--partner', 'demo'], { cwd: clone, env });
    const issued = JSON.parse(first.stdout.trim()) as { apiKey: string; apiKeyId: string };
    expect(issued.apiKey).toMatch(/^sk_test_/);
    expect(first.stderr).toContain('Prisma client generated');
    const generatedAt = statSync(marker).mtimeMs;

    // Nothing changed: the next entry point does not generate again.
    const second = await run('npm', ['run', '--silent', 'keys', '--', 'revoke', '--key-id', issued.apiKeyId], { cwd: clone, env });
    expect(second.stderr).not.toContain('Prisma client generated');
    expect(statSync(marker).mtimeMs).toBe(generatedAt);
  }, 120_000);
});
