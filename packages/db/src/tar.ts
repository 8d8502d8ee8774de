import { closeSync, fstatSync, mkdirSync, openSync, readSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';

const BLOCK = 512;

function field(header: Uint8Array, offset: number, length: number): string {
  const bytes = header.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return Buffer.from(end === -1 ? bytes : bytes.subarray(0, end)).toString('utf8');
}

const octal = (header: Uint8Array, offset: number, length: number) => parseInt(field(header, offset, length).trim() || '0', 8);

/**
 * Walks a ustar archive (what PGlite's dumpDataDir makes) of `length` bytes: creates its directories
 * under `dir` and hands each regular file to `write`. Any other entry type, or a path leaving `dir`,
 * is an error: the archive is ours.
 */
function walk(length: number, header: (offset: number) => Uint8Array, dir: string, write: (target: string, offset: number, size: number, mode: number) => void): void {
  const root = path.resolve(dir);
  for (let offset = 0; offset + BLOCK <= length; ) {
    const block = header(offset);
    if (block.every((b) => b === 0)) break;
    const prefix = field(block, 345, 155);
    const name = prefix ? `${prefix}/${field(block, 0, 100)}` : field(block, 0, 100);
    const type = String.fromCharCode(block[156]!);
    const size = octal(block, 124, 12);
    const mode = octal(block, 100, 8) & 0o777;
    const target = path.resolve(root, `.${path.posix.sep}${name}`);
    if (target !== root && !target.startsWith(root + path.sep)) throw new Error(`tar entry outside the target: ${name}`);
    offset += BLOCK;
    if (type === '5') mkdirSync(target, { recursive: true, mode: mode || 0o700 });
    else if (type === '0' || type === '\0') {
      mkdirSync(path.dirname(target), { recursive: true });
      write(target, offset, size, mode || 0o600);
      offset += Math.ceil(size / BLOCK) * BLOCK;
    } else throw new Error(`unsupported tar entry type ${JSON.stringify(type)} for ${name}`);
  }
}

/** Writes the regular files and directories of a ustar archive under `dir` (see walk). */
export function extractTar(archive: Uint8Array, dir: string): void {
  walk(archive.length, (offset) => archive.subarray(offset, offset + BLOCK), dir, (target, offset, size, mode) =>
    writeFileSync(target, archive.subarray(offset, offset + size), { mode }),
  );
}

/**
 * extractTar from a file, through one 1 MB buffer: the archive (~40 MB) is never in memory, where
 * its garbage would stay in the old generation of an idle process until its next full collection.
 */
export function extractTarFile(file: string, dir: string): void {
  const fd = openSync(file, 'r');
  try {
    const chunk = Buffer.allocUnsafe(1 << 20);
    const header = Buffer.alloc(BLOCK);
    walk(
      fstatSync(fd).size,
      (offset) => header.subarray(0, readSync(fd, header, 0, BLOCK, offset)),
      dir,
      (target, offset, size, mode) => {
        const out = openSync(target, 'w', mode);
        try {
          for (let done = 0; done < size; ) {
            const read = readSync(fd, chunk, 0, Math.min(chunk.length, size - done), offset + done);
            if (read === 0) throw new Error(`tar archive ends inside ${target}`);
            writeSync(out, chunk, 0, read);
            done += read;
          }
        } finally {
          closeSync(out);
        }
      },
    );
  } finally {
    closeSync(fd);
  }
}
