import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { consolePartner, graphql } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { trpcFailure } from '../testing/staff-client.ts';
import { startMonitorWorker } from '../workers/monitor-worker.ts';
import { startYieldWorker } from '../workers/yield-worker.ts';

const POOL = 'poolprov-v3:84532:usdc';
const VAULT = 'vaultprov-v2-base-sepolia-demo-usdc';
const FORBIDDEN = { status: 403, body: { code: 'FORBIDDEN', message: 'Support staff have read-only access' } };
const NOT_FOUND = { status: 404, body: { code: 'NOT_FOUND', message: 'Yield operation not found' } };
const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

type Partner = Awaited<ReturnType<typeof consolePartner>>;

let devnets: LocalDevnets;
beforeAll(async () => {
  devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, yieldMarkets: true });
});
afterAll(async () => {
  await devnets?.stop();
});

describe.concurrent.each(testDatabaseKinds)('console yield operations over tRPC and GraphQL on %s', (kind) => {
  // The two database kinds side by side (wallets of their own); each kind's tests in order.
  describe.sequential(`${kind}: one test at a time`, () => {
    let app: TestApp;
    let a: Partner;
    let b: Partner;
    let monitor: { stop(): Promise<void> };
    let walletId = '';
    /** A deposit the worker confirmed, and one left pending (the yield worker stopped before it). */
    const ops = { confirmed: '', pending: '' };

    const rest = (method: string, path: string, body?: unknown, idempotencyKey?: string) =>
      app.request(method, path, { key: a.key.apiKey, body, headers: idempotencyKey ? { 'idempotency-key': idempotencyKey } : {} });

    beforeAll(async () => {
      app = await startTestApp(kind, { chains: devnets });
      [a, b] = await Promise.all([consolePartner(app), consolePartner(app)]);
      monitor = startMonitorWorker({ monitor: app.services.monitor, logger: silent, idleMs: 100 });
      const yieldWorker = startYieldWorker({ runner: app.services.yieldRunner, logger: silent, idleMs: 100 });

      const wallet = await rest('POST', '/v1/wallets', { type: 'EVM', userIdentifier: `yield-${randomUUID()}`, userIdentifierType: 'CUSTOM_ID' });
      walletId = wallet.body.id;
      for (const [token, amount] of [['native', '1'], ['usdc', '100']]) expect((await rest('POST', '/v1/local/faucet', { walletId, amount, token })).status).toBe(200);

      const deposit = await rest('POST', `/v1/wallets/${walletId}/yield/deposits`, { marketId: POOL, amount: '10' }, `c-${walletId}`);
      expect(deposit.status, JSON.stringify(deposit.body)).toBe(202);
      ops.confirmed = deposit.body.id;
      for (const until = Date.now() + 60_000; ; await new Promise((r) => setTimeout(r, 250))) {
        const { body } = await rest('GET', `/v1/wallets/${walletId}/yield/operations/${ops.confirmed}`);
        if (body.status === 'confirmed') break;
        if (body.status !== 'pending' && body.status !== 'submitted') throw new Error(JSON.stringify(body));
        if (Date.now() > until) throw new Error('the deposit did not confirm');
      }
      await yieldWorker.stop();
      const pending = await rest('POST', `/v1/wallets/${walletId}/yield/deposits`, { marketId: VAULT, amount: '2.5' }, `p-${walletId}`);
      expect(pending.status).toBe(202);
      ops.pending = pending.body.id;
    });
    afterAll(async () => {
      await monitor?.stop();
      await app?.close();
    });

    it("reads a wallet's operations with their steps' records, the project list by status in pages, and positions per market; support may read, another partner may not", async () => {
      const confirmed = (await rest('GET', `/v1/wallets/${walletId}/yield/operations/${ops.confirmed}`)).body;
      const viewed = await a.support.yield.get.query({ operationId: ops.confirmed });
      expect(viewed).toEqual({ ...confirmed, projectId: a.key.projectId, cancellable: false });
      expect(viewed.transactions.map((t) => t.phase)).toEqual(['approval', 'action']);
      for (const step of viewed.transactions) {
        expect(await a.support.transactions.get.query({ transactionId: step.transactionId })).toMatchObject({ intentKind: 'yield', hash: step.hash, status: step.status, walletId });
      }

      const all = await a.support.yield.list.query({ projectId: a.key.projectId, walletId });
      expect(all.data.map((o) => [o.id, o.status, o.cancellable])).toEqual([[ops.pending, 'pending', true], [ops.confirmed, 'confirmed', false]]);
      expect((await a.support.yield.list.query({ projectId: a.key.projectId, status: 'confirmed' })).data.map((o) => o.id)).toEqual([ops.confirmed]);
      expect((await a.support.yield.list.query({ projectId: a.key.projectId, status: 'pending' })).data.map((o) => o.id)).toEqual([ops.pending]);
      expect((await a.support.yield.list.query({ projectId: a.key.projectId, status: 'failed' })).data).toEqual([]);
      const page1 = await a.support.yield.list.query({ projectId: a.key.projectId, limit: 1 });
      expect(page1.data.map((o) => o.id)).toEqual([ops.pending]);
      expect(await a.support.yield.list.query({ projectId: a.key.projectId, limit: 1, cursor: page1.nextCursor! })).toMatchObject({ data: [{ id: ops.confirmed }], nextCursor: null });

      const positions = await a.support.yield.positions.query({ walletId });
      expect(positions.map((p) => [p.market.id, p.error])).toEqual([[POOL, null], [VAULT, null]]);
      const pool = positions[0]!.position!;
      const restPool = (await rest('GET', `/v1/wallets/${walletId}/yield/position?marketId=${encodeURIComponent(POOL)}`)).body;
      expect(Object.keys(pool).sort()).toEqual(Object.keys(restPool).sort());
      expect(Number(pool.suppliedBalance)).toBeGreaterThanOrEqual(10);
      expect(positions[1]!.position).toMatchObject({ protocol: 'vaultprov-v2', suppliedBalance: '0.000000' });

      // Another partner: the operation, the wallet's list and its positions are the 404 of a missing one.
      expect(await trpcFailure(b.owner.yield.get.query({ operationId: ops.confirmed }))).toEqual(NOT_FOUND);
      expect(await trpcFailure(b.owner.yield.get.query({ operationId: randomUUID() }))).toEqual(NOT_FOUND);
      expect(await trpcFailure(b.owner.yield.get.query({ operationId: 'not-a-uuid' }))).toEqual(NOT_FOUND);
      expect(await trpcFailure(b.owner.yield.list.query({ projectId: a.key.projectId }))).toMatchObject({ status: 404, body: { message: 'Project not found' } });
      expect(await trpcFailure(b.owner.yield.positions.query({ walletId }))).toMatchObject({ status: 404, body: { message: 'Wallet not found' } });
      expect((await b.owner.yield.list.query({ projectId: b.key.projectId })).data).toEqual([]);
    });

    it('cancels unsigned work for owners and developers only, with the REST rule and messages, audited with the staff member', async () => {
      expect(await trpcFailure(a.support.yield.cancel.mutate({ operationId: ops.pending }))).toEqual(FORBIDDEN);
      expect(await trpcFailure(b.owner.yield.cancel.mutate({ operationId: ops.pending }))).toEqual(NOT_FOUND);
      expect((await a.support.yield.get.query({ operationId: ops.pending })).status).toBe('pending');

      const restRefusal = await rest('POST', `/v1/wallets/${walletId}/yield/operations/${ops.confirmed}/cancel`);
      expect(restRefusal.status).toBe(409);
      expect(await trpcFailure(a.developer.yield.cancel.mutate({ operationId: ops.confirmed }))).toEqual({ status: 409, body: restRefusal.body });

      const cancelled = await a.owner.yield.cancel.mutate({ operationId: ops.pending });
      expect(cancelled).toMatchObject({ id: ops.pending, status: 'cancelled', cancellable: false, transactions: [] });
      expect((await rest('GET', `/v1/wallets/${walletId}/yield/operations/${ops.pending}`)).body.status).toBe('cancelled');
      // Again: the cancelled operation, no second audit row.
      expect((await a.developer.yield.cancel.mutate({ operationId: ops.pending })).status).toBe('cancelled');
      const audit = await app.database.prisma.auditLog.findMany({ where: { action: 'yield_operation.cancel', walletId } });
      const owner = (await a.owner.auth.me.query())!.staffId;
      expect(audit.map((row) => [row.projectId, row.details])).toEqual([
        [a.key.projectId, { operationId: ops.pending, marketId: VAULT, action: 'deposit', amount: '2.5', previousStatus: 'pending', actor: { staffId: owner } }],
      ]);
      expect((await a.support.yield.list.query({ projectId: a.key.projectId, status: 'cancelled' })).data.map((o) => o.id)).toEqual([ops.pending]);
    });

    it("GraphQL: yieldOperation(id) with each step's record and wallet, a wallet's and the partner's operations by status; another partner's is NOT_FOUND", async () => {
      const query = `query($id: ID!) { yieldOperation(id: $id) { id projectId status amount cancellable error { code }
        transactions { phase transactionId status transaction { transactionId intentKind hash } } wallet { id yieldOperations(first: 5) { edges { node { id status } } } } } }`;
      const found = await graphql(app, a.cookies.support, query, { id: ops.confirmed });
      expect(found.body.errors).toBeUndefined();
      const operation = found.body.data.yieldOperation;
      expect(operation).toMatchObject({ id: ops.confirmed, projectId: a.key.projectId, status: 'confirmed', amount: '10.0', cancellable: false, error: null });
      expect(operation.transactions).toHaveLength(2);
      for (const step of operation.transactions) expect(step.transaction).toMatchObject({ transactionId: step.transactionId, intentKind: 'yield' });
      expect(operation.wallet.yieldOperations.edges.map((e: any) => e.node.id)).toEqual([ops.pending, ops.confirmed]);

      const byStatus = await graphql(app, a.cookies.support, `{ yieldOperations(status: "confirmed") { edges { node { id } } pageInfo { hasNextPage } } }`);
      expect(byStatus.body.data.yieldOperations).toEqual({ edges: [{ node: { id: ops.confirmed } }], pageInfo: { hasNextPage: false } });
      const paged = await graphql(app, a.cookies.support, `query($w: ID) { yieldOperations(walletId: $w, first: 1) { edges { node { id } } pageInfo { hasNextPage endCursor } } }`, { w: walletId });
      expect(paged.body.data.yieldOperations.pageInfo.hasNextPage).toBe(true);
      const next = await graphql(app, a.cookies.support, `query($c: String) { yieldOperations(first: 1, after: $c) { edges { node { id } } } }`, { c: paged.body.data.yieldOperations.pageInfo.endCursor });
      expect(next.body.data.yieldOperations.edges).toEqual([{ node: { id: ops.confirmed } }]);

      const foreign = await graphql(app, b.cookies.support, `{ yieldOperation(id: "${ops.confirmed}") { id } }`);
      expect(foreign.body.data).toBeNull();
      expect(foreign.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'NOT_FOUND', status: 404, message: 'Yield operation not found' } })]);
      expect((await graphql(app, b.cookies.support, `{ yieldOperation(id: "${randomUUID()}") { id } }`)).body).toEqual(foreign.body);
      expect((await graphql(app, b.cookies.support, `{ yieldOperations { edges { node { id } } } }`)).body.data.yieldOperations.edges).toEqual([]);
    });
  });
});
