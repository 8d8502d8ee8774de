import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { repoRoot } from '../config.ts';

/**
 * A fresh clone after `npm install`, in a new temporary directory: the repository's own files
 * (tracked and new, never ignored ones such as the generated Prisma client or `.data`) and a
 * node_modules whose packages are this checkout's, except the workspace links, which point into
 * the clone. The caller removes the directory.
 */
export function freshClone(prefix = 'wallet-clone-'): string {
  const cloneDir = mkdtempSync(path.join(tmpdir(), prefix));
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
    const target = readlinkSync(path.join(modules, '@wallet', entry));
    // Workspace links are relative (../../packages/x): resolved from the clone's node_modules/@wallet they point into the clone.
    symlinkSync(target, path.join(cloneDir, 'node_modules/@wallet', entry));
  }
  return cloneDir;
}
