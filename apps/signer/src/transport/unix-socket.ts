import { chmodSync, lstatSync, mkdirSync, statSync, unlinkSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';

/**
 * Prepares `socketPath` for listening: its directory exists with mode 0700 (tightened when wider:
 * the directory is what keeps other local users away from the socket, together with the socket's
 * own 0600), and a socket file left by a signer that died is removed, but only when nothing answers
 * on it; a live one is an error, as is a path that is not a socket.
 */
export async function prepareSocketPath(socketPath: string): Promise<{ tightenedDir: boolean }> {
  const dir = path.dirname(socketPath);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  let tightenedDir = false;
  if (process.platform !== 'win32' && (statSync(dir).mode & 0o077) !== 0) {
    chmodSync(dir, 0o700);
    tightenedDir = true;
  }
  let stat;
  try {
    stat = lstatSync(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { tightenedDir };
    throw error;
  }
  if (!stat.isSocket()) throw new Error(`${socketPath} exists and is not a socket; refusing to replace it`);
  if (await answers(socketPath)) throw new Error(`another process is listening on ${socketPath} (is a signer already running on this data directory?)`);
  try {
    unlinkSync(socketPath);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  return { tightenedDir };
}

function answers(socketPath: string): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ path: socketPath });
    const done = (alive: boolean) => {
      socket.destroy();
      resolve(alive);
    };
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
    socket.setTimeout(1000, () => done(false));
  });
}

/** Runs `listen` with umask 0177 so the socket is created 0600 (then chmod again, for platforms or threads where umask cannot be set). */
export function withPrivateUmask<T>(listen: () => T): T {
  let previous: number | undefined;
  try {
    previous = process.umask(0o177);
  } catch {
    // process.umask(mask) is not available in worker threads; the chmod after listening covers it.
  }
  try {
    return listen();
  } finally {
    if (previous !== undefined) process.umask(previous);
  }
}

export function chmodSocket(socketPath: string): void {
  chmodSync(socketPath, 0o600);
}
