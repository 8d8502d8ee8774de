import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, repoRoot } from '../config.ts';
import { createServices } from '../services.ts';
import { freshClone } from '../testing/fresh-clone.ts';
import { quickstartBlocks } from '../testing/readme-quickstart.ts';

const run = promisify(execFile);
const clones: string[] = [];

afterAll(() => clones.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

/** The first `npm run … keys -- create …` command of the README's Quickstart, as its words. */
function quickstartKeyCommand(): string[] {
  const command = /npm run (--silent )?keys -- create[^)#\n]*/.exec(quickstartBlocks().join('\n'))?.[0];
  if (!command) throw new Error('the README\'s Quickstart creates no key');
  return command.trim().split(/\s+/).slice(1);
}

describe('a fresh clone', () => {
  it('gives the README\'s first key to the partner of the console owner that npm start creates', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-first-steps-'));
    try {
      const env = { ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, DATABASE_URL: '' };
      const { stdout } = await run('npm', quickstartKeyCommand(), { cwd: repoRoot, env });
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
    clones.push(clone);
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
