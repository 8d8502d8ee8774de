import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { extractTar } from './tar.ts';

const work = mkdtempSync(path.join(tmpdir(), 'wallet-tar-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

describe('extractTar', () => {
  it('restores what GNU tar archived: directories, empty and multi-block files, long paths', () => {
    const source = path.join(work, 'source');
    const deep = path.join(source, 'base', 'a'.repeat(90), 'b'.repeat(60));
    mkdirSync(deep, { recursive: true });
    writeFileSync(path.join(source, 'PG_VERSION'), '17\n');
    writeFileSync(path.join(source, 'base', 'empty'), '');
    writeFileSync(path.join(deep, 'blocks'), Buffer.alloc(3 * 512 + 7, 0x5a));
    const archive = execFileSync('tar', ['--format=ustar', '-C', source, '-cf', '-', '.']);
    const target = path.join(work, 'target');
    extractTar(archive, target);
    expect(readFileSync(path.join(target, 'PG_VERSION'), 'utf8')).toBe('17\n');
    expect(statSync(path.join(target, 'base', 'empty')).size).toBe(0);
    expect(readFileSync(path.join(deep.replace(source, target), 'blocks')).equals(Buffer.alloc(3 * 512 + 7, 0x5a))).toBe(true);
    expect(readdirSync(target).sort()).toEqual(['PG_VERSION', 'base']);
  });

  it('refuses entries it does not write and paths leaving the target', () => {
    const source = path.join(work, 'links');
    mkdirSync(source);
    execFileSync('ln', ['-s', '/etc/passwd', path.join(source, 'link')]);
    expect(() => extractTar(execFileSync('tar', ['--format=ustar', '-C', source, '-cf', '-', 'link']), path.join(work, 'x'))).toThrow(/unsupported tar entry type "2"/);
    writeFileSync(path.join(work, 'evil'), 'x');
    const escaping = execFileSync('tar', ['--format=ustar', '-P', '-C', work, '-cf', '-', '--transform', 's,^,../../,', 'evil']);
    expect(() => extractTar(escaping, path.join(work, 'y'))).toThrow(/outside the target/);
  });
});
