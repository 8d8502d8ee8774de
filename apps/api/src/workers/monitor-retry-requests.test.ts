import { createChainRegistry } from '@wallet/chains';
import { startRpcFaultProxy, type RpcFaultProxy } from '@wallet/chains/testing';
import { parseTransaction, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { EVM_CHAIN, RECIPIENT, helpers, movableClock, rpc, testDatabaseKinds, ticker } from '../testing/monitor-fixtures.ts';

/**
 * The monitor's fee reads for managed automatic retry travel in the heads' JSON-RPC batch: counted
 * as HTTP requests at a proxy in front of anvil (the service reaches the chain only through it).
 */
describe.each(testDatabaseKinds)('managed retry: the fee reads share the heads request (%s)', (kind) => {
  let devnets: LocalDevnets;
  let proxy: RpcFaultProxy;
  let app: TestApp;
  let key: string;
  let blocks: ReturnType<typeof ticker>;
  const clock = movableClock();
  const { post, wallet, fund, record, runDue, resolveAll } = helpers(() => ({ app, clock, key }));
  const mine = async (n: number) => {
    for (let i = 0; i < n; i++) await rpc(devnets.evmRpcUrl, 'evm_mine');
  };

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 3_600_000 });
    await rpc(devnets.evmRpcUrl, 'evm_setIntervalMining', [0]);
    blocks = ticker(150, () => rpc(devnets.evmRpcUrl, 'evm_mine'));
    proxy = await startRpcFaultProxy(devnets.evmRpcUrl);
    const registry = createChainRegistry(
      [
        { type: 'EVM', chainId: EVM_CHAIN, rpcUrl: proxy.url, isDevnet: true },
        { type: 'SOLANA', network: 'SOLANA_DEVNET', rpcUrl: devnets.solanaRpcUrl, isDevnet: true },
      ],
      {},
    );
    app = await startTestApp(kind, { chains: { ...registry, faucet: devnets.faucet }, clock });
    key = (await app.createKey()).apiKey;
  });
  afterAll(async () => {
    blocks?.stop();
    await app?.close();
    await proxy?.stop();
    await devnets?.stop();
  });

  /** One monitor run when the record is due: its HTTP requests and JSON-RPC methods (sorted) at the proxy. */
  async function countedRun(id: string) {
    const requests = proxy.requests;
    const seen = proxy.methods.length;
    const result = await runDue([id]);
    return { result, requests: proxy.requests - requests, methods: proxy.methods.slice(seen).toSorted() };
  }

  it('keeps the plain heads read for a transfer without managed retry', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await blocks.pause();
    let id: string;
    try {
      const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '1000', chainId: EVM_CHAIN, autoRetry: { enabled: false } });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      id = sent.body.transactionId as string;
      const run = await countedRun(id);
      expect(run.requests).toBe(run.result.rpcCalls);
      expect(run.methods).toEqual(['eth_blockNumber', 'eth_getBlockByNumber', 'eth_getTransactionCount', 'eth_getTransactionReceipt']);
    } finally {
      blocks.resume();
    }
    // Resolved, so the next test's runs lease only its own record.
    await resolveAll([id]);
  });

  it('reads the fees in the heads batch while a managed transfer waits, and the replacing run adds only the send', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await blocks.pause();
    try {
      const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '1000', chainId: EVM_CHAIN });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const id = sent.body.transactionId as string;
      const offered = parseTransaction(sent.body.signedTransaction as Hex).maxFeePerGas!;
      await runDue([id]); // its wait starts at this block
      clock.advance(10_000); // old enough for the durable re-send check, in both runs below
      await rpc(devnets.evmRpcUrl, 'anvil_setNextBlockBaseFeePerGas', [`0x${(offered * 3n).toString(16)}`]);
      await mine(2);
      const waiting = await countedRun(id); // two blocks: no replacement yet
      expect((await record(w.id, id)).autoRetry.attempts).toHaveLength(1);
      await mine(1);
      const replacing = await countedRun(id);
      expect((await record(w.id, id)).autoRetry.attempts).toHaveLength(2);

      for (const run of [waiting, replacing]) {
        // Every gateway call the monitor counts is one HTTP request; the fees are read once, with the heads.
        expect(run.requests).toBe(run.result.rpcCalls);
        expect(run.methods.filter((m) => m === 'eth_gasPrice')).toHaveLength(1);
        expect(run.methods.filter((m) => m === 'eth_maxPriorityFeePerGas')).toHaveLength(1);
      }
      // The replacing run makes the waiting run's requests plus the replacement's send, no fee request.
      expect(replacing.requests).toBe(waiting.requests + 1);
      expect(replacing.methods).toEqual([...waiting.methods, 'eth_sendRawTransaction'].toSorted());
    } finally {
      blocks.resume();
    }
  });
});
