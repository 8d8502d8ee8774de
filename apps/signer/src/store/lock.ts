/**
 * One signer process per store directory: `signer.lock` holds the owner's pid. It is created
 * complete or not at all (written to a private temporary name, then hard-linked into place, which
 * fails when the lock exists), so a reader never sees an empty lock. A lock whose pid is not alive
 * is stale (the owner crashed) and is taken over; a live one is an error. Caveat: after a reboot a
 * stale pid may have been reused by another process; the error then names the file to remove.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const LOCK_FILE = 'signer.lock';

/** The store is held by a live process (another signer serving the same directory). */
export class StoreLockedError extends Error {
  override name = 'StoreLockedError';
}

export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // A zombie (exited, not yet reaped) is not alive.
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return true;
  }
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number.parseInt(readFileSync(file, 'utf8').trim(), 10);
    return Number.isInteger(pid) ? pid : undefined;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

export interface StoreLock {
  file: string;
  /** The pid of a stale owner this lock replaced, if any. */
  tookOverFrom: number | undefined;
  release(): void;
}

export function acquireStoreLock(dir: string): StoreLock {
  const file = path.join(dir, LOCK_FILE);
  const temp = path.join(dir, `.${LOCK_FILE}.${process.pid}.${randomBytes(4).toString('hex')}`);
  writeFileSync(temp, `${process.pid}\n`, { mode: 0o600, flag: 'wx' });
  let tookOverFrom: number | undefined;
  try {
    for (let attempt = 0; ; attempt++) {
      try {
        linkSync(temp, file);
        break;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST' || attempt >= 5) throw error;
      }
      const owner = readPid(file);
      if (owner === undefined) continue; // removed meanwhile: try again
      if (pidAlive(owner)) {
        throw new StoreLockedError(`signer store ${dir} is in use by process ${owner} (${file}); stop that signer first, or delete the lock file if that pid is not a signer`);
      }
      // Stale: move it aside under a unique name, then check what was moved (another process may
      // have replaced the stale lock with its own live one in between: put that one back).
      const aside = `${file}.stale.${process.pid}.${randomBytes(4).toString('hex')}`;
      try {
        renameSync(file, aside);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw error;
      }
      const moved = readPid(aside);
      if (moved !== owner && moved !== undefined && pidAlive(moved)) {
        try {
          linkSync(aside, file);
        } catch {
          /* someone holds it again: the next round finds out who */
        }
        unlinkSync(aside);
        continue;
      }
      unlinkSync(aside);
      tookOverFrom = owner;
    }
  } finally {
    unlinkSync(temp);
  }
  let released = false;
  return {
    file,
    tookOverFrom,
    release() {
      if (released) return;
      released = true;
      if (readPid(file) === process.pid) unlinkSync(file);
    },
  };
}
