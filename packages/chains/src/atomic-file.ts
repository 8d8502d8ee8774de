import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';

/**
 * Writes `path` so that a reader (or a start after a crash) sees either the old or the new
 * content, never a torn file: temp file in the same directory, fsync, rename over the target.
 */
export function writeFileAtomic(path: string, data: string | Uint8Array | readonly Uint8Array[]): void {
  const temp = `${path}.${process.pid}.tmp`;
  const fd = openSync(temp, 'w', 0o600);
  try {
    for (const part of typeof data === 'string' || data instanceof Uint8Array ? [data] : data) {
      const bytes = typeof part === 'string' ? Buffer.from(part) : part;
      let offset = 0;
      while (offset < bytes.length) offset += writeSync(fd, bytes, offset);
    }
    fsyncSync(fd);
  } catch (error) {
    closeSync(fd);
    rmSync(temp, { force: true });
    throw error;
  }
  closeSync(fd);
  renameSync(temp, path);
}
