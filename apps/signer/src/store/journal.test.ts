import { closeSync, mkdtempSync, openSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { constants } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GroupCommitJournal, repairTornTail } from './journal.ts';
import { readLines } from './signature-log.ts';

const root = mkdtempSync(path.join(tmpdir(), 'signer-journal-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** The open flags of this process's descriptor for `file` (Linux /proc), or undefined when none is open. */
function openFlags(file: string): number | undefined {
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (target !== file) continue;
    const flags = /^flags:\s+([0-7]+)$/m.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'))?.[1];
    if (flags) return parseInt(flags, 8);
  }
  return undefined;
}

describe.runIf(process.platform === 'linux')('group commit journal', () => {
  it('writes each batch through a descriptor opened O_DSYNC: the write returns once the lines are durable', async () => {
    const file = path.join(root, 'log.jsonl');
    const journal = await GroupCommitJournal.open(file);
    await Promise.all(['a\n', 'b\n', 'c\n'].map((line) => journal.append(line)));
    const flags = openFlags(file);
    expect(flags).toBeDefined();
    expect(flags! & constants.O_DSYNC).toBe(constants.O_DSYNC);
    expect(readFileSync(file, 'utf8').startsWith('a\nb\nc\n ')).toBe(true);
    expect(journal.durableBytes).toBe(6);
    await journal.close();
    expect(openFlags(file)).toBeUndefined();
    expect(readFileSync(file, 'utf8')).toBe('a\nb\nc\n');
  });

  it('overwrites padding written ahead, so the file keeps its size while lines are appended, and grows it a chunk at a time', async () => {
    const file = path.join(root, 'padded.jsonl');
    writeFileSync(file, 'x\n');
    const journal = await GroupCommitJournal.open(file, { preallocateBytes: 16 });
    // Opened: the line, then 16 spaces and the newline that ends the padding.
    expect(readFileSync(file, 'utf8')).toBe(`x\n${' '.repeat(16)}\n`);
    await journal.append('aaaa\n');
    await journal.append('bbbb\n');
    expect(statSync(file).size).toBe(2 + 16 + 1);
    expect(readFileSync(file, 'utf8')).toBe(`x\naaaa\nbbbb\n${' '.repeat(6)}\n`);
    // The next line would leave no padding byte before the final newline: a new chunk first.
    await journal.append('cccccc\n');
    expect(readFileSync(file, 'utf8')).toBe(`x\naaaa\nbbbb\ncccccc\n${' '.repeat(16)}\n`);
    const lines: string[] = [];
    const reader = readLines(file);
    let next = await reader.next();
    for (; !next.done; next = await reader.next()) lines.push(next.value);
    expect({ lines, tail: next.value }).toEqual({ lines: ['x', 'aaaa', 'bbbb', 'cccccc'], tail: 0 });
    await journal.close();
    expect(readFileSync(file, 'utf8')).toBe('x\naaaa\nbbbb\ncccccc\n');
  });

  it('repairs a file left padded by a crash, with a line cut short in the padding: only that line goes', async () => {
    const file = path.join(root, 'crashed.jsonl');
    const journal = await GroupCommitJournal.open(file, { preallocateBytes: 32 });
    await journal.append('{"a":1}\n');
    // A crash while the next line was being written: a prefix of it landed in the padding, then NULs.
    const fd = openSync(file, 'r+');
    writeSync(fd, Buffer.from('{"b":2\u0000\u0000'), 0, 8, 8);
    closeSync(fd);
    const reader = readLines(file);
    const first = await reader.next();
    expect(first).toEqual({ done: false, value: '{"a":1}' });
    expect(await reader.next()).toEqual({ done: true, value: 6 });
    await expect(GroupCommitJournal.open(file)).rejects.toThrow(/incomplete line; repairTornTail/);
    expect(repairTornTail(file)).toBe(6);
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    expect(repairTornTail(file)).toBe(0);
    // A padded file with no line cut short loses its padding only, and reports nothing removed.
    writeFileSync(file, `{"a":1}\n${' '.repeat(10)}\n`);
    expect(repairTornTail(file)).toBe(0);
    expect(readFileSync(file, 'utf8')).toBe('{"a":1}\n');
  });

  it('reads content after the padding as a damaged file, not as the end', async () => {
    const file = path.join(root, 'damaged.jsonl');
    writeFileSync(file, `{"a":1}\n${' '.repeat(4)}\n{"b":2}\n`);
    const reader = readLines(file);
    expect(await reader.next()).toEqual({ done: false, value: '{"a":1}' });
    await expect(reader.next()).rejects.toThrow(/content after the padding/);
  });

  it('refuses an append that is not one line ending in a newline, or that ends in padding', async () => {
    const journal = await GroupCommitJournal.open(path.join(root, 'strict.jsonl'));
    for (const bad of ['a', '\n', 'a \n', 'a\u0000\n', 'a\nb\n']) await expect(journal.append(bad)).rejects.toThrow(/one line ending in a newline/);
    await journal.append('ok\n');
    await journal.close();
  });

  it('writes the lines appended in one event-loop turn with one write, and later ones with the next', async () => {
    const file = path.join(root, 'batches.jsonl');
    const journal = await GroupCommitJournal.open(file);
    await Promise.all(['a\n', 'b\n', 'c\n'].map((line) => journal.append(line)));
    expect({ batches: journal.batches, lines: journal.lines }).toEqual({ batches: 1, lines: 3 });
    await journal.append('d\n');
    expect({ batches: journal.batches, lines: journal.lines }).toEqual({ batches: 2, lines: 4 });
    await journal.close();
    expect(readFileSync(file, 'utf8')).toBe('a\nb\nc\nd\n');
    await expect(journal.append('e\n')).rejects.toThrow(/closed/);
  });

  it('refuses every append after a failed write, those of its batch included', async () => {
    const file = path.join(root, 'failing.jsonl');
    const journal = await GroupCommitJournal.open(file);
    await journal.append('a\n');
    // The next write fails: its descriptor is gone (closed here, and never reused by another file).
    const internals = journal as unknown as { fd: number };
    closeSync(internals.fd);
    internals.fd = -1;
    const batch = await Promise.allSettled(['b\n', 'c\n'].map((line) => journal.append(line)));
    expect(batch.map((r) => r.status)).toEqual(['rejected', 'rejected']);
    await expect(journal.append('d\n')).rejects.toThrow(/write failed \(\w+\); the journal refuses appends until the process restarts/);
    expect(journal.durableBytes).toBe(2);
    expect(readFileSync(file, 'utf8').trimEnd()).toBe('a');
  });
});
