/**
 * Creates a file whole or not at all: the text goes to a private temporary name beside it, which is
 * then hard-linked into place (the link fails when the file exists). A concurrent reader never sees
 * an empty or half-written file, and an existing file is never overwritten.
 */
import { randomBytes } from 'node:crypto';
import { linkSync, unlinkSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/** True when this call created `file`; false when it already existed. */
export function createFileWhole(file: string, text: string, mode: number): boolean {
  const temp = join(dirname(file), `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}`);
  writeFileSync(temp, text, { mode, flag: 'wx' });
  try {
    linkSync(temp, file);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return false;
  } finally {
    unlinkSync(temp);
  }
}
