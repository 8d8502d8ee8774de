import { ERC20_ABI } from '@wallet/domain';
import { testDatabaseKinds } from '@wallet/db';
import { createPublicClient, http, parseTransaction, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { rpc } from '../testing/monitor-fixtures.ts';
import { startMonitorWorker } from './monitor-worker.ts';

const POOL = 'poolprov-v3:84532:usdc';
const USDC = 1_000_000n;
const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };
const hex = (n: bigint) => `0x${n.toString(16)}`;

/**
 * Managed automatic retry of yield steps: the monitor worker replaces a step stuck under a base fee
 * raised by hand (blocks mined by hand), the replacement is signed as the same yield call, and the
 * operation goes on to `confirmed` with the position on chain.
 */
describe.concurrent.each(testDatabaseKinds)('managed automatic retry of yield steps (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let key: string;
  let monitor: { stop(): Promise<void> };

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, yieldMarkets: true });
    app = await startTestApp(kind, { chains: devnets });
    key = (await app.createKey()).apiKey;
    monitor = startMonitorWorker({ monitor: app.services.monitor, logger: silent, idleMs: 100 });
  });
  afterAll(async () => {
    await monitor?.stop();
    await app?.close();
    await devnets?.stop();
  });

  it('replaces an approval step priced under the new base fee; the operation confirms with the replacement', { timeout: 120_000 }, async () => {
    const pub = createPublicClient({ transport: http(devnets.evmRpcUrl) });
    const wallet = (await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: `yield-retry-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body as { id: string; address: Address };
    for (const [token, amount] of [['native', '1'], ['usdc', '20']] as const) {
      const funded = await app.request('POST', '/v1/local/faucet', { key, body: { walletId: wallet.id, amount, token } });
      expect(funded.status, JSON.stringify(funded.body)).toBe(200);
    }
    const read = async (id: string) => (await app.request('GET', `/v1/wallets/${wallet.id}/yield/operations/${id}`, { key })).body;
    const record = async (transactionId: string) => (await app.request('GET', `/v1/wallets/${wallet.id}/transactions/${transactionId}`, { key })).body;

    // From here the chain moves only when the test mines.
    await rpc(devnets.evmRpcUrl, 'evm_setIntervalMining', [0]);
    const created = await app.request('POST', `/v1/wallets/${wallet.id}/yield/deposits`, { key, body: { marketId: POOL, amount: '10' }, headers: { 'idempotency-key': `retry-${wallet.id}` } });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const id = created.body.id as string;
    try {
      let operation = await read(id);
      for (let i = 0; i < 100 && operation.transactions.length === 0; i++) {
        await app.services.yieldRunner.runOnce();
        operation = await read(id);
      }
      expect(operation.transactions.map((t: { phase: string }) => t.phase)).toEqual(['approval']);
      const step = operation.transactions[0] as { transactionId: string; hash: string };
      const first = await record(step.transactionId);
      expect(first.autoRetry).toMatchObject({ enabled: true, attempts: [{ hash: step.hash }] });
      const offered = BigInt(first.autoRetry.attempts[0].maxFeePerGas);
      expect(first.autoRetry.maxFeePerGas).toBe((offered * 10n).toString());

      // Empty blocks whose base fee is three times what the step offers, until the monitor replaced it.
      let attempts: { hash: string; maxFeePerGas: string; outcome: string }[] = [];
      for (let i = 0; i < 60 && attempts.length < 2; i++) {
        await rpc(devnets.evmRpcUrl, 'anvil_setNextBlockBaseFeePerGas', [hex(offered * 3n)]);
        await rpc(devnets.evmRpcUrl, 'evm_mine');
        await new Promise((r) => setTimeout(r, 300));
        attempts = (await record(step.transactionId)).autoRetry.attempts;
      }
      expect(attempts).toHaveLength(2);
      const signed = (table: string, hash: string) => app.database.query<{ signed_transaction: Hex }>(`SELECT signed_transaction FROM ${table} WHERE hash = $1`, [hash]);
      const replacement = parseTransaction((await signed('transaction_attempts', attempts[1]!.hash))[0]!.signed_transaction);
      const original = parseTransaction((await signed('transaction_records', step.hash))[0]!.signed_transaction);
      expect({ nonce: replacement.nonce, to: replacement.to, data: replacement.data, value: replacement.value }).toEqual({ nonce: original.nonce, to: original.to, data: original.data, value: original.value });
      expect(replacement.maxFeePerGas!).toBeGreaterThanOrEqual((offered * 110n) / 100n);
      // Signed as the yield call it is, through the pipeline.
      const audited = await app.database.query<{ action: string }>(`SELECT action FROM audit_log WHERE wallet_id = $1 AND action = 'wallet.sign.yield.approve'`, [wallet.id]);
      expect(audited).toHaveLength(2);
    } finally {
      await rpc(devnets.evmRpcUrl, 'evm_setIntervalMining', [1]);
    }

    let operation = await read(id);
    for (let i = 0; i < 200 && ['pending', 'submitted'].includes(operation.status); i++) {
      await app.services.yieldRunner.runOnce();
      await new Promise((r) => setTimeout(r, 150));
      operation = await read(id);
    }
    expect(operation.status, JSON.stringify(operation)).toBe('confirmed');
    const approval = await record(operation.transactions[0].transactionId);
    expect(approval).toMatchObject({ status: 'confirmed', hash: operation.transactions[0].hash, monitoring: { winningHash: approval.autoRetry.attempts[1].hash } });
    expect(approval.autoRetry.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['lost', 'included']);
    expect(await pub.readContract({ address: devnets.yield!.pool.aToken, abi: ERC20_ABI, functionName: 'balanceOf', args: [wallet.address] })).toBeGreaterThanOrEqual(10n * USDC);
  });
});
