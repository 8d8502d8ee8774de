/**
 * An exclusive lock file holding its holder's pid, so that two processes (two `npm start`s, the
 * e2e stack next to a running service) never run `next build` into the same `.next` at once. A
 * lock whose pid is gone (a SIGKILLed holder) is stale and taken over.
 */
import { closeSync, openSync, readFileSync, statSync, unlinkSync, writeSync } from 'node:fs';
import { processAlive } from './process-alive.ts';

/** A lock file still empty after this long was left by a holder that died between creating and writing it. */
const EMPTY_LOCK_STALE_MS = 10_000;


function read(lockFile: string): string | undefined {
  try {
    return readFileSync(lockFile, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

function tryCreate(lockFile: string): boolean {
  let fd: number;
  try {
    fd = openSync(lockFile, 'wx');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
  try {
    writeSync(fd, String(process.pid));
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Whether the lock's content names no live process. */
function isStale(lockFile: string, content: string): boolean {
  if (content === '') {
    try {
      return Date.now() - statSync(lockFile).mtimeMs > EMPTY_LOCK_STALE_MS;
    } catch {
      return false;
    }
  }
  const pid = Number(content);
  return !Number.isInteger(pid) || pid <= 0 || !processAlive(pid);
}

export interface LockOptions {
  pollMs?: number;
  /** Called once when the lock is held by another live process, with its pid. */
  onWait?: (holderPid: number | null) => void;
  /** Checked while waiting: gives up (throws) when it returns true. */
  cancelled?: () => boolean;
}

/** Waits for and takes the lock; returns its release. */
export async function acquireLock(lockFile: string, options: LockOptions = {}): Promise<() => void> {
  let told = false;
  for (;;) {
    if (tryCreate(lockFile)) break;
    const content = read(lockFile);
    if (content === undefined) continue; // released meanwhile
    if (isStale(lockFile, content)) {
      // Re-read right before removing, so a lock another waiter just took over is not removed.
      if (read(lockFile) === content) {
        try {
          unlinkSync(lockFile);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
        }
      }
      continue;
    }
    if (options.cancelled?.()) throw new Error('cancelled while waiting for the lock');
    if (!told) {
      told = true;
      options.onWait?.(Number(content) || null);
    }
    await new Promise((resolve) => setTimeout(resolve, options.pollMs ?? 250));
  }
  const mine = String(process.pid);
  const release = () => {
    process.removeListener('exit', release);
    if (read(lockFile) !== mine) return;
    try {
      unlinkSync(lockFile);
    } catch {
      // already gone
    }
  };
  process.once('exit', release);
  return release;
}

/**
 * Runs `build` unless `isFresh()`, under the lock: a process that waited for another's build checks
 * freshness again once it holds the lock, and finds that build instead of building a second time.
 */
export async function buildUnlessFresh(
  lockFile: string,
  isFresh: () => boolean,
  build: () => Promise<void>,
  options: LockOptions = {},
): Promise<'fresh' | 'built'> {
  if (isFresh()) return 'fresh';
  const release = await acquireLock(lockFile, options);
  try {
    if (isFresh()) return 'fresh';
    await build();
    return 'built';
  } finally {
    release();
  }
}
