#!/usr/bin/env node
/**
 * The API package's `npm test`: the suite in three shards (scripts/vitest-shards.mjs), every answer
 * its tests receive checked against /v1/openapi.json and logged to a fresh RESPONSE_CONTRACT_LOG;
 * then the contract coverage gate: every documented 4xx of the Yield and Permissions operations
 * must have been received by some test (`npm run contract:coverage`). When the caller set
 * RESPONSE_CONTRACT_LOG, this run's lines are appended to that file too. With vitest arguments (a
 * file filter), only those tests run and the gate is skipped: it needs the whole suite.
 */
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

const GATED_TAGS = 'Yield,Permissions';
const directory = mkdtempSync(path.join(tmpdir(), 'contract-log-'));
const log = path.join(directory, 'responses.log');
const run = (args) => spawnSync(process.execPath, args, { stdio: 'inherit', env: { ...process.env, RESPONSE_CONTRACT_LOG: log } }).status ?? 1;

try {
  const vitestArgs = process.argv.slice(2);
  const suite = run(['../../scripts/vitest-shards.mjs', '3', ...vitestArgs]);
  if (process.env.RESPONSE_CONTRACT_LOG && existsSync(log)) appendFileSync(process.env.RESPONSE_CONTRACT_LOG, readFileSync(log, 'utf8'));
  if (suite !== 0 || vitestArgs.length > 0) process.exit(suite);
  console.log(`contract coverage of ${GATED_TAGS}:`);
  process.exitCode = run(['--import', 'tsx', 'src/testing/contract-coverage-cli.ts', log, '--tags', GATED_TAGS]);
} finally {
  rmSync(directory, { recursive: true, force: true });
}
