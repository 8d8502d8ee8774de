import { AAVE_POOL_ABI, ERC20_ABI, ERC4626_VAULT_ABI } from '@wallet/domain';
import { testDatabaseKinds } from '@wallet/db';
import { createChainRegistry } from '@wallet/chains';
import {
  createLiquidityShortage,
  createVaultLiquidityShortage,
  endLiquidityShortage,
  endVaultLiquidityShortage,
  moveVaultSharePrice,
  setSupplyCap,
  startRpcFaultProxy,
  type RpcFaultProxy,
} from '@wallet/chains/testing';
import { createPublicClient, encodeFunctionData, http, type Address, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { movableClock } from '../testing/monitor-fixtures.ts';
import { approvalsProject, decide } from '../testing/approval-fixtures.ts';
import { guardrail, policyProject } from '../testing/policy-fixtures.ts';
import { startMonitorWorker } from '../workers/monitor-worker.ts';

const POOL = 'poolprov-v3:84532:usdc';
const VAULT = 'vaultprov-v2-base-sepolia-demo-usdc';
const USDC = 1_000_000n;
const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

interface Operation {
  id: string;
  status: string;
  transactions: { phase: string; status: string; transactionId: string; hash: string; nonce: number }[];
  error?: { code: string; message: string | null; reviewId?: string };
}

/**
 * What the chain does to an operation between preparation and signing: the supply cap, the vault's
 * price bound, a liquidity shortage, a nonce consumed by another transaction, a sufficient allowance.
 * The yield runner is driven by hand (`drive`) so a test can act between two of its steps. Each
 * database kind has its own devnet (the cap, the price and the shortages are chain-wide), so the
 * two kinds run side by side while each one's tests run in order.
 */
describe.concurrent.each(testDatabaseKinds)('yield operations meeting the chain (%s)', (kind) => {
  describe.sequential(`${kind}: one test at a time`, () => {
    let devnets: LocalDevnets;
    let proxy: RpcFaultProxy;
    let pub: ReturnType<typeof createPublicClient>;
    let app: TestApp;
    let key: string;
    let monitor: { stop(): Promise<void> };
    const d = () => devnets.yield!;
    // The service's clock; only moved forward (by the last test: a process that stalled past its lease).
    const clock = movableClock();

    beforeAll(async () => {
      devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, yieldMarkets: true });
      // The service reaches the EVM devnet through a proxy that can refuse to forward sends.
      proxy = await startRpcFaultProxy(devnets.evmRpcUrl);
      pub = createPublicClient({ transport: http(devnets.evmRpcUrl) });
      const registry = createChainRegistry([{ type: 'EVM', chainId: 84532, rpcUrl: proxy.url, isDevnet: true, usdcAddress: devnets.yield!.pool.usdc }], { timeoutMs: 2_000 });
      app = await startTestApp(kind, { clock, chains: { ...registry, faucet: devnets.faucet, yield: devnets.yield } });
      key = (await app.createKey()).apiKey;
      monitor = startMonitorWorker({ monitor: app.services.monitor, logger: silent, idleMs: 100 });
    });
    afterAll(async () => {
      await monitor?.stop();
      await app?.close();
      await proxy?.stop();
      await devnets?.stop();
    });

    async function fundedWallet(usdc = '100') {
      const wallet = (await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: `yield-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body as { id: string; address: Address };
      for (const [token, amount] of [['native', '1'], ['usdc', usdc]] as const) {
        const funded = await app.request('POST', '/v1/local/faucet', { key, body: { walletId: wallet.id, amount, token } });
        expect(funded.status, JSON.stringify(funded.body)).toBe(200);
      }
      return wallet;
    }

    async function post(walletId: string, action: 'deposits' | 'withdrawals', body: unknown, idempotencyKey: string): Promise<Operation> {
      const response = await app.request('POST', `/v1/wallets/${walletId}/yield/${action}`, { key, body, headers: { 'idempotency-key': idempotencyKey } });
      expect(response.status, JSON.stringify(response.body)).toBe(202);
      return response.body as Operation;
    }

    const read = async (walletId: string, id: string) => (await app.request('GET', `/v1/wallets/${walletId}/yield/operations/${id}`, { key })).body as Operation;

    /** Runs the yield runner until the operation is terminal or paused, or `until` says stop. */
    async function drive(walletId: string, id: string, until: (op: Operation) => boolean = () => false, timeoutMs = 60_000, readWith = read): Promise<Operation> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await app.services.yieldRunner.runOnce();
        const operation = await readWith(walletId, id);
        if (!['pending', 'submitted'].includes(operation.status) || until(operation)) return operation;
        if (Date.now() > deadline) throw new Error(`operation still ${operation.status}: ${JSON.stringify(operation)}`);
        await new Promise((r) => setTimeout(r, 150));
      }
    }

    const erc20 = (token: Address, owner: Address) => pub.readContract({ address: token, abi: ERC20_ABI, functionName: 'balanceOf', args: [owner] });
    const allowance = (owner: Address, spender: Address) => pub.readContract({ address: d().pool.usdc, abi: ERC20_ABI, functionName: 'allowance', args: [owner, spender] });

    /** An approval of the pool for `amount`, signed by the service (sign-only) and sent directly; returns its nonce. */
    async function approvePoolDirectly(wallet: { id: string; address: Address }, amount: bigint): Promise<number> {
      const nonce = await pub.getTransactionCount({ address: wallet.address });
      const fees = await pub.estimateFeesPerGas();
      const approveData = `0x095ea7b3${d().pool.poolAddress.slice(2).toLowerCase().padStart(64, '0')}${amount.toString(16).padStart(64, '0')}` as Hex;
      const signed = await app.request('POST', `/v1/wallets/${wallet.id}/sign-transaction`, {
        key,
        body: { transaction: { to: d().pool.usdc, value: '0', data: approveData, chainId: 84532, type: 2, nonce, gasLimit: '100000', maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() } },
      });
      expect(signed.status, JSON.stringify(signed.body)).toBe(200);
      await pub.waitForTransactionReceipt({ hash: await pub.sendRawTransaction({ serializedTransaction: (signed.body as { signedTransaction: Hex }).signedTransaction }) });
      expect(await allowance(wallet.address, d().pool.poolAddress)).toBe(amount);
      return nonce;
    }

    it('skips the approval when the allowance already covers the amount', async () => {
      const wallet = await fundedWallet();
      const nonce = await approvePoolDirectly(wallet, 50n * USDC);

      const created = await post(wallet.id, 'deposits', { marketId: POOL, amount: '12.5' }, `skip-${wallet.id}`);
      const done = await drive(wallet.id, created.id);
      expect(done.status, JSON.stringify(done)).toBe('confirmed');
      expect(done.transactions.map((t) => [t.phase, t.nonce])).toEqual([['action', nonce + 1]]);
      expect(await allowance(wallet.address, d().pool.poolAddress)).toBe(50n * USDC - 12_500_000n);
    });

    it('asks a failing simulation once more before it pauses anything (a node may answer one call from the next block)', async () => {
      const wallet = await fundedWallet();
      await approvePoolDirectly(wallet, 5n * USDC);
      // The next supply simulation for this wallet answers Panic(0x11), as anvil did while producing a block.
      const supplySelector = encodeFunctionData({ abi: AAVE_POOL_ABI, functionName: 'supply', args: [d().pool.usdc, 1n, wallet.address, 0] }).slice(2, 10);
      const mode = { revertCalls: 1, containing: supplySelector };
      proxy.setMode(mode);
      try {
        const created = await post(wallet.id, 'deposits', { marketId: POOL, amount: '5' }, `retry-${wallet.id}`);
        const done = await drive(wallet.id, created.id);
        expect(mode.revertCalls).toBe(0);
        expect(done.status, JSON.stringify(done)).toBe('confirmed');
        expect(done.transactions.map((t) => t.phase)).toEqual(['action']);
      } finally {
        proxy.setMode('pass');
      }
    });

    it('pauses at the supply cap with the approval confirmed, and resumes with the same approval once the cap allows it', async () => {
      const wallet = await fundedWallet();
      const supplied = await pub.readContract({ address: d().pool.aToken, abi: ERC20_ABI, functionName: 'totalSupply' });
      await setSupplyCap(devnets.evmRpcUrl, d(), supplied / USDC + 1n);
      try {
        const created = await post(wallet.id, 'deposits', { marketId: POOL, amount: '10' }, `cap-${wallet.id}`);
        const paused = await drive(wallet.id, created.id);
        expect(paused.status, JSON.stringify(paused)).toBe('requires_action');
        expect(paused.error?.code).toBe('AAVE_SUPPLY_CAP_EXCEEDED');
        expect(paused.transactions.map((t) => [t.phase, t.status])).toEqual([['approval', 'confirmed']]);
        expect(await allowance(wallet.address, d().pool.poolAddress)).toBe(10n * USDC);
        expect(await erc20(d().pool.aToken, wallet.address)).toBe(0n);
        // The same request while the cap still binds: paused again, nothing signed.
        const retried = await app.request('POST', `/v1/wallets/${wallet.id}/yield/deposits`, { key, body: { marketId: POOL, amount: '10.0' }, headers: { 'idempotency-key': `cap-${wallet.id}` } });
        expect(retried.status).toBe(202);
        expect((await drive(wallet.id, created.id)).error?.code).toBe('AAVE_SUPPLY_CAP_EXCEEDED');

        await setSupplyCap(devnets.evmRpcUrl, d(), 0);
        const resumed = await app.request('POST', `/v1/wallets/${wallet.id}/yield/deposits`, { key, body: { marketId: POOL, amount: '10' }, headers: { 'idempotency-key': `cap-${wallet.id}` } });
        expect(resumed.status, JSON.stringify(resumed.body)).toBe(202);
        expect((resumed.body as Operation).status).toBe('pending');
        const done = await drive(wallet.id, created.id);
        expect(done.status, JSON.stringify(done)).toBe('confirmed');
        expect(done.transactions.map((t) => t.phase)).toEqual(['approval', 'action']);
        expect(done.transactions[0]!.transactionId).toBe(paused.transactions[0]!.transactionId);
        expect(await erc20(d().pool.aToken, wallet.address)).toBeGreaterThanOrEqual(10n * USDC);
      } finally {
        await setSupplyCap(devnets.evmRpcUrl, d(), 0);
      }
    });

    it('never deposits into the vault at a share price beyond the bound captured at preparation', async () => {
      const wallet = await fundedWallet();
      const created = await post(wallet.id, 'deposits', { marketId: VAULT, amount: '10' }, `bound-${wallet.id}`);
      // Preparation: the bound is captured and the approval signed.
      const prepared = await drive(wallet.id, created.id, (op) => op.transactions.length > 0);
      expect(prepared.transactions.map((t) => t.phase)).toEqual(['approval']);
      const totalAssets = await pub.readContract({ address: d().vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'totalAssets' });
      await moveVaultSharePrice(devnets.evmRpcUrl, d(), totalAssets / 1000n + USDC); // +0.1 % and more
      const paused = await drive(wallet.id, created.id);
      expect(paused.status, JSON.stringify(paused)).toBe('requires_action');
      expect(paused.error?.code).toBe('SIGNING_REQUIRES_ACTION');
      expect(paused.error?.message).toMatch(/0\.03 %/);
      expect(paused.transactions.map((t) => [t.phase, t.status])).toEqual([['approval', 'confirmed']]);
      expect(await pub.readContract({ address: d().vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'balanceOf', args: [wallet.address] })).toBe(0n);
      // The bound never moves: retrying pauses again; the way out is cancel and a new key.
      await app.request('POST', `/v1/wallets/${wallet.id}/yield/deposits`, { key, body: { marketId: VAULT, amount: '10' }, headers: { 'idempotency-key': `bound-${wallet.id}` } });
      expect((await drive(wallet.id, created.id)).status).toBe('requires_action');
      const cancelled = await app.request('POST', `/v1/wallets/${wallet.id}/yield/operations/${created.id}/cancel`, { key });
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      expect((cancelled.body as Operation).status).toBe('cancelled');
      expect(await pub.readContract({ address: d().vault.usdc, abi: ERC20_ABI, functionName: 'allowance', args: [wallet.address, d().vault.bundler] })).toBe(10n * USDC);
      const fresh = await post(wallet.id, 'deposits', { marketId: VAULT, amount: '10' }, `bound-new-${wallet.id}`);
      const done = await drive(wallet.id, fresh.id);
      expect(done.status, JSON.stringify(done)).toBe('confirmed');
      expect(done.transactions.map((t) => t.phase)).toEqual(['action']);
    });

    it('prepares the action while the approval confirms and simulates it again before signing: a cap reached meanwhile pauses it and gives its nonce back', async () => {
      const wallet = await fundedWallet();
      const prepared = async () => (await app.database.query<{ plan: { prepared?: { phase: string; nonce: number } } }>('SELECT plan FROM yield_operations WHERE id = $1', [created.id]))[0]!.plan.prepared;
      // 3-second blocks: the approval's two confirmations take long enough to see what happens in between.
      await pub.request({ method: 'evm_setIntervalMining' as never, params: [3] as never });
      const created = await post(wallet.id, 'deposits', { marketId: POOL, amount: '10' }, `ahead-${wallet.id}`);
      try {
        const deadline = Date.now() + 30_000;
        while ((await prepared())?.phase !== 'action') {
          if (Date.now() > deadline) throw new Error('the action was never prepared ahead');
          await app.services.yieldRunner.runOnce();
          await new Promise((r) => setTimeout(r, 150));
        }
        // Prepared with the nonce after the approval's, nothing signed, the approval still waiting for its confirmations.
        expect(await prepared()).toMatchObject({ phase: 'action', nonce: 1 });
        const waiting = await read(wallet.id, created.id);
        expect(waiting.transactions.map((t) => [t.phase, t.status, t.nonce])).toEqual([['approval', 'submitted', 0]]);
        const supplied = await pub.readContract({ address: d().pool.aToken, abi: ERC20_ABI, functionName: 'totalSupply' });
        await setSupplyCap(devnets.evmRpcUrl, d(), supplied / USDC + 1n);
      } finally {
        await pub.request({ method: 'evm_setIntervalMining' as never, params: [1] as never });
      }
      try {
        const paused = await drive(wallet.id, created.id);
        expect(paused.status, JSON.stringify(paused)).toBe('requires_action');
        expect(paused.error?.code).toBe('AAVE_SUPPLY_CAP_EXCEEDED');
        expect(paused.transactions.map((t) => [t.phase, t.status])).toEqual([['approval', 'confirmed']]);
        expect(await prepared()).toBeUndefined();
        expect(await pub.getTransactionCount({ address: wallet.address })).toBe(1);
      } finally {
        await setSupplyCap(devnets.evmRpcUrl, d(), 0);
      }
      // The nonce given back is the one the resumed request signs its action with.
      await app.request('POST', `/v1/wallets/${wallet.id}/yield/deposits`, { key, body: { marketId: POOL, amount: '10' }, headers: { 'idempotency-key': `ahead-${wallet.id}` } });
      const done = await drive(wallet.id, created.id);
      expect(done.status, JSON.stringify(done)).toBe('confirmed');
      expect(done.transactions.map((t) => [t.phase, t.nonce])).toEqual([
        ['approval', 0],
        ['action', 1],
      ]);
    });

    it('a run held up by one slow operation gives each of its other operations back as soon as that one is advanced', async () => {
      const quick = await fundedWallet();
      const slow = await fundedWallet();
      const quickOp = await post(quick.id, 'deposits', { marketId: POOL, amount: '5' }, `quick-${quick.id}`);
      const slowOp = await post(slow.id, 'deposits', { marketId: POOL, amount: '5' }, `slow-${slow.id}`);
      const leaseOwner = async (id: string) => (await app.database.query<{ lease_owner: string | null }>('SELECT lease_owner FROM yield_operations WHERE id = $1', [id]))[0]!.lease_owner;
      // Every RPC request naming the slow wallet waits 1.5 s (within the 2 s time-out, or beyond it on a
      // loaded machine: either way its step takes seconds).
      proxy.setMode({ delayMs: 1_500, containing: slow.address.slice(2) });
      try {
        let held = true;
        const first = app.services.yieldRunner.runOnce().finally(() => (held = false));
        await new Promise((r) => setTimeout(r, 300)); // the first run has leased both
        // The worker's other runs meanwhile: the quick operation is due again a second after its approval was sent.
        while (held) {
          await app.services.yieldRunner.runOnce();
          await new Promise((r) => setTimeout(r, 100));
        }
        expect((await first).leased).toBe(2);
      } finally {
        proxy.setMode('pass');
      }
      // Another run took it up and gave it back; a run that skipped it (still "in flight") would hold its lease for 15 s.
      expect(await leaseOwner(quickOp.id)).toBeNull();
      expect((await read(quick.id, quickOp.id)).transactions[0]?.phase).toBe('approval');
      for (const [wallet, operation] of [[quick, quickOp], [slow, slowOp]] as const) expect((await drive(wallet.id, operation.id)).status).toBe('confirmed');
    });

    it('pauses a withdrawal that cannot execute for lack of liquidity, never withdrawing part of it', async () => {
      const wallet = await fundedWallet();
      for (const [market, idempotencyKey] of [[POOL, `liq-pool-dep-${wallet.id}`], [VAULT, `liq-vault-dep-${wallet.id}`]] as const) {
        const deposit = await post(wallet.id, 'deposits', { marketId: market, amount: '20' }, idempotencyKey);
        expect((await drive(wallet.id, deposit.id)).status).toBe('confirmed');
      }
      const usdcBefore = await erc20(d().pool.usdc, wallet.address);

      const poolShortage = await createLiquidityShortage(devnets.evmRpcUrl, d(), { leaveBaseUnits: 5n * USDC });
      const poolOut = await post(wallet.id, 'withdrawals', { marketId: POOL, amount: 'all' }, `liq-pool-${wallet.id}`);
      const poolPaused = await drive(wallet.id, poolOut.id);
      expect(poolPaused.status, JSON.stringify(poolPaused)).toBe('requires_action');
      expect(poolPaused.error?.code).toBe('SIGNING_REQUIRES_ACTION');
      expect(poolPaused.transactions).toEqual([]);
      await endLiquidityShortage(devnets.evmRpcUrl, d(), poolShortage);

      const vaultShortage = await createVaultLiquidityShortage(devnets.evmRpcUrl, d(), { leaveBaseUnits: 5n * USDC });
      const vaultOut = await post(wallet.id, 'withdrawals', { marketId: VAULT, amount: 'all' }, `liq-vault-${wallet.id}`);
      const vaultPaused = await drive(wallet.id, vaultOut.id);
      expect(vaultPaused.status, JSON.stringify(vaultPaused)).toBe('requires_action');
      expect(vaultPaused.error?.code).toBe('SIGNING_REQUIRES_ACTION');
      expect(vaultPaused.transactions).toEqual([]);
      expect(await erc20(d().pool.usdc, wallet.address)).toBe(usdcBefore);
      await endVaultLiquidityShortage(devnets.evmRpcUrl, d(), vaultShortage);

      // Liquidity back: the same requests resume and withdraw everything.
      for (const [operation, idempotencyKey, market] of [[poolOut, `liq-pool-${wallet.id}`, POOL], [vaultOut, `liq-vault-${wallet.id}`, VAULT]] as const) {
        const resumed = await app.request('POST', `/v1/wallets/${wallet.id}/yield/withdrawals`, { key, body: { marketId: market, amount: 'all' }, headers: { 'idempotency-key': idempotencyKey } });
        expect(resumed.status, JSON.stringify(resumed.body)).toBe(202);
        expect((await drive(wallet.id, operation.id)).status).toBe('confirmed');
      }
      expect(await erc20(d().pool.aToken, wallet.address)).toBe(0n);
      expect(await pub.readContract({ address: d().vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'balanceOf', args: [wallet.address] })).toBe(0n);
      expect(await erc20(d().pool.usdc, wallet.address)).toBeGreaterThanOrEqual(usdcBefore + 40n * USDC - 1n);
    });

    it('signs every step through the policy stage: a denied supply fails the operation with POLICY_DENIED and gives its nonce back', async () => {
      const project = await policyProject(app);
      const wallet = (await project.wallet('EVM')) as { id: string; address: Address };
      for (const [token, amount] of [['native', '1'], ['usdc', '50']] as const) {
        expect((await project.post('/v1/local/faucet', { walletId: wallet.id, amount, token })).status).toBe(200);
      }
      await project.apply(guardrail('no-pool-supply', 'EVM', [{ id: 'no-supply', effect: 'deny', actions: ['supply'], condition: { fact: 'request.to', op: 'eq', value: d().pool.poolAddress.toLowerCase() } }]));
      const headers = (idempotencyKey: string) => ({ 'idempotency-key': idempotencyKey });
      const denied = await project.post(`/v1/wallets/${wallet.id}/yield/deposits`, { marketId: POOL, amount: '10' }, headers(`denied-${wallet.id}`));
      expect(denied.status).toBe(202);
      const readOwn = async (walletId: string, id: string) => (await project.get(`/v1/wallets/${walletId}/yield/operations/${id}`)).body as Operation;
      const failed = await drive(wallet.id, denied.body.id, () => false, 60_000, readOwn);
      expect(failed.status, JSON.stringify(failed)).toBe('failed');
      expect(failed.error?.code).toBe('POLICY_DENIED');
      expect(failed.error?.message).toContain('no-supply');
      // The approval passed the policy stage (approve is not denied) and stays.
      expect(failed.transactions.map((t) => [t.phase, t.status, t.nonce])).toEqual([['approval', 'confirmed', 0]]);

      await project.deactivate('no-pool-supply');
      const next = await project.post(`/v1/wallets/${wallet.id}/yield/deposits`, { marketId: POOL, amount: '10' }, headers(`allowed-${wallet.id}`));
      const done = await drive(wallet.id, next.body.id, () => false, 60_000, readOwn);
      expect(done.status, JSON.stringify(done)).toBe('confirmed');
      // The denied supply's nonce (1) is the next one handed out; the allowance of the first approval covers it.
      expect(done.transactions.map((t) => [t.phase, t.nonce])).toEqual([['action', 1]]);
    });

    it('pauses a step that needs approval with POLICY_REVIEW_REQUIRED and its reviewId; after the approval the same request signs the prepared transaction, same nonce', async () => {
      const review = guardrail('yield-review', 'EVM', [
        {
          id: 'supply-review',
          effect: 'require_approval',
          actions: ['supply'],
          approvalRequirement: { id: 'yield-review', stages: [{ id: 'finance', eligibility: { roles: ['finance'] }, requiredApprovals: 1 }] },
        },
      ]);
      const project = await approvalsProject(app, { policy: review });
      const wallet = project.wallet as { id: string; address: Address };
      for (const [token, amount] of [['native', '1'], ['usdc', '50']] as const) {
        expect((await project.post('/v1/local/faucet', { walletId: wallet.id, amount, token })).status).toBe(200);
      }
      const finance = await project.member(['finance']);
      const body = { marketId: POOL, amount: '10' };
      const headers = { 'idempotency-key': `review-${wallet.id}` };
      const created = await project.post(`/v1/wallets/${wallet.id}/yield/deposits`, body, headers);
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      const readOwn = async (walletId: string, id: string) => (await project.get(`/v1/wallets/${walletId}/yield/operations/${id}`)).body as Operation;
      const paused = await drive(wallet.id, created.body.id, () => false, 60_000, readOwn);
      expect(paused.status, JSON.stringify(paused)).toBe('requires_action');
      expect(paused.error).toMatchObject({ code: 'POLICY_REVIEW_REQUIRED', reviewId: expect.any(String) });
      expect(paused.transactions.map((t) => [t.phase, t.status, t.nonce])).toEqual([['approval', 'confirmed', 0]]);
      const reviewId = paused.error!.reviewId!;
      expect((await project.getCase(reviewId)).body).toMatchObject({ status: 'pending', walletId: wallet.id });

      // Resent before the approval: paused again on the same case, nothing signed.
      expect((await project.post(`/v1/wallets/${wallet.id}/yield/deposits`, body, headers)).status).toBe(202);
      expect((await drive(wallet.id, created.body.id, () => false, 60_000, readOwn)).error).toMatchObject({ code: 'POLICY_REVIEW_REQUIRED', reviewId });

      expect(await decide(app, 'approve', reviewId, finance)).toMatchObject({ ok: true, body: { status: 'completed' } });
      expect((await project.post(`/v1/wallets/${wallet.id}/yield/deposits`, body, headers)).status).toBe(202);
      const done = await drive(wallet.id, created.body.id, () => false, 60_000, readOwn);
      expect(done.status, JSON.stringify(done)).toBe('confirmed');
      // The action prepared before the review is the one signed: nonce 1, right after the approval.
      expect(done.transactions.map((t) => [t.phase, t.nonce])).toEqual([
        ['approval', 0],
        ['action', 1],
      ]);
      expect((await project.getCase(reviewId)).body.status).toBe('consumed');
    });

    it('fails with NONCE_CONSUMED when another transaction takes the saved nonce of a signed step', async () => {
      const wallet = await fundedWallet();
      proxy.setMode({ failMethods: ['eth_sendRawTransaction'] });
      let consumedBy: Hex;
      let created: Operation;
      try {
        created = await post(wallet.id, 'deposits', { marketId: POOL, amount: '5' }, `nonce-${wallet.id}`);
        // The approval is signed and stored, but no node got it (the send's outcome is unknown).
        const signed = await drive(wallet.id, created.id, (op) => op.transactions.length > 0);
        expect(signed.status).toBe('submitted');
        expect(signed.transactions.map((t) => [t.phase, t.status])).toEqual([['approval', 'signed']]);
        // Another transaction with the same nonce, signed by the service (sign-only) and sent around the proxy.
        const fees = await pub.estimateFeesPerGas();
        const other = await app.request('POST', `/v1/wallets/${wallet.id}/sign-transaction`, {
          key,
          body: { transaction: { to: wallet.address, value: '0', chainId: 84532, type: 2, nonce: signed.transactions[0]!.nonce, gasLimit: '21000', maxFeePerGas: fees.maxFeePerGas.toString(), maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString() } },
        });
        expect(other.status, JSON.stringify(other.body)).toBe(200);
        consumedBy = await pub.sendRawTransaction({ serializedTransaction: (other.body as { signedTransaction: Hex }).signedTransaction });
        await pub.waitForTransactionReceipt({ hash: consumedBy });
      } finally {
        proxy.setMode('pass');
      }
      // The worker re-sends the stored bytes (the node now knows the nonce as used); the monitor sees the nonce final without a receipt.
      const failed = await drive(wallet.id, created.id);
      expect(failed.status, JSON.stringify(failed)).toBe('failed');
      expect(failed.error?.code).toBe('NONCE_CONSUMED');
      expect(failed.transactions.map((t) => [t.phase, t.status])).toEqual([['approval', 'failed']]);
      expect(await pub.getTransactionReceipt({ hash: failed.transactions[0]!.hash as Hex }).catch(() => null)).toBeNull();
      expect((await pub.getTransaction({ hash: consumedBy })).nonce).toBe(failed.transactions[0]!.nonce);
    });

    it('signs nothing when the lease ran out before the signature (a stalled process): the next run signs the prepared transaction', async () => {
      const wallet = await fundedWallet();
      const created = await post(wallet.id, 'deposits', { marketId: POOL, amount: '5' }, `stalled-${wallet.id}`);
      // The gas estimate for this wallet's approval takes a second; meanwhile the lease (15 s) runs out.
      proxy.setMode({ delayMs: 1_000, methods: ['eth_estimateGas'], containing: wallet.address.slice(2) });
      try {
        const run = app.services.yieldRunner.runOnce();
        await new Promise((r) => setTimeout(r, 300));
        clock.advance(60_000);
        expect((await run).leased).toBe(1);
      } finally {
        proxy.setMode('pass');
      }
      const stalled = await read(wallet.id, created.id);
      expect(stalled.transactions).toEqual([]);
      expect(await pub.getTransactionCount({ address: wallet.address, blockTag: 'pending' })).toBe(0);
      const done = await drive(wallet.id, created.id);
      expect(done.status, JSON.stringify(done)).toBe('confirmed');
      expect(done.transactions.map((t) => [t.phase, t.nonce])).toEqual([
        ['approval', 0],
        ['action', 1],
      ]);
    });
  });
});
