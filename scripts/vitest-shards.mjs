#!/usr/bin/env node
/**
 * Runs a package's vitest suite as N shards side by side (`vitest run --shard=i/N`), each one file
 * at a time as vitest.shared.ts says, and fails when any shard fails. For suites whose files mostly
 * wait (on devnet blocks, child processes, timers) rather than compute: two shards on two cores
 * finish in a little over half the time. Every test builds its own database, devnet and ports, so
 * the shards share nothing but the machine. Output is prefixed with the shard number.
 *
 * usage: node scripts/vitest-shards.mjs N [vitest args…]   (run from the package folder)
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';

const [count, ...rest] = process.argv.slice(2);
const shards = Number(count);
if (!Number.isInteger(shards) || shards < 1) {
  console.error('usage: node scripts/vitest-shards.mjs N [vitest args…]');
  process.exit(2);
}
const vitest = createRequire(`${process.cwd()}/`).resolve('vitest/vitest.mjs');

function runShard(index) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [vitest, 'run', `--shard=${index}/${shards}`, ...rest], { stdio: ['ignore', 'pipe', 'pipe'] });
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
