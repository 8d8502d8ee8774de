#!/usr/bin/env node
/**
 * Runs a package's vitest suite as N shards side by side (`vitest run --shard=i/N`), each one file
 * at a time as vitest.shared.ts says, and fails when any shard fails. For suites whose files mostly
 * wait (on devnet blocks, child processes, timers) rather than compute: two shards on two cores
 * finish in a little over half the time. Every test builds its own database, devnet and ports, so
 * the shards share nothing but the machine. Output is prefixed with the shard number.
 *
 * With a `test-durations.json` in the package folder (seconds per test file, from a CI run), the
 * files are dealt to the shards longest first, each to the shard with the least time so far, and
 * each shard runs its own file list; a file not listed counts as the median. Without it, or when a
 * file's path would also match another file (vitest's file filters are substrings), vitest's own
 * `--shard=i/N` (an even file count per shard) is used.
 *
 * usage: node scripts/vitest-shards.mjs N [vitest args…]   (run from the package folder)
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const [count, ...rest] = process.argv.slice(2);
const shards = Number(count);
if (!Number.isInteger(shards) || shards < 1) {
  console.error('usage: node scripts/vitest-shards.mjs N [vitest args…]');
  process.exit(2);
}
const vitest = createRequire(`${process.cwd()}/`).resolve('vitest/vitest.mjs');

/** The file lists of the shards, balanced by the recorded durations; null when that cannot be done. */
function balancedShards() {
  if (!existsSync('test-durations.json')) return null;
  const durations = JSON.parse(readFileSync('test-durations.json', 'utf8'));
  // vitest.shared.ts includes src/**/*.test.ts.
  const files = readdirSync('src', { recursive: true })
    .filter((name) => name.endsWith('.test.ts'))
    .map((name) => path.posix.join('src', name.split(path.sep).join('/')))
    .sort();
  if (files.some((file) => files.some((other) => other !== file && other.includes(file)))) return null;
  const known = files.map((file) => durations[file]).filter((seconds) => typeof seconds === 'number').sort((a, b) => a - b);
  const median = known.length > 0 ? known[Math.floor(known.length / 2)] : 1;
  const weight = (file) => (typeof durations[file] === 'number' ? durations[file] : median);
  const lists = Array.from({ length: shards }, () => ({ seconds: 0, files: [] }));
  for (const file of [...files].sort((a, b) => weight(b) - weight(a) || a.localeCompare(b))) {
    const lightest = lists.reduce((min, list) => (list.seconds < min.seconds ? list : min));
    lightest.files.push(file);
    lightest.seconds += weight(file);
  }
  // An empty list would make vitest run every file.
  return lists.every((list) => list.files.length > 0) ? lists.map((list) => list.files) : null;
}

const balanced = balancedShards();

function runShard(index) {
  return new Promise((resolve) => {
    const selection = balanced ? balanced[index - 1] : [`--shard=${index}/${shards}`];
    const child = spawn(process.execPath, [vitest, 'run', ...selection, ...rest], { stdio: ['ignore', 'pipe', 'pipe'] });
    for (const [stream, out] of [
      [child.stdout, process.stdout],
      [child.stderr, process.stderr],
    ]) {
      let partial = '';
      stream.on('data', (chunk) => {
        const lines = (partial + chunk).split('\n');
        partial = lines.pop();
        for (const line of lines) out.write(`[${index}/${shards}] ${line}\n`);
      });
      stream.on('end', () => partial && out.write(`[${index}/${shards}] ${partial}\n`));
    }
    child.on('exit', (code, signal) => resolve(code ?? (signal ? 1 : 0)));
  });
}

const codes = await Promise.all(Array.from({ length: shards }, (_, i) => runShard(i + 1)));
const failed = codes.filter((c) => c !== 0).length;
if (failed) console.error(`${failed} of ${shards} shards failed`);
process.exit(failed ? 1 : 0);
