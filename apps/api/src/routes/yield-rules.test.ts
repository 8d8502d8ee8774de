import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { startMonitorWorker } from '../workers/monitor-worker.ts';
import { startYieldWorker } from '../workers/yield-worker.ts';

/**
 * The yield rules that need the chain: cancellation of unsigned work (and only that), one active
 * operation per wallet and chain, the 409 on resuming while another is active, and the broadcast
 * block while a yield step is signed. The yield worker is started and stopped per step so that
 * "pending and never picked up" and "signed, not resolved yet" are states the test holds on purpose.
 */
const POOL = 'poolprov-v3:84532:usdc';
const CHAIN = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };
const TERMINAL = ['confirmed', 'failed', 'cancelled'];

let devnets: LocalDevnets;
beforeAll(async () => {
  devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, yieldMarkets: true });
});
afterAll(async () => {
  await devnets?.stop();
});

interface Step {
  phase: string;
  status: string;
  transactionId: string;
  hash: string;
  nonce: number;
  blockNumber?: number;
}
interface Operation {
  id: string;
  status: string;
  amount: string;
  transactions: Step[];
  error?: { code: string; message: string | null };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.concurrent.each(testDatabaseKinds)('yield rules on the devnet (%s)', (kind) => {
  // The two database kinds side by side (wallets of their own); each kind's tests in order.
  describe.sequential(`${kind}: one test at a time`, () => {
    let app: TestApp;
    let key: string;
    let monitor: { stop(): Promise<void> };
    let yieldWorker: { stop(): Promise<void> } | null = null;

    beforeAll(async () => {
      app = await startTestApp(kind, { chains: devnets });
      key = (await app.createKey()).apiKey;
      monitor = startMonitorWorker({ monitor: app.services.monitor, logger: silent, idleMs: 100 });
    });
    afterAll(async () => {
      await stopYieldWorker();
      await monitor?.stop();
      await app?.close();
    });

    const startYield = () => {
      yieldWorker ??= startYieldWorker({ runner: app.services.yieldRunner, logger: silent, idleMs: 100 });
    };
    async function stopYieldWorker() {
      const worker = yieldWorker;
      yieldWorker = null;
      await worker?.stop();
    }

    async function fundedWallet() {
      const wallet = (await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: `rules-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body as { id: string; address: string };
      for (const [token, amount] of [['native', '1'], ['usdc', '100']] as const) {
        const funded = await app.request('POST', '/v1/local/faucet', { key, body: { walletId: wallet.id, amount, token } });
        expect(funded.status, JSON.stringify(funded.body)).toBe(200);
      }
      return wallet;
    }

    const post = (walletId: string, action: 'deposits' | 'withdrawals', body: unknown, idempotencyKey: string) =>
      app.request('POST', `/v1/wallets/${walletId}/yield/${action}`, { key, body, headers: { 'idempotency-key': idempotencyKey } });
    const operationPath = (walletId: string, id: string) => `/v1/wallets/${walletId}/yield/operations/${id}`;
    async function read(walletId: string, id: string): Promise<Operation> {
      const response = await app.request('GET', operationPath(walletId, id), { key });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body as Operation;
    }
    const cancel = (walletId: string, id: string) => app.request('POST', `${operationPath(walletId, id)}/cancel`, { key });
    const transfer = (walletId: string) => app.request('POST', `/v1/wallets/${walletId}/transfer`, { key, body: { to: RECIPIENT, value: '1000', chainId: CHAIN } });
    const stepRows = async (operationId: string) =>
      Number((await app.database.query<{ n: string | number }>('SELECT count(*) AS n FROM yield_operation_steps WHERE operation_id = $1', [operationId]))[0]!.n);

    /** Polls until `done(operation)` holds. */
    async function until(walletId: string, id: string, done: (operation: Operation) => boolean, what: string, timeoutMs = 60_000): Promise<Operation> {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const operation = await read(walletId, id);
        if (done(operation)) return operation;
        if (Date.now() > deadline) throw new Error(`waiting for ${what}: ${JSON.stringify(operation)}`);
        await sleep(150);
      }
    }

    it('cancels unsigned work for good; refuses a signed or confirmed one; a signed step blocks transfers on the chain', async () => {
      await stopYieldWorker();
      const wallet = await fundedWallet();
      const body = { marketId: POOL, amount: '10' };

      // Pending and unsigned (no worker runs): cancelled, and cancelling again answers the same.
      const created = await post(wallet.id, 'deposits', body, `cancel-me-${wallet.id}`);
      expect([created.status, created.body.status]).toEqual([202, 'pending']);
      const id = created.body.id as string;
      const cancelled = await cancel(wallet.id, id);
      expect(cancelled.status, JSON.stringify(cancelled.body)).toBe(200);
      expect(cancelled.body).toMatchObject({ id, status: 'cancelled', transactions: [] });
      const again = await cancel(wallet.id, id);
      expect([again.status, again.body.status, again.body.id]).toEqual([200, 'cancelled', id]);
      // The same POST answers the cancelled operation (200, no Location) and does not restart it.
      const repeated = await post(wallet.id, 'deposits', { marketId: POOL, amount: '10.0' }, `cancel-me-${wallet.id}`);
      expect([repeated.status, repeated.body.id, repeated.body.status]).toEqual([200, id, 'cancelled']);
      expect(repeated.headers.get('location')).toBeNull();

      // A second deposit, then the worker: it runs the new one (so the worker is really working) and
      // never touches the cancelled one.
      const live = await post(wallet.id, 'deposits', body, `live-${wallet.id}`);
      expect(live.status).toBe(202);
      const liveId = live.body.id as string;
      startYield();
      const signed = await until(wallet.id, liveId, (o) => o.status === 'submitted' && o.transactions.some((t) => ['signed', 'submitted'].includes(t.status)), 'a signed step');
      await stopYieldWorker();
      expect(await read(wallet.id, id)).toMatchObject({ status: 'cancelled', transactions: [] });
      expect(await stepRows(id)).toBe(0);

      // Held in `submitted` (the worker is stopped, so it cannot move on): cancel 409, transfer 409.
      const held = await read(wallet.id, liveId);
      expect(held.status, JSON.stringify(held)).toBe('submitted');
      expect(held.transactions.length).toBeGreaterThanOrEqual(signed.transactions.length);
      const refused = await cancel(wallet.id, liveId);
      expect(refused.status, JSON.stringify(refused.body)).toBe(409);
      expect(refused.body.code).toBe('CONFLICT');
      // Refused because a step is signed and unresolved (not because the worker holds it this instant).
      expect(refused.body.message).toMatch(/signed transaction that is not resolved/);
      const records = await app.database.prisma.transactionRecord.count({ where: { walletId: wallet.id } });
      const blocked = await transfer(wallet.id);
      expect(blocked.status, JSON.stringify(blocked.body)).toBe(409);
      expect(blocked.body.code).toBe('YIELD_OPERATION_IN_PROGRESS');
      expect(await app.database.prisma.transactionRecord.count({ where: { walletId: wallet.id } })).toBe(records);
      expect((await read(wallet.id, liveId)).status).toBe('submitted');

      // Confirmed: cancel is 409 and the transfer goes through.
      startYield();
      const confirmed = await until(wallet.id, liveId, (o) => TERMINAL.includes(o.status), 'the deposit to finish');
      expect(confirmed.status, JSON.stringify(confirmed)).toBe('confirmed');
      const late = await cancel(wallet.id, liveId);
      expect([late.status, late.body.code]).toEqual([409, 'CONFLICT']);
      expect(late.body.message).toMatch(/is confirmed; only unsigned work can be cancelled/);
      expect((await read(wallet.id, liveId)).status).toBe('confirmed');
      const sent = await transfer(wallet.id);
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      // The transfer took the next nonce after the yield steps.
      const lastYieldNonce = Math.max(...confirmed.transactions.map((t) => t.nonce));
      const record = (await app.request('GET', `/v1/wallets/${wallet.id}/transactions/${sent.body.transactionId}`, { key })).body as { nonce: number };
      expect(record.nonce).toBe(lastYieldNonce + 1);
      // Still cancelled, still without steps after all that work on its wallet.
      expect(await read(wallet.id, id)).toMatchObject({ status: 'cancelled', transactions: [] });
      await stopYieldWorker();
    });

    it('runs one operation per wallet and chain at a time; resuming a paused one while another is active is 409', async () => {
      const wallet = await fundedWallet();

      // A withdrawal from an empty pool position fails its simulation: requires_action, nothing signed.
      startYield();
      const withdrawal = await post(wallet.id, 'withdrawals', { marketId: POOL, amount: '1000' }, `wd-${wallet.id}`);
      expect(withdrawal.status).toBe(202);
      const paused = await until(wallet.id, withdrawal.body.id, (o) => o.status !== 'pending', 'the withdrawal simulation');
      expect(paused, JSON.stringify(paused)).toMatchObject({ status: 'requires_action', transactions: [], error: { code: 'SIGNING_REQUIRES_ACTION' } });
      const same = await post(wallet.id, 'withdrawals', { marketId: POOL, amount: '1000.0' }, `wd-${wallet.id}`);
      await stopYieldWorker();
      // Retried while nothing else was active: resumed (202, pending again).
      expect([same.status, same.body.id], JSON.stringify(same.body)).toEqual([202, paused.id]);
      startYield();
      await until(wallet.id, paused.id, (o) => o.status === 'requires_action', 'the withdrawal to pause again');
      await stopYieldWorker();

      // Two deposits while the worker is stopped: both pending. Now resuming the withdrawal is 409.
      const first = await post(wallet.id, 'deposits', { marketId: POOL, amount: '10' }, `first-${wallet.id}`);
      const second = await post(wallet.id, 'deposits', { chainId: CHAIN, amount: '5' }, `second-${wallet.id}`);
      expect([first.status, second.status]).toEqual([202, 202]);
      const busy = await post(wallet.id, 'withdrawals', { marketId: POOL, amount: '1000' }, `wd-${wallet.id}`);
      expect(busy.status, JSON.stringify(busy.body)).toBe(409);
      expect(busy.body.code).toBe('YIELD_OPERATION_IN_PROGRESS');
      expect((await read(wallet.id, paused.id)).status).toBe('requires_action');

      // The worker runs them oldest first: while the first is not terminal, the second is pending
      // without steps (read the second, then the first: the second can only start after the first ended).
      startYield();
      let overlapSeen = false;
      for (const deadline = Date.now() + 90_000; ; ) {
        const b = await read(wallet.id, second.body.id);
        const a = await read(wallet.id, first.body.id);
        if (b.status !== 'pending' || b.transactions.length > 0) expect(TERMINAL, `second started while the first was ${a.status}`).toContain(a.status);
        if (!TERMINAL.includes(a.status) && a.transactions.length > 0) overlapSeen = true;
        if (TERMINAL.includes(b.status)) break;
        if (Date.now() > deadline) throw new Error(`deposits did not finish: ${JSON.stringify([a, b])}`);
        await sleep(150);
      }
      await stopYieldWorker();
      expect(overlapSeen, 'the first deposit was observed working while the second waited').toBe(true);
      const a = await read(wallet.id, first.body.id);
      const b = await read(wallet.id, second.body.id);
      expect([a.status, b.status], JSON.stringify([a, b])).toEqual(['confirmed', 'confirmed']);
      expect(a.transactions.map((t) => [t.phase, t.nonce])).toEqual([['approval', 0], ['action', 1]]);
      expect(b.transactions.map((t) => [t.phase, t.nonce])).toEqual([['approval', 2], ['action', 3]]);
      expect(b.transactions[0]!.blockNumber!).toBeGreaterThan(a.transactions.at(-1)!.blockNumber!);
    });
  });
});
