import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createTransactionStore } from './transactions.ts';
import { createYieldOperationStore } from './yield-operations.ts';

describe.each(testDatabaseKinds)('yield operation store (%s)', (kind) => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
  });
  afterAll(() => db?.close());

  /** An operation of `walletId` on chain 84532, paused (`requires_action`). */
  async function paused(walletId: string, partnerId: string) {
    const store = createYieldOperationStore(db);
    const now = new Date();
    const { operation } = await store.create(
      {
        id: randomUUID(),
        projectId: randomUUID(),
        partnerId,
        walletId,
        apiKeyId: null,
        environment: 'development',
        requestId: null,
        idempotencyKey: `key-${randomUUID()}`,
        chainId: 84532,
        marketId: 'poolprov-v3:84532:usdc',
        source: 'poolprov-v3',
        action: 'withdraw',
        amount: '1000.0',
      },
      now,
    );
    await db.prisma.yieldOperation.update({ where: { id: operation.id }, data: { status: 'requires_action', errorCode: 'SIGNING_REQUIRES_ACTION', nextRunAt: null } });
    return operation.id;
  }

  it('resumes only one of several paused operations of a wallet and chain retried at once', async () => {
    const store = createYieldOperationStore(db);
    for (let round = 0; round < 5; round++) {
      const walletId = randomUUID();
      const partnerId = randomUUID();
      const ids = await Promise.all([paused(walletId, partnerId), paused(walletId, partnerId), paused(walletId, partnerId)]);
      const outcomes = await Promise.all(ids.map((id) => store.resume(id, new Date())));
      expect(outcomes.map((o) => o.outcome).sort()).toEqual(['busy', 'busy', 'resumed']);
      // Another wallet's paused operation is independent.
      expect((await store.resume(await paused(randomUUID(), partnerId), new Date())).outcome).toBe('resumed');
    }
  });

  it("wakes the submitted operation following a record the monitor resolves, and no other", async () => {
    const transactions = createTransactionStore(db);
    const later = new Date(Date.now() + 3_600_000);
    const now = new Date();
    /** A `status` operation whose step follows a fresh submitted record, due only in an hour. */
    async function following(status: string) {
      const operationId = await paused(randomUUID(), randomUUID());
      const record = await transactions.create(transactionRecordFixture({ status: 'submitted', submittedAt: now, nextCheckAt: new Date(now.getTime() - 1) }), []);
      await db.query('INSERT INTO yield_operation_steps (operation_id, phase, transaction_id) VALUES ($1::uuid, $2, $3::uuid)', [operationId, 'action', record.id]);
      await db.prisma.yieldOperation.update({ where: { id: operationId }, data: { status, nextRunAt: later } });
      return { operationId, record };
    }
    const resolved = await following('submitted');
    const unresolved = await following('submitted');
    const notSubmitted = await following('requires_action');
    const owner = `owner-${randomUUID()}`;
    await db.query('UPDATE transaction_records SET lease_owner = $1, lease_until = $2 WHERE id = ANY($3::uuid[])', [owner, later, [resolved.record.id, notSubmitted.record.id, unresolved.record.id]]);
    const completion = (id: string) => ({
      id,
      status: 'confirmed' as const,
      blockNumber: 7n,
      blockHash: '0xabc',
      failureStage: null,
      failureCode: null,
      failureMessage: null,
      monitoring: null,
      submittedAt: now,
      resolvedAt: now,
      evidenceAt: now,
      evidenceBlock: null,
      nextCheckAt: null,
      consecutiveErrors: 0,
      events: [],
    });
    expect(await transactions.completeChecks(owner, [completion(resolved.record.id), completion(notSubmitted.record.id)])).toHaveLength(2);
    const nextRunAt = async (id: string) => (await db.prisma.yieldOperation.findUniqueOrThrow({ where: { id } })).nextRunAt!.getTime();
    expect(await nextRunAt(resolved.operationId)).toBeLessThan(later.getTime() - 60_000);
    expect(await nextRunAt(unresolved.operationId)).toBe(later.getTime());
    expect(await nextRunAt(notSubmitted.operationId)).toBe(later.getTime());
  });

  it('never holds two nonces for one operation, and renews only the leases its owner holds', async () => {
    const store = createYieldOperationStore(db);
    const walletId = randomUUID();
    const ids = [await paused(walletId, randomUUID()), await paused(randomUUID(), randomUUID())];
    await db.prisma.yieldOperation.updateMany({ where: { id: { in: ids } }, data: { status: 'pending', errorCode: null, nextRunAt: new Date(0) } });
    const now = new Date();
    const leased = (await store.leaseDue('owner-a', now, new Date(now.getTime() + 1_000), 10_000)).filter((o) => ids.includes(o.id));
    expect(leased.map((o) => o.id).sort()).toEqual([...ids].sort());
    const call = { phase: 'action' as const, signingAction: 'wallet.sign.yield.supply', to: '0x0000000000000000000000000000000000000001', data: '0x', gasLimit: '1', maxFeePerGas: '1', maxPriorityFeePerGas: '1' };
    // Two runs of one process (same owner) preparing the same step: one nonce, kept.
    const [first, second] = await Promise.all([store.prepare('owner-a', ids[0]!, {}, call, 5), store.prepare('owner-a', ids[0]!, {}, { ...call, gasLimit: '2' }, 5)]);
    expect(first!.nonce).toBe(5);
    expect(second).toEqual(first);
    expect(await store.prepare('owner-a', ids[0]!, {}, call, 5)).toEqual(first);

    const until = new Date(now.getTime() + 60_000);
    await db.query('UPDATE yield_operations SET lease_owner = $1 WHERE id = $2::uuid', ['owner-b', ids[1]]);
    await store.renewLeases('owner-a', ids, until);
    const leaseUntil = async (id: string) => (await db.prisma.yieldOperation.findUniqueOrThrow({ where: { id } })).leaseUntil!.getTime();
    expect(await leaseUntil(ids[0]!)).toBe(until.getTime());
    expect(await leaseUntil(ids[1]!)).toBeLessThan(until.getTime());
  });
  it('allocates and stores a nonce, and stores a signed step with its record, only while the owner holds the operation', async () => {
    const store = createYieldOperationStore(db);
    const transactions = createTransactionStore(db);
    const walletId = randomUUID();
    const id = await paused(walletId, randomUUID());
    await db.query(`UPDATE yield_operations SET status = 'pending', lease_owner = 'owner-a', lease_until = $2 WHERE id = $1::uuid`, [id, new Date(Date.now() + 60_000)]);
    const call = { phase: 'approval' as const, signingAction: 'wallet.sign.yield.approve', to: '0x0000000000000000000000000000000000000001', data: '0x', gasLimit: '1', maxFeePerGas: '1', maxPriorityFeePerGas: '1' };
    const { projectId } = await db.prisma.yieldOperation.findUniqueOrThrow({ where: { id } });
    const read = async () => (await store.findInWallet(projectId, walletId, id))!;
    const counter = async () => (await db.query<{ next: number }>('SELECT next_nonce AS next FROM nonce_counters WHERE wallet_id = $1::uuid', [walletId]))[0]?.next ?? null;

    // Another owner: nothing allocated, nothing stored.
    expect(await store.prepare('owner-b', id, { minShares: '7' }, call, 3)).toBeNull();
    expect(await counter()).toBeNull();
    const prepared = await store.prepare('owner-a', id, { minShares: '7' }, call, 3);
    expect(prepared).toEqual({ ...call, nonce: 3 });
    expect(await counter()).toBe(4);
    expect((await read()).plan).toEqual({ minShares: '7', prepared: { ...call, nonce: 3 } });

    const record = transactionRecordFixture({ walletId, intentKind: 'yield', status: 'pending', nonce: 3, monitoring: null, submittedAt: null, signedTransaction: '0x02ab' });
    const later = new Date(Date.now() + 5_000);
    expect(await store.addStep('owner-b', id, 'approval', record, later)).toBeNull();
    expect(await transactions.findInWallet(record.projectId, walletId, record.id)).toBeNull();
    const stored = await store.addStep('owner-a', id, 'approval', record, later);
    const { leaseOwner: _o, leaseUntil: _u, ...looked } = (await transactions.findInWallet(record.projectId, walletId, record.id)) as NonNullable<typeof stored> & { leaseOwner: unknown; leaseUntil: unknown };
    expect(stored).toEqual(looked);
    expect(stored).toMatchObject({ status: 'pending', nonce: 3, signedTransaction: '0x02ab', intentKind: 'yield' });
    const operation = await read();
    expect(operation).toMatchObject({ status: 'submitted', plan: { minShares: '7' } });
    expect(operation.steps).toEqual([expect.objectContaining({ phase: 'approval', transactionId: record.id, recordStatus: 'pending', nonce: 3 })]);
  });
});
