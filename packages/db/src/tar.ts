import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const BLOCK = 512;

function field(header: Uint8Array, offset: number, length: number): string {
  const bytes = header.subarray(offset, offset + length);
  const end = bytes.indexOf(0);
  return Buffer.from(end === -1 ? bytes : bytes.subarray(0, end)).toString('utf8');
}

const octal = (header: Uint8Array, offset: number, length: number) => parseInt(field(header, offset, length).trim() || '0', 8);

/**
 * Writes the regular files and directories of a ustar archive (what PGlite's dumpDataDir makes)
 * under `dir`. Any other entry type, or a path leaving `dir`, is an error: the archive is ours.
 */
export function extractTar(archive: Uint8Array, dir: string): void {
  const root = path.resolve(dir);
  for (let offset = 0; offset + BLOCK <= archive.length; ) {
    const header = archive.subarray(offset, offset + BLOCK);
    if (header.every((b) => b === 0)) break;
    const prefix = field(header, 345, 155);
    const name = prefix ? `${prefix}/${field(header, 0, 100)}` : field(header, 0, 100);
    const type = String.fromCharCode(header[156]!);
    const size = octal(header, 124, 12);
    const mode = octal(header, 100, 8) & 0o777;
    const target = path.resolve(root, `.${path.posix.sep}${name}`);
    if (target !== root && !target.startsWith(root + path.sep)) throw new Error(`tar entry outside the target: ${name}`);
    offset += BLOCK;
    if (type === '5') mkdirSync(target, { recursive: true, mode: mode || 0o700 });
    else if (type === '0' || type === '\0') {
      mkdirSync(path.dirname(target), { recursive: true });
      writeFileSync(target, archive.subarray(offset, offset + size), { mode: mode || 0o600 });
      offset += Math.ceil(size / BLOCK) * BLOCK;
    } else throw new Error(`unsupported tar entry type ${JSON.stringify(type)} for ${name}`);
  }
}
