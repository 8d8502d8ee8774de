import { execFile, execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, repoRoot } from '../config.ts';
import { createServices } from '../services.ts';

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

/** The first `npm run … keys -- create …` line of the README's First steps, as its words. */
function firstStepsKeyCommand(): string[] {
  const readme = readFileSync(path.join(repoRoot, 'README.md'), 'utf8');
  const steps = readme.slice(readme.indexOf('## First steps'));
  const line = steps.split('\n').find((l) => /^npm run (--silent )?keys -- create/.test(l));
  if (!line) throw new Error('the README\'s First steps create no key');
  return line.replace(/#.*$/, '').trim().split(/\s+/).slice(1);
}

describe('a fresh clone', () => {
  it('gives the README\'s first key to the partner of the console owner that npm start creates', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-first-steps-'));
    try {
      const env = { ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, DATABASE_URL: '' };
      const { stdout } = await run('npm', firstStepsKeyCommand(), { cwd: repoRoot, env });
      const issued = JSON.parse(stdout.trim().split('\n').at(-1)!) as { partnerId: string; projectId: string };
      const services = await createServices(loadConfig({ APP_ENV: 'local', DATA_DIR: dataDir }));
      try {
        const owner = await services.staff.ensureLocalOwner();
        expect(owner?.partnerId).toBe(issued.partnerId);
      } finally {
        await services.close();
      }
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

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
