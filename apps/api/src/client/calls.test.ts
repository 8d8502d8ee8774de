import { AAVE_POOL_ABI } from '@wallet/domain';
import { createClient, unwrap, WalletApiError, waitForTransaction, type WalletClient } from '@wallet/client';
import { createPublicClient, encodeFunctionData, erc20Abi, http, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_EVM_CHAIN_ID, startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { checkedFetch } from '../testing/response-contract.ts';
import { startMonitorWorker, type MonitorWorker } from '../workers/monitor-worker.ts';

const fetchChecked = checkedFetch();
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

/** `client.calls` and `waitForTransaction` on a batch, against the real service over HTTP (every answer checked against the served document). */
describe('client.calls', () => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let client: WalletClient;
  let monitor: MonitorWorker;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ sponsorship: true, yieldMarkets: true });
    app = await startTestApp('pglite', { chains: devnets });
    client = createClient({
      baseUrl: app.baseUrl,
      apiKey: (await app.createKey()).apiKey,
      fetch: async (request) => fetchChecked(request.url, { method: request.method, headers: request.headers, body: request.method === 'GET' ? undefined : await request.text() }),
    });
    monitor = startMonitorWorker({ monitor: app.services.monitor, logger: silent, idleMs: 100 });
  }, 90_000);
  afterAll(async () => {
    await monitor?.stop();
    await app?.close();
    await devnets?.stop();
  });

  it('approves and supplies in one batch, waits for its record, and throws the simulation refusal typed', async () => {
    const wallet = await unwrap(client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: `client-calls-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } }));
    const address = wallet.address as Address;
    await devnets.faucet.fund({ type: 'EVM', address }, 'native', 10n ** 17n);
    await devnets.faucet.fund({ type: 'EVM', address }, 'usdc', 5_000_000n);
    const { poolAddress: pool, aToken, usdc } = { ...devnets.yield!.pool, usdc: (await unwrap(client.GET('/v1/chains'))).chains.find((c) => c.type === 'EVM')!.usdc!.address as Address };
    const approve = { to: usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [pool, 5_000_000n] }) };
    const supply = (amount: bigint) => ({ to: pool, data: encodeFunctionData({ abi: AAVE_POOL_ABI, functionName: 'supply', args: [usdc, amount, address, 0] }) });

    const refused = await client.calls.send(wallet.id, { chainId: LOCAL_EVM_CHAIN_ID, calls: [approve, supply(6_000_000n)] }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(WalletApiError);
    expect((refused as WalletApiError).code).toBe('CALLS_SIMULATION_REVERTED');

    const sent = await client.calls.send(wallet.id, { chainId: LOCAL_EVM_CHAIN_ID, calls: [approve, supply(5_000_000n)] }, { idempotencyKey: `client-${wallet.id}` });
    const record = await waitForTransaction(client, wallet.id, sent.transactionId, { timeoutMs: 40_000, intervalMs: 200 });
    expect(record).toMatchObject({ status: 'confirmed', intentKind: 'calls', calls: [{ to: usdc, selector: '0x095ea7b3' }, { to: pool, selector: '0x617ba037' }] });
    const chain = createPublicClient({ transport: http(devnets.evmRpcUrl) });
    expect(await chain.readContract({ address: aToken, abi: erc20Abi, functionName: 'balanceOf', args: [address] })).toBe(5_000_000n);
  });
});
