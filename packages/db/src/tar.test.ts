import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractTar, extractTarFile } from './tar.ts';

const work = mkdtempSync(path.join(tmpdir(), 'wallet-tar-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

let archives = 0;
// The archive in memory, and read from a file through a 1 MB buffer (a 2.5 MB entry spans three reads).
const forms: [string, (archive: Uint8Array, dir: string) => void][] = [
  ['extractTar', extractTar],
  [
    'extractTarFile',
    (archive, dir) => {
      const file = path.join(work, `archive-${++archives}.tar`);
      writeFileSync(file, archive);
      extractTarFile(file, dir);
    },
  ],
];

describe.each(forms)('%s', (name, extract) => {
  it('restores what GNU tar archived: directories, empty, multi-block and multi-megabyte files, long paths', () => {
    const source = path.join(work, name, 'source');
    const deep = path.join(source, 'base', 'a'.repeat(90), 'b'.repeat(60));
    mkdirSync(deep, { recursive: true });
    writeFileSync(path.join(source, 'PG_VERSION'), '17\n');
    writeFileSync(path.join(source, 'base', 'empty'), '');
    writeFileSync(path.join(deep, 'blocks'), Buffer.alloc(3 * 512 + 7, 0x5a));
    const large = Buffer.from(Array.from({ length: 2.5 * 1024 * 1024 }, (_, i) => (i * 7) % 251));
    writeFileSync(path.join(source, 'base', 'large'), large);
    const archive = execFileSync('tar', ['--format=ustar', '-C', source, '-cf', '-', '.'], { maxBuffer: 16 * 1024 * 1024 });
    const target = path.join(work, name, 'target');
    extract(archive, target);
    expect(readFileSync(path.join(target, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(statSync(path.join(target, 'base', 'empty')).size).toBe(0);
    expect(readFileSync(path.join(deep.replace(source, target), 'blocks')).equals(Buffer.alloc(3 * 512 + 7, 0x5a))).toBe(true);
    expect(readFileSync(path.join(target, 'base', 'large')).equals(large)).toBe(true);
    expect(readdirSync(target).sort()).toEqual(['PG_VERSION', 'base']);
  });

  it('refuses entries it does not write and paths leaving the target', () => {
    const source = path.join(work, name, 'links');
    mkdirSync(source, { recursive: true });
    execFileSync('ln', ['-s', '/etc/passwd', path.join(source, 'link')]);
    expect(() => extract(execFileSync('tar', ['--format=ustar', '-C', source, '-cf', '-', 'link']), path.join(work, name, 'x'))).toThrow(/unsupported tar entry type "2"/);
    writeFileSync(path.join(work, name, 'evil'), 'x');
    const escaping = execFileSync('tar', ['--format=ustar', '-P', '-C', path.join(work, name), '-cf', '-', '--transform', 's,^,../../,', 'evil']);
    expect(() => extract(escaping, path.join(work, name, 'y'))).toThrow(/outside the target/);
  });
});
