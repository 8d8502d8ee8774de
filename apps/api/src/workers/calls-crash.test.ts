import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { deploySponsorshipContracts } from '@wallet/chains/devnets';
import { createScratchDatabase } from '@wallet/db';
import type { CrashPoint } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedServiceCalls } from '../testing/response-contract.ts';
import { repoRoot } from '../config.ts';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { rpc } from '../testing/monitor-fixtures.ts';
import { localServiceEnv, spawnService, type ServiceProcess } from '../testing/service-process.ts';

const run = promisify(execFile);
const EVM_CHAIN = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
/** A killed request's Idempotency-Key is taken over after this; its nonce reservation lapses after two thirds of it. */
const IDEMPOTENCY_LEASE_MS = 3_000;
const POINTS: CrashPoint[] = ['nonce-allocated', 'signed', 'record-committed', 'broadcast'];

/**
 * Fault injection with real processes on one PostgreSQL and one anvil, as for transfers
 * (transfer-crash.test.ts): a service process started with CRASH_AT kills itself (SIGKILL) at one
 * step of a batch of calls; the same request retried on a second process ends with one record,
 * another batch of the wallet sent meanwhile keeps the nonces contiguous, and every batch confirms.
 * Once for a wallet's first batch (the one that carries its delegation and takes the nonce after
 * its own), once per step for a delegated wallet.
 */
describe('a batch of calls whose process is killed at each step (two processes, PostgreSQL)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-calls-crash-'));
  const children: ChildProcess[] = [];
  let devnets: LocalDevnets;
  let env: Record<string, string>;
  let survivor: ServiceProcess;
  let apiKey: string;
  let dropDatabase: () => Promise<void>;

  beforeAll(async () => {
    const server = process.env.TEST_DATABASE_URL;
    if (!server) throw new Error('this suite needs TEST_DATABASE_URL (a PostgreSQL server both processes share)');
    const scratch = await createScratchDatabase(server, 'callscrash');
    dropDatabase = scratch.drop;
    devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100 });
    // Simple7702Account at its canonical address (the rest of the sponsorship stack comes with it).
    await deploySponsorshipContracts(devnets.evmRpcUrl, { sponsorAddress: RECIPIENT, depositWei: 0n });
    env = localServiceEnv(dataDir, {
      DATABASE_URL: scratch.url,
      IDEMPOTENCY_LEASE_MS: String(IDEMPOTENCY_LEASE_MS),
      CHAINS: JSON.stringify([{ type: 'EVM', chainId: EVM_CHAIN, rpcUrl: devnets.evmRpcUrl, isDevnet: true, usdcAddress: devnets.directory.list()[0]!.usdc!.address }]),
    });
    survivor = await spawnService(env, children);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'callscrash'], { cwd: repoRoot, env });
    ({ apiKey } = JSON.parse(stdout.trim()) as { apiKey: string });
  }, 120_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await devnets?.stop();
    await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = checkedServiceCalls(() => apiKey);
  const batch = (value: string) => ({ chainId: EVM_CHAIN, calls: [{ to: RECIPIENT, value }, { to: RECIPIENT, value: '1' }] });
  const chainNonce = async (address: string) => Number(await rpc(devnets.evmRpcUrl, 'eth_getTransactionCount', [address, 'latest']));

  async function fundedWallet(name: string) {
    const created = await call(survivor.url, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: `calls-crash-${name}-${Date.now()}`, userIdentifierType: 'CUSTOM_ID' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    await devnets.faucet.fund({ type: 'EVM', address: created.body.address }, 'native', 10n ** 18n);
    return created.body as { id: string; address: string };
  }

  /** Sends the batch to a process started with CRASH_AT=point and waits for it to die. */
  async function batchKilledAt(point: CrashPoint, walletId: string, body: unknown, key: string) {
    const crashing = await spawnService({ ...env, CRASH_AT: point }, children);
    const died = new Promise<NodeJS.Signals | null>((resolve) => crashing.child.once('exit', (_code, signal) => resolve(signal)));
    await expect(call(crashing.url, 'POST', `/v1/wallets/${walletId}/calls`, body, key)).rejects.toThrow();
    expect(await died).toBe('SIGKILL');
  }

  /** The wallet's records once every one is confirmed (the surviving process's monitor resolves them). */
  async function confirmedRecords(walletId: string, count: number) {
    let records: { transactionId: string; status: string }[] = [];
    await expect
      .poll(
        async () => {
          records = (await call(survivor.url, 'GET', `/v1/wallets/${walletId}/transactions?limit=50`)).body.data;
          return records.map((r) => r.status).sort();
        },
        { timeout: 90_000, interval: 250 },
      )
      .toEqual(Array.from({ length: count }, () => 'confirmed'));
    const details = [];
    for (const r of records) details.push((await call(survivor.url, 'GET', `/v1/wallets/${walletId}/transactions/${r.transactionId}`)).body);
    return details as { transactionId: string; nonce: number; calls: { value: string }[] }[];
  }

  /** The killed request retried (its lease passed), then replayed: one record. */
  async function retried(walletId: string, body: unknown, key: string) {
    let answer = await call(survivor.url, 'POST', `/v1/wallets/${walletId}/calls`, body, key);
    // A delegation's nonce taken meanwhile is a 409 that gives the key back: send again.
    if (answer.status === 409) answer = await call(survivor.url, 'POST', `/v1/wallets/${walletId}/calls`, body, key);
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    const again = await call(survivor.url, 'POST', `/v1/wallets/${walletId}/calls`, body, key);
    expect(again.body.transactionId).toBe(answer.body.transactionId);
    return answer.body.transactionId as string;
  }

  it('a first batch killed after its signatures: the retry signs its delegation again, one record, the wallet delegated', { timeout: 180_000 }, async () => {
    const wallet = await fundedWallet('first');
    const key = `calls-crash-first-${Date.now()}`;
    await batchKilledAt('signed', wallet.id, batch('1001'), key);
    const id = await retried(wallet.id, batch('1001'), key);
    const [record] = await confirmedRecords(wallet.id, 1);
    expect(record).toMatchObject({ transactionId: id, nonce: 0 });
    expect(await chainNonce(wallet.address)).toBe(2);
  });

  describe('delegated wallets', () => {
    const wallets = new Map<CrashPoint, { id: string; address: string }>();
    // One wallet per step, delegated by a first batch, all at once.
    beforeAll(async () => {
      await Promise.all(
        POINTS.map(async (point) => {
          const wallet = await fundedWallet(point);
          const delegating = await call(survivor.url, 'POST', `/v1/wallets/${wallet.id}/calls`, batch('1000'));
          expect(delegating.status, JSON.stringify(delegating.body)).toBe(200);
          // Mined: the transaction's nonce and its delegation's.
          for (let i = 0; i < 200 && (await chainNonce(wallet.address)) < 2; i++) await new Promise((r) => setTimeout(r, 200));
          wallets.set(point, wallet);
        }),
      );
    }, 90_000);

    it.each(POINTS)('a delegated wallet\'s batch killed at %s: one record for the retried request, nonces contiguous, all confirmed', { timeout: 180_000 }, async (point) => {
      const wallet = wallets.get(point)!;
      const key = `calls-crash-${point}-${Date.now()}`;
      await batchKilledAt(point, wallet.id, batch('1001'), key);
      // Another batch of the wallet while the killed request still holds its key (and perhaps its nonce).
      const second = await call(survivor.url, 'POST', `/v1/wallets/${wallet.id}/calls`, batch('1002'));
      expect(second.status, JSON.stringify(second.body)).toBe(200);
      const id = await retried(wallet.id, batch('1001'), key);

      const records = await confirmedRecords(wallet.id, 3);
      expect(records.map((r) => r.nonce).sort()).toEqual([0, 2, 3]);
      expect(records.find((r) => r.calls[0]!.value === '1001')!.transactionId).toBe(id);
      expect(records.find((r) => r.calls[0]!.value === '1002')!.transactionId).toBe(second.body.transactionId);
      expect(await chainNonce(wallet.address)).toBe(4);
    });
  });
});
