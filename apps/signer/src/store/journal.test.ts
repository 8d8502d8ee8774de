import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
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
});
