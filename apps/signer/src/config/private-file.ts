import { closeSync, fstatSync, openSync } from 'node:fs';

/**
 * Throws when `file` (a private key, a KEK file) is readable or writable by group or others, with
 * the chmod that fixes it; also when it is missing or not a regular file. `what` names it in the
 * message (a variable name, "TLS key"); the file's content is never read.
 */
export function assertPrivateFile(file: string, what = 'key file'): void {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new Error(code === 'ENOENT' ? `${what}: ${file} does not exist` : `${what}: ${file} cannot be read (${code})`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new Error(`${what}: ${file} is not a regular file`);
    if (process.platform !== 'win32' && (stat.mode & 0o077) !== 0) {
      const mode = (stat.mode & 0o777).toString(8).padStart(3, '0');
      throw new Error(`${what}: ${file} is accessible by group or others (mode ${mode}); restrict it with: chmod 600 ${file}`);
    }
  } finally {
    closeSync(fd);
  }
}
