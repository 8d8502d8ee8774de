import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase } from '@wallet/db';
import { CRASH_POINTS, type CrashPoint } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedServiceCalls } from '../testing/response-contract.ts';
import { repoRoot } from '../config.ts';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { partnerReviewPolicy } from '../testing/approval-fixtures.ts';
import { rpc } from '../testing/monitor-fixtures.ts';
import { localServiceEnv, spawnService, type ServiceProcess } from '../testing/service-process.ts';


const run = promisify(execFile);
const EVM_CHAIN = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
/** A killed request's Idempotency-Key is taken over after this; its nonce reservation lapses after two thirds of it. */
const IDEMPOTENCY_LEASE_MS = 3_000;

/**
 * Fault injection with real processes on one PostgreSQL and one anvil: a service process started
 * with CRASH_AT kills itself (SIGKILL) at one step of a transfer; the same request (same
 * Idempotency-Key) retried on a second process ends with one record, another transfer of the
 * wallet sent meanwhile keeps the nonces contiguous, and every transfer confirms.
 */
describe('a transfer whose process is killed at each step (two processes, PostgreSQL)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-crash-'));
  const children: ChildProcess[] = [];
  let devnets: LocalDevnets;
  let env: Record<string, string>;
  let survivor: ServiceProcess;
  let apiKey: string;
  let projectId: string;
  let dropDatabase: () => Promise<void>;

  beforeAll(async () => {
    const server = process.env.TEST_DATABASE_URL;
    if (!server) throw new Error('this suite needs TEST_DATABASE_URL (a PostgreSQL server both processes share)');
    const scratch = await createScratchDatabase(server, 'crash');
    dropDatabase = scratch.drop;
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.5, slotMs: 100 });
    env = localServiceEnv(dataDir, {
      DATABASE_URL: scratch.url,
      IDEMPOTENCY_LEASE_MS: String(IDEMPOTENCY_LEASE_MS),
      CHAINS: JSON.stringify([{ type: 'EVM', chainId: EVM_CHAIN, rpcUrl: devnets.evmRpcUrl, isDevnet: true, usdcAddress: devnets.directory.list()[0]!.usdc!.address }]),
    });
    survivor = await spawnService(env, children);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'crash'], { cwd: repoRoot, env });
    ({ apiKey, projectId } = JSON.parse(stdout.trim()) as { apiKey: string; projectId: string });
  }, 120_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await devnets?.stop();
    await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = checkedServiceCalls(() => apiKey);

  async function fundedWallet(name: string) {
    const created = await call(survivor.url, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: `crash-${name}-${Date.now()}`, userIdentifierType: 'CUSTOM_ID' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await devnets.faucet.fund({ type: 'EVM', address: created.body.address }, 'native', 10n ** 18n);
    return created.body as { id: string; address: string };
  }

  /** Sends the first transfer to a process started with CRASH_AT=point and waits for it to die. */
  async function transferKilledAt(point: CrashPoint, walletId: string, body: unknown, key: string) {
    const crashing = await spawnService({ ...env, CRASH_AT: point }, children);
    const died = new Promise<NodeJS.Signals | null>((resolve) => crashing.child.once('exit', (_code, signal) => resolve(signal)));
    await expect(call(crashing.url, 'POST', `/v1/wallets/${walletId}/transfer`, body, key)).rejects.toThrow();
    expect(await died).toBe('SIGKILL');
  }

  /** The wallet's records once every one is resolved (the surviving process's monitor resolves them). */
  async function resolvedRecords(walletId: string, count: number) {
    let records: any[] = [];
    await expect
      .poll(
        async () => {
          records = (await call(survivor.url, 'GET', `/v1/wallets/${walletId}/transactions?limit=50`)).body.data;
          return records.map((r) => r.status).sort();
        },
        { timeout: 60_000, interval: 250 },
      )
      .toEqual(Array.from({ length: count }, () => 'confirmed'));
    const details = [];
    for (const r of records) details.push((await call(survivor.url, 'GET', `/v1/wallets/${walletId}/transactions/${r.transactionId}`)).body);
    return details;
  }

  const chainNonce = async (address: string) => Number(await rpc(devnets.evmRpcUrl, 'eth_getTransactionCount', [address, 'latest']));

  // The sponsored points are the sponsored worker's (sponsorship/sponsored-crash.test.ts), the replacement's the monitor's (replacement-crash.test.ts).
  it.each(CRASH_POINTS.filter((point) => !point.startsWith('sponsored-') && point !== 'replacement-stored'))('killed at %s: the retried request ends with one record and the nonces stay contiguous', { timeout: 120_000 }, async (point) => {
    const wallet = await fundedWallet(point);
    const first = { to: RECIPIENT, value: '1001', chainId: EVM_CHAIN };
    const firstKey = `crash-${point}-first-${Date.now()}`;
    await transferKilledAt(point, wallet.id, first, firstKey);
    // Another transfer of the wallet while the killed request still holds its key (and perhaps its nonce).
    const second = await call(survivor.url, 'POST', `/v1/wallets/${wallet.id}/transfer`, { to: RECIPIENT, value: '1002', chainId: EVM_CHAIN }, `crash-${point}-second`);
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    // The retry waits for the killed request's lease, then runs (or replays its record).
    const retried = await call(survivor.url, 'POST', `/v1/wallets/${wallet.id}/transfer`, first, firstKey);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const again = await call(survivor.url, 'POST', `/v1/wallets/${wallet.id}/transfer`, first, firstKey);
    expect(again.body.transactionId).toBe(retried.body.transactionId);

    const records = await resolvedRecords(wallet.id, 2);
    expect(records.map((r) => r.nonce).sort()).toEqual([0, 1]);
    expect(records.find((r) => r.value === '1001')!.transactionId).toBe(retried.body.transactionId);
    expect(records.find((r) => r.value === '1002')!.transactionId).toBe(second.body.transactionId);
    expect(await chainNonce(wallet.address)).toBe(2);
  });

  it('an approved transfer whose resend was killed after signing is sent by the retried resend, with the nonce its case froze', { timeout: 120_000 }, async () => {
    // Transfers above 0.001 ETH wait for the partner's review (the other tests send less).
    const policyFile = path.join(dataDir, 'partner-review.json');
    writeFileSync(policyFile, JSON.stringify(partnerReviewPolicy()));
    await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/policies.ts', 'apply', '--project-id', projectId, '--env', 'development', '--file', policyFile], { cwd: repoRoot, env });
    const wallet = await fundedWallet('approval');
    const body = { to: RECIPIENT, value: '2000000000000000', chainId: EVM_CHAIN };
    const key = `crash-approval-${Date.now()}`;
    const opened = await call(survivor.url, 'POST', `/v1/wallets/${wallet.id}/transfer`, body, key);
    expect(opened.status, JSON.stringify(opened.body)).toBe(403);
    expect(opened.body.code).toBe('POLICY_REVIEW_REQUIRED');
    const approved = await call(survivor.url, 'POST', `/v1/permissions-v2/reviews/${opened.body.reviewId}/approve`);
    expect(approved.body.status).toBe('approved');
    // The resend claims (consumes) the case and signs; its process dies before the record exists.
    await transferKilledAt('signed', wallet.id, body, key);
    expect((await call(survivor.url, 'GET', `/v1/permissions-v2/reviews/${opened.body.reviewId}`)).body.status).toBe('consumed');
    const retried = await call(survivor.url, 'POST', `/v1/wallets/${wallet.id}/transfer`, body, key);
    expect(retried.status, JSON.stringify(retried.body)).toBe(200);
    const [record] = await resolvedRecords(wallet.id, 1);
    expect(record).toMatchObject({ transactionId: retried.body.transactionId, nonce: 0, value: body.value });
    expect(await chainNonce(wallet.address)).toBe(1);
  });

  it('killed after the record was committed and never retried: the monitor sends the stored bytes', { timeout: 120_000 }, async () => {
    const wallet = await fundedWallet('unretried');
    await transferKilledAt('record-committed', wallet.id, { to: RECIPIENT, value: '2001', chainId: EVM_CHAIN }, `crash-unretried-${Date.now()}`);
    const second = await call(survivor.url, 'POST', `/v1/wallets/${wallet.id}/transfer`, { to: RECIPIENT, value: '2002', chainId: EVM_CHAIN });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const records = await resolvedRecords(wallet.id, 2);
    expect(records.map((r) => [r.value, r.nonce]).sort()).toEqual([
      ['2001', 0],
      ['2002', 1],
    ]);
    expect(await chainNonce(wallet.address)).toBe(2);
  });
});
