import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openDatabase } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch } from '../testing/response-contract.ts';
import { repoRoot } from '../config.ts';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { localServiceEnv, spawnService, type ServiceProcess } from '../testing/service-process.ts';

/** Every /v1 answer is checked against the document the answering process serves. */
const fetchChecked = checkedFetch();

const run = promisify(execFile);

interface Operation {
  id: string;
  status: string;
  transactions: { phase: string; status: string; nonce: number; transactionId: string }[];
}

/**
 * The real service process (embedded database), SIGKILLed in the middle of yield operations and
 * started again on the same data directory: every operation finishes, each step is signed once
 * (one audit row per step) and the wallet's nonces have no gap.
 */
describe('yield operations across a SIGKILL of the service', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-yield-restart-'));
  const children: ChildProcess[] = [];
  let devnets: LocalDevnets;
  let env: Record<string, string>;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, yieldMarkets: true });
    const y = devnets.yield!;
    env = localServiceEnv(dataDir, {
      // A killed process's operations continue elsewhere once their lease has passed.
      YIELD_LEASE_MS: '2000',
      CHAINS: JSON.stringify([{ type: 'EVM', chainId: 84532, rpcUrl: devnets.evmRpcUrl, isDevnet: true, usdcAddress: y.pool.usdc }]),
      YIELD_MARKETS: JSON.stringify([
        { id: 'poolprov-v3:84532:usdc', usdc: y.pool.usdc, pool: y.pool.poolAddress, aToken: y.pool.aToken },
        { id: 'vaultprov-v2-base-sepolia-demo-usdc', usdc: y.vault.usdc, vault: y.vault.vault, bundler: y.vault.bundler },
      ]),
    });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await devnets?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function sigkill(service: ServiceProcess) {
    const killed = new Promise((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGKILL');
    await killed;
  }

  it('finishes every operation after a restart, signing each step once and skipping no nonce', { timeout: 240_000 }, async () => {
    let service = await spawnService(env, children);
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'yield-restart'], { cwd: repoRoot, env });
    const { apiKey } = JSON.parse(stdout.trim()) as { apiKey: string };
    const call = async (method: string, urlPath: string, body?: unknown, idempotencyKey?: string) => {
      const response = await fetchChecked(`${service.url}${urlPath}`, {
        method,
        headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const wallet = (await call('POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'yield-restart', userIdentifierType: 'CUSTOM_ID' })).body as { id: string; address: string };
    await devnets.faucet.fund({ type: 'EVM', address: wallet.address }, 'native', 10n ** 18n);
    await devnets.faucet.fund({ type: 'EVM', address: wallet.address }, 'usdc', 50_000_000n);
    const operation = async (id: string) => {
      const response = await call("GET", `/v1/wallets/${wallet.id}/yield/operations/${id}`);
      if (response.status !== 200) throw new Error(`GET operation: ${response.status} ${JSON.stringify(response.body)}`);
      return response.body as unknown as Operation;
    };
    const restart = async () => {
      await sigkill(service);
      service = await spawnService(env, children);
    };

    // A vault deposit: killed once its approval is signed, and again once its deposit is signed.
    const deposit = await call('POST', `/v1/wallets/${wallet.id}/yield/deposits`, { marketId: 'vaultprov-v2-base-sepolia-demo-usdc', amount: '30' }, 'restart-deposit');
    expect(deposit.status, JSON.stringify(deposit.body)).toBe(202);
    const depositId = deposit.body.id as string;
    await expect.poll(async () => (await operation(depositId)).transactions.length, { timeout: 30_000, interval: 20 }).toBe(1);
    await restart();
    await expect.poll(async () => (await operation(depositId)).transactions.length, { timeout: 30_000, interval: 20 }).toBe(2);
    await restart();
    await expect.poll(async () => (await operation(depositId)).status, { timeout: 60_000, interval: 200 }).toBe('confirmed');

    // A full withdrawal: killed right after it was accepted.
    const withdrawal = await call('POST', `/v1/wallets/${wallet.id}/yield/withdrawals`, { marketId: 'vaultprov-v2-base-sepolia-demo-usdc', amount: 'all' }, 'restart-withdrawal');
    expect(withdrawal.status, JSON.stringify(withdrawal.body)).toBe(202);
    await restart();
    await expect.poll(async () => (await operation(withdrawal.body.id as string)).status, { timeout: 60_000, interval: 200 }).toBe('confirmed');

    const steps = [...(await operation(depositId)).transactions, ...(await operation(withdrawal.body.id as string)).transactions];
    expect(steps.map((s) => [s.phase, s.status, s.nonce])).toEqual([
      ['approval', 'confirmed', 0],
      ['action', 'confirmed', 1],
      ['action', 'confirmed', 2],
    ]);
    const history = (await call('GET', `/v1/wallets/${wallet.id}/transactions?intentKind=yield`)).body as { data: { transactionId: string }[] };
    expect(history.data.map((t) => t.transactionId).sort()).toEqual(steps.map((s) => s.transactionId).sort());
    const chainNonce = await fetch(devnets.evmRpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_getTransactionCount', params: [wallet.address, 'latest'] }) });
    expect(((await chainNonce.json()) as { result: string }).result).toBe('0x3');

    const exited = new Promise((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // One signature per step: the audit log of the wallet holds exactly the three.
    const database = await openDatabase({ dataDir: path.join(dataDir, 'db'), worker: false });
    try {
      const signed = await database.query<{ n: string }>(`SELECT count(*) AS n FROM audit_log WHERE wallet_id = $1 AND action LIKE 'wallet.sign.yield.%'`, [wallet.id]);
      expect(Number(signed[0]!.n)).toBe(3);
    } finally {
      await database.close();
    }
  });
});
