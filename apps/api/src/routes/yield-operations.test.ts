import { AAVE_POOL_ABI, ERC20_ABI, ERC4626_VAULT_ABI } from '@wallet/domain';
import { testDatabaseKinds } from '@wallet/db';
import { createPublicClient, encodeFunctionData, http, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { startMonitorWorker } from '../workers/monitor-worker.ts';
import { startYieldWorker } from '../workers/yield-worker.ts';

const POOL = 'poolprov-v3:84532:usdc';
const VAULT = 'vaultprov-v2-base-sepolia-demo-usdc';
const USDC = 1_000_000n;
const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

let devnets: LocalDevnets;
let pub: ReturnType<typeof createPublicClient>;
beforeAll(async () => {
  devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, yieldMarkets: true });
  pub = createPublicClient({ transport: http(devnets.evmRpcUrl) });
});
afterAll(async () => {
  await devnets?.stop();
});

interface Operation {
  id: string;
  status: string;
  amount: string;
  transactions: { phase: string; status: string; transactionId: string; hash: string; nonce: number; blockNumber?: number }[];
  error?: { code: string; message: string | null };
}

// No chain-wide state changes here: every test (both kinds) runs side by side on one devnet.
describe.concurrent.each(testDatabaseKinds)('yield deposits and withdrawals on the devnet contracts (%s)', (kind) => {
  let app: TestApp;
  let key: string;
  let workers: { stop(): Promise<void> }[] = [];
  const d = () => devnets.yield!;

  beforeAll(async () => {
    app = await startTestApp(kind, { chains: devnets });
    key = (await app.createKey()).apiKey;
    workers = [startMonitorWorker({ monitor: app.services.monitor, logger: silent, idleMs: 100 }), startYieldWorker({ runner: app.services.yieldRunner, logger: silent, idleMs: 100 })];
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await app?.close();
  });

  async function fundedWallet(usdc = '100') {
    const wallet = (await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: `yield-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body as { id: string; address: Address };
    for (const [token, amount] of [['native', '1'], ['usdc', usdc]] as const) {
      const funded = await app.request('POST', '/v1/local/faucet', { key, body: { walletId: wallet.id, amount, token } });
      expect(funded.status, JSON.stringify(funded.body)).toBe(200);
    }
    return wallet;
  }

  const post = (walletId: string, action: 'deposits' | 'withdrawals', body: unknown, idempotencyKey: string) =>
    app.request('POST', `/v1/wallets/${walletId}/yield/${action}`, { key, body, headers: { 'idempotency-key': idempotencyKey } });

  /** Polls the operation until it is terminal or paused. */
  async function settled(walletId: string, operationId: string, timeoutMs = 60_000): Promise<Operation> {
    const until = Date.now() + timeoutMs;
    for (;;) {
      const response = await app.request('GET', `/v1/wallets/${walletId}/yield/operations/${operationId}`, { key });
      expect(response.status).toBe(200);
      const operation = response.body as Operation;
      if (!['pending', 'submitted'].includes(operation.status)) return operation;
      if (Date.now() > until) throw new Error(`operation still ${operation.status}: ${JSON.stringify(operation)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  const erc20 = (token: Address, owner: Address) => pub.readContract({ address: token, abi: ERC20_ABI, functionName: 'balanceOf', args: [owner] });
  const vaultShares = (owner: Address) => pub.readContract({ address: d().vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'balanceOf', args: [owner] });

  /** The position route at its snapshot block equals what viem reads there. */
  async function expectPosition(walletId: string, owner: Address, marketId: string) {
    const response = await app.request('GET', `/v1/wallets/${walletId}/yield/position?marketId=${marketId}`, { key });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    const position = response.body as { suppliedBalance: string; blockNumber: number; shares?: { balance: string } };
    const blockNumber = BigInt(position.blockNumber);
    const supplied =
      marketId === POOL
        ? await pub.readContract({ address: d().pool.aToken, abi: ERC20_ABI, functionName: 'balanceOf', args: [owner], blockNumber })
        : await pub.readContract({
            address: d().vault.vault,
            abi: ERC4626_VAULT_ABI,
            functionName: 'previewRedeem',
            args: [await pub.readContract({ address: d().vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'balanceOf', args: [owner], blockNumber })],
            blockNumber,
          });
    expect(position.suppliedBalance).toBe(`${supplied / USDC}.${(supplied % USDC).toString().padStart(6, '0')}`);
    return position;
  }

  async function expectStepRecords(walletId: string, operation: Operation) {
    for (const step of operation.transactions) {
      const record = (await app.request('GET', `/v1/wallets/${walletId}/transactions/${step.transactionId}`, { key })).body as Record<string, unknown>;
      expect(record).toMatchObject({ intentKind: 'yield', status: step.status, hash: step.hash });
      const receipt = await pub.getTransactionReceipt({ hash: step.hash as Hex });
      expect(receipt.status).toBe('success');
      expect(Number(receipt.blockNumber)).toBe(step.blockNumber);
    }
  }

  it('pool: a deposit approves exactly the amount, then supplies; a full withdrawal returns it all', async () => {
    const wallet = await fundedWallet();
    const created = await post(wallet.id, 'deposits', { marketId: POOL, amount: '10' }, `pool-dep-${wallet.id}`);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const operation = created.body as Operation;
    expect(created.headers.get('location')).toBe(`/v1/wallets/${wallet.id}/yield/operations/${operation.id}`);
    expect(operation).toMatchObject({ walletId: wallet.id, chainId: 84532, marketId: POOL, source: 'poolprov-v3', action: 'deposit', amount: '10.0', status: 'pending', transactions: [] });

    const done = await settled(wallet.id, operation.id);
    expect(done.status, JSON.stringify(done)).toBe('confirmed');
    expect(done.transactions.map((t) => [t.phase, t.status])).toEqual([['approval', 'confirmed'], ['action', 'confirmed']]);
    expect(done.transactions.map((t) => t.nonce)).toEqual([0, 1]);
    await expectStepRecords(wallet.id, done);
    const approval = await pub.getTransaction({ hash: done.transactions[0]!.hash as Hex });
    expect(approval.input).toBe(encodeFunctionData({ abi: ERC20_ABI, functionName: 'approve', args: [d().pool.poolAddress, 10n * USDC] }));
    expect(await erc20(d().pool.aToken, wallet.address)).toBeGreaterThanOrEqual(10n * USDC);
    expect(await erc20(d().pool.usdc, wallet.address)).toBe(90n * USDC);
    expect((await expectPosition(wallet.id, wallet.address, POOL)).suppliedBalance).toMatch(/^10\.0000\d\d$/);

    // The same request again answers the confirmed operation (200, no new work).
    const again = await post(wallet.id, 'deposits', { marketId: POOL, amount: '10.000000' }, `pool-dep-${wallet.id}`);
    expect(again.status).toBe(200);
    expect((again.body as Operation).id).toBe(operation.id);

    const withdrawal = await post(wallet.id, 'withdrawals', { chainId: '84532', amount: 'all' }, `pool-wd-${wallet.id}`);
    expect(withdrawal.status, JSON.stringify(withdrawal.body)).toBe(202);
    const out = await settled(wallet.id, (withdrawal.body as Operation).id);
    expect(out.status, JSON.stringify(out)).toBe('confirmed');
    expect(out.transactions.map((t) => [t.phase, t.status, t.nonce])).toEqual([['action', 'confirmed', 2]]);
    await expectStepRecords(wallet.id, out);
    const sent = await pub.getTransaction({ hash: out.transactions[0]!.hash as Hex });
    expect(sent.input).toBe(encodeFunctionData({ abi: AAVE_POOL_ABI, functionName: 'withdraw', args: [d().pool.usdc, 2n ** 256n - 1n, wallet.address] }));
    expect(await erc20(d().pool.aToken, wallet.address)).toBe(0n);
    expect((await expectPosition(wallet.id, wallet.address, POOL)).suppliedBalance).toBe('0.000000');
    expect(await erc20(d().pool.usdc, wallet.address)).toBeGreaterThanOrEqual(100n * USDC);
  });

  it('vault: a deposit goes through the bundler with the price bound; partial then full withdrawal', async () => {
    const wallet = await fundedWallet();
    const created = await post(wallet.id, 'deposits', { marketId: VAULT, amount: '20.5' }, `vault-dep-${wallet.id}`);
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const done = await settled(wallet.id, (created.body as Operation).id);
    expect(done.status, JSON.stringify(done)).toBe('confirmed');
    expect(done.transactions.map((t) => t.phase)).toEqual(['approval', 'action']);
    await expectStepRecords(wallet.id, done);
    const action = await pub.getTransaction({ hash: done.transactions[1]!.hash as Hex });
    expect(action.to?.toLowerCase()).toBe(d().vault.bundler.toLowerCase());
    const shares = await vaultShares(wallet.address);
    expect(shares).toBeGreaterThan(0n);
    expect(await erc20(d().vault.usdc, wallet.address)).toBe(100n * USDC - 20_500_000n);

    const partial = await post(wallet.id, 'withdrawals', { marketId: VAULT, amount: '5.25' }, `vault-wd-${wallet.id}`);
    const partialDone = await settled(wallet.id, (partial.body as Operation).id);
    expect(partialDone.status, JSON.stringify(partialDone)).toBe('confirmed');
    expect(await erc20(d().vault.usdc, wallet.address)).toBe(100n * USDC - 20_500_000n + 5_250_000n);
    await expectPosition(wallet.id, wallet.address, VAULT);

    const remaining = await vaultShares(wallet.address);
    const full = await post(wallet.id, 'withdrawals', { marketId: VAULT, amount: 'all' }, `vault-all-${wallet.id}`);
    const fullDone = await settled(wallet.id, (full.body as Operation).id);
    expect(fullDone.status, JSON.stringify(fullDone)).toBe('confirmed');
    const redeem = await pub.getTransaction({ hash: fullDone.transactions[0]!.hash as Hex });
    expect(redeem.input).toBe(encodeFunctionData({ abi: ERC4626_VAULT_ABI, functionName: 'redeem', args: [remaining, wallet.address, wallet.address] }));
    expect(await vaultShares(wallet.address)).toBe(0n);
    expect((await expectPosition(wallet.id, wallet.address, VAULT)).shares?.balance).toBe('0');
    // Full redemptions round received USDC down: at most one base unit short.
    expect(await erc20(d().vault.usdc, wallet.address)).toBeGreaterThanOrEqual(100n * USDC - 1n);
  });
});
