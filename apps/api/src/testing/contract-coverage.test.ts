import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { servedOpenApiDocument } from '../client/client-types.ts';
import { contractCoverage, documentTags, missingClientErrors } from './contract-coverage.ts';
import { startTestApp } from './harness.ts';

const run = promisify(execFile);
const cli = path.join(import.meta.dirname, 'contract-coverage-cli.ts');
const coverageOf = async (...args: string[]) =>
  run(process.execPath, ['--import', 'tsx', cli, ...args]).then(
    ({ stdout }) => ({ code: 0, stdout, stderr: '' }),
    (error: { code: number; stdout: string; stderr: string }) => ({ code: error.code, stdout: error.stdout, stderr: error.stderr }),
  );

// A real app writes its log line as it closes; the CLI reads it against the document it builds.
describe('the contract coverage report', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'contract-coverage-'));
  const log = path.join(dir, 'contract.log');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('logs the pairs a test app received, and reports the documented 4xx it never did (exit 1)', async () => {
    const before = process.env.RESPONSE_CONTRACT_LOG;
    process.env.RESPONSE_CONTRACT_LOG = log;
    try {
      const app = await startTestApp('pglite');
      const { apiKey } = await app.createKey();
      expect((await app.request('GET', '/v1/chains', { key: apiKey })).status).toBe(200);
      expect((await app.request('GET', '/v1/chains', { key: apiKey })).status).toBe(200);
      expect((await app.request('GET', '/v1/chains')).status).toBe(401);
      await app.close();
    } finally {
      if (before === undefined) delete process.env.RESPONSE_CONTRACT_LOG;
      else process.env.RESPONSE_CONTRACT_LOG = before;
    }
    expect(readFileSync(log, 'utf8')).toBe('3\tsrc/testing/contract-coverage.test.ts\tlistChains:200,listChains:401\n');

    const report = await coverageOf(log, '--tags', 'Chains');
    expect(report.code).toBe(1);
    const documented = contractCoverage(servedOpenApiDocument({ local: true }), '', ['Chains']).pairs.filter((pair) => pair.operationId === 'listChains');
    expect(report.stdout).toContain(`Chains: 2 of ${documented.length} documented answers received`);
    expect(report.stdout).toContain('  received:\n    listChains: 200, 401\n  never received:\n    listChains: 400, 403,');
    expect(report.stdout).toMatch(/^Summary: 2 of \d+ documented answers received \(Chains\); \d+ documented 4xx never received$/m);
  });

  it('passes when every documented 4xx of the tags was received, and refuses a tag the document lacks', async () => {
    const document = servedOpenApiDocument({ local: true });
    const all = contractCoverage(document, '', ['Chains']).pairs.map((pair) => `${pair.operationId}:${pair.status}`);
    const full = contractCoverage(document, `${all.length}\tsome.test.ts\t${all.join(',')}\n1\told-format.test.ts\n`, ['Chains']);
    expect(missingClientErrors(full)).toEqual([]);
    expect(full.linesWithoutPairs).toBe(1);
    expect(documentTags(document)).toEqual(expect.arrayContaining(['Yield', 'Permissions']));

    const refused = await coverageOf(log, '--tags', 'Yield,Permission');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("contract-coverage: unknown tag Permission: the document's tags are Wallets,");
  });
});
