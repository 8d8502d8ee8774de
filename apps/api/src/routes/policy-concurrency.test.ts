import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch } from '../testing/response-contract.ts';
import { repoRoot } from '../config.ts';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { guardrail, policyProject } from '../testing/policy-fixtures.ts';
import { spawnService } from '../testing/service-process.ts';

/** Every /v1 answer is checked against the document the answering process serves. */
const fetchChecked = checkedFetch();

const run = promisify(execFile);
const EVM_CHAIN = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const PARALLEL = 50;
const FITS = 10;
const AMOUNT = 1000n;
/** A daily native cap that fits exactly FITS transfers of AMOUNT. */
const dailyCap = guardrail('daily-cap', 'EVM', [
  { id: 'daily', effect: 'deny', actions: ['transfer'], condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: String(AMOUNT * BigInt(FITS)) } },
]);

type Answer = { status: number; body: { deniedBy?: { ruleId: string; reason: string }[] } };

/** Exactly FITS of the answers are 200 and every other one is the daily rule's denial. */
function expectExactlyFits(answers: Answer[]) {
  const statuses = answers.map((a) => a.status);
  expect(statuses.filter((s) => s === 200), JSON.stringify(answers.find((a) => a.status !== 200 && a.status !== 403))).toHaveLength(FITS);
  expect(statuses.filter((s) => s === 403)).toHaveLength(PARALLEL - FITS);
  for (const a of answers.filter((x) => x.status === 403)) expect(a.body.deniedBy).toEqual([expect.objectContaining({ ruleId: 'daily', reason: 'spend-limit-exceeded' })]);
}

describe.each(testDatabaseKinds)('a daily cap under 50 parallel transfers, one API process (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    app = await startTestApp(kind, { chains: devnets });
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  it(`signs exactly ${FITS}; the meter equals the sum signed`, async () => {
    const p = await policyProject(app);
    await p.apply(dailyCap);
    const w = await p.wallet('EVM');
    await devnets.faucet.fund({ type: 'EVM', address: w.address }, 'native', 10n ** 18n);
    const answers = (await Promise.all(
      Array.from({ length: PARALLEL }, () => p.post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: AMOUNT.toString(), chainId: EVM_CHAIN })),
    )) as Answer[];
    expectExactlyFits(answers);
    const usage = await p.get(`/v1/permissions-v2/wallets/${w.id}/policies/daily-cap/usage?chainId=${EVM_CHAIN}`);
    expect(usage.body.meters).toEqual([expect.objectContaining({ spent: String(AMOUNT * BigInt(FITS)), reserved: '0' })]);
    expect(await app.database.prisma.transactionRecord.count({ where: { walletId: w.id } })).toBe(FITS);
  });
});

// Registered only with PostgreSQL (never reported as skipped).
if (process.env.TEST_DATABASE_URL) describe('a daily cap under 50 parallel transfers, two API processes on one PostgreSQL', () => {
  const children: ChildProcess[] = [];
  const cleanups: (() => Promise<void>)[] = [];
  let devnets: LocalDevnets;

  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
    await devnets?.stop();
  });

  it(`signs exactly ${FITS} across both processes`, async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'pol');
    cleanups.push(scratch.drop);
    const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-policy-'));
    cleanups.push(async () => rmSync(dataDir, { recursive: true, force: true }));
    const chains = devnets.directory.list();
    const env: Record<string, string> = {
      ...(process.env as Record<string, string>),
      APP_ENV: 'local',
      DATA_DIR: dataDir,
      PORT: '0',
      DATABASE_URL: scratch.url,
      LOG_LEVEL: 'info', // spawnService waits for the "listening" line
      LOCAL_DEVNETS: 'off',
      CHAINS: JSON.stringify([{ type: 'EVM', chainId: EVM_CHAIN, rpcUrl: devnets.evmRpcUrl, isDevnet: true, usdcAddress: chains[0]!.usdc!.address }]),
    };
    // One after the other: the first applies the migrations to the fresh database.
    const first = await spawnService(env, children);
    const second = await spawnService(env, children);
    const cli = async (args: string[]) => JSON.parse((await run(process.execPath, ['--import', 'tsx', ...args], { cwd: repoRoot, env })).stdout.trim());
    const key = await cli(['apps/api/src/cli/keys.ts', 'create', '--partner', 'two-processes']);
    const file = path.join(dataDir, 'policy.json');
    writeFileSync(file, JSON.stringify(dailyCap));
    expect(await cli(['apps/api/src/cli/policies.ts', 'apply', '--project-id', key.projectId, '--env', 'development', '--file', file])).toMatchObject({ policyId: 'daily-cap', version: '1' });
    const call = async (base: string, method: string, urlPath: string, body?: unknown): Promise<Answer & { body: any }> => {
      const response = await fetchChecked(`${base}${urlPath}`, { method, headers: { 'x-api-key': key.apiKey, 'content-type': 'application/json' }, body: body ? JSON.stringify(body) : undefined });
      return { status: response.status, body: await response.json() };
    };
    const wallet = (await call(first.url, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'two-processes', userIdentifierType: 'CUSTOM_ID' })).body as { id: string; address: string };
    await devnets.faucet.fund({ type: 'EVM', address: wallet.address }, 'native', 10n ** 18n);
    const answers = await Promise.all(
      Array.from({ length: PARALLEL }, (_, i) =>
        call(i % 2 === 0 ? first.url : second.url, 'POST', `/v1/wallets/${wallet.id}/transfer`, { to: RECIPIENT, value: AMOUNT.toString(), chainId: EVM_CHAIN }),
      ),
    );
    expectExactlyFits(answers);
    const usage = await call(second.url, 'GET', `/v1/permissions-v2/wallets/${wallet.id}/policies/daily-cap/usage?chainId=${EVM_CHAIN}`);
    expect(usage.body.meters).toEqual([expect.objectContaining({ spent: String(AMOUNT * BigInt(FITS)), reserved: '0' })]);
  }, 300_000);
});
