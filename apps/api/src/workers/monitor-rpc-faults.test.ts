import { createChainRegistry } from '@wallet/chains';
import { startRpcFaultProxy, type RpcFaultMode, type RpcFaultProxy } from '@wallet/chains/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { EVM_CHAIN, RECIPIENT, helpers, movableClock, testDatabaseKinds } from '../testing/monitor-fixtures.ts';

describe('the transaction monitor when the RPC fails', () => {
  let devnets: LocalDevnets;
  let evmProxy: RpcFaultProxy;
  let solanaProxy: RpcFaultProxy;
  let app: TestApp;
  let key: string;
  const clock = movableClock();
  const { post, wallet, fund, record, row, runDue } = helpers(() => ({ app, clock, key }));

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    evmProxy = await startRpcFaultProxy(devnets.evmRpcUrl);
    solanaProxy = await startRpcFaultProxy(devnets.solanaRpcUrl);
    const registry = createChainRegistry(
      [
        { type: 'EVM', chainId: EVM_CHAIN, rpcUrl: evmProxy.url, isDevnet: true },
        { type: 'SOLANA', network: 'SOLANA_DEVNET', rpcUrl: solanaProxy.url, isDevnet: true },
      ],
      { timeoutMs: 1_000 },
    );
    app = await startTestApp(testDatabaseKinds[0]!, { chains: { ...registry, faucet: devnets.faucet }, clock });
    key = (await app.createKey()).apiKey;
  });
  afterAll(async () => {
    await app?.close();
    await evmProxy?.stop();
    await solanaProxy?.stop();
    await devnets?.stop();
  });

  it('resolves nothing without the evidence (drop, 500, time-out, finality unavailable), backs off, and resolves once the RPC is back', async () => {
    const e = await wallet('EVM');
    const s = await wallet('SOLANA');
    await fund(e.id, '1');
    await fund(s.id, '1');
    const evmSent = await post(`/v1/wallets/${e.id}/transfer`, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN });
    const solSent = await post(`/v1/wallets/${s.id}/transfer`, { to: (await wallet('SOLANA')).address, value: '1000000', network: 'SOLANA_DEVNET' });
    expect(evmSent.status, JSON.stringify(evmSent.body)).toBe(200);
    expect(solSent.status, JSON.stringify(solSent.body)).toBe(200);
    const ids = [evmSent.body.transactionId as string, solSent.body.transactionId as string];
    // Both are final on the chains (read directly, not through the proxies): only the RPC stands in the way.
    await expect
      .poll(async () => {
        const evm = devnets.gateways.evm(EVM_CHAIN)!;
        const [[receipt], heads, [status]] = await Promise.all([
          evm.getReceipts([evmSent.body.txHash]),
          evm.getHeads(),
          devnets.gateways.solana('SOLANA_DEVNET')!.getSignatureStatuses([solSent.body.txHash]),
        ]);
        return receipt !== null && receipt!.blockNumber + 1n <= heads.finalized && status?.confirmationStatus === 'finalized';
      }, { timeout: 15_000, interval: 100 })
      .toBe(true);

    const modes: [RpcFaultMode, RpcFaultMode][] = [
      ['drop', 'drop'],
      ['http500', 'http500'],
      [{ delayMs: 1_500 }, { delayMs: 1_500 }],
      [{ failMethods: ['eth_getBlockByNumber'] }, { failMethods: ['getSignatureStatuses'] }],
    ];
    let errors = 0;
    for (const [evmMode, solanaMode] of modes) {
      evmProxy.setMode(evmMode);
      solanaProxy.setMode(solanaMode);
      const result = await runDue(ids);
      expect(result.resolved, JSON.stringify(evmMode)).toBe(0);
      errors++;
      for (const id of ids) {
        const r = await row(id);
        expect(r.status, JSON.stringify(evmMode)).toBe('submitted');
        expect(r.consecutive_errors, JSON.stringify(evmMode)).toBe(errors);
        expect(r.monitoring.lastError, JSON.stringify(evmMode)).toBeTruthy();
      }
    }
    // The backoff doubles with each consecutive error.
    const backoff = (await row(ids[0]!)).next_check_at!.getTime() - clock.now().getTime();
    expect(backoff).toBeGreaterThan(30_000);
    expect(backoff).toBeLessThanOrEqual(40_000);
    expect(await record(e.id, ids[0]!)).toMatchObject({ status: 'submitted', blockNumber: null });

    evmProxy.setMode('pass');
    solanaProxy.setMode('pass');
    const before = evmProxy.requests + solanaProxy.requests;
    const result = await runDue(ids);
    expect(result.resolved).toBeGreaterThanOrEqual(2);
    expect(await record(e.id, ids[0]!)).toMatchObject({ status: 'confirmed' });
    expect(await record(s.id, ids[1]!)).toMatchObject({ status: 'confirmed' });
    expect((await row(ids[0]!)).consecutive_errors).toBe(0);
    // Batched: a handful of HTTP requests for the whole pass.
    expect(evmProxy.requests + solanaProxy.requests - before).toBeLessThanOrEqual(result.rpcCalls);
  });
});
