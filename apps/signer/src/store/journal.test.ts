import { closeSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { constants } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { GroupCommitJournal } from './journal.ts';

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
  it('writes each batch through a descriptor opened O_DSYNC | O_APPEND: the write returns once the lines are durable', async () => {
    const file = path.join(root, 'log.jsonl');
    const journal = await GroupCommitJournal.open(file);
    await Promise.all(['a\n', 'b\n', 'c\n'].map((line) => journal.append(line)));
    const flags = openFlags(file);
    expect(flags).toBeDefined();
    expect(flags! & constants.O_DSYNC).toBe(constants.O_DSYNC);
    expect(flags! & constants.O_APPEND).toBe(constants.O_APPEND);
    expect(readFileSync(file, 'utf8')).toBe('a\nb\nc\n');
    expect(journal.durableBytes).toBe(6);
    await journal.close();
    expect(openFlags(file)).toBeUndefined();
  });

  it('writes the lines appended in one event-loop turn with one write, and later ones with the next', async () => {
    const file = path.join(root, 'batches.jsonl');
    const journal = await GroupCommitJournal.open(file);
    await Promise.all(['a\n', 'b\n', 'c\n'].map((line) => journal.append(line)));
    expect({ batches: journal.batches, lines: journal.lines }).toEqual({ batches: 1, lines: 3 });
    await journal.append('d\n');
    expect({ batches: journal.batches, lines: journal.lines }).toEqual({ batches: 2, lines: 4 });
    expect(readFileSync(file, 'utf8')).toBe('a\nb\nc\nd\n');
    await journal.close();
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
    expect(readFileSync(file, 'utf8')).toBe('a\n');
  });
});
