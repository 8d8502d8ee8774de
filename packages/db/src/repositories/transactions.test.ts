import { randomUUID } from 'node:crypto';
import type { NewTransactionRecord } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createTransactionStore } from './transactions.ts';

function newRecord(overrides: Partial<NewTransactionRecord> = {}): NewTransactionRecord {
  return {
    id: randomUUID(),
    projectId: randomUUID(),
    partnerId: randomUUID(),
    walletId: randomUUID(),
    walletType: 'EVM',
    intentKind: 'transfer',
    status: 'submitted',
    chainId: '84532',
    network: null,
    fromAddress: '0x0000000000000000000000000000000000000001',
    to: '0x0000000000000000000000000000000000000002',
    value: '1',
    tokenAddress: null,
    nonce: 0,
    hash: `0x${randomUUID().replaceAll('-', '')}`,
    recentBlockhash: null,
    lastValidBlockHeight: null,
    nonceAccount: null,
    failureStage: null,
    failureCode: null,
    failureMessage: null,
    monitoring: null,
    cancellationOf: null,
    requestId: null,
    apiKeyId: null,
    submittedAt: new Date(),
    nextCheckAt: new Date(0),
    ...overrides,
  };
}

describe.each(testDatabaseKinds)('transaction store (%s)', (kind) => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database.close();
  });

  it('hands out consecutive nonces to 20 concurrent allocations, never the same one twice', async () => {
    const store = createTransactionStore(database);
    const walletId = randomUUID();
    const nonces = await Promise.all(Array.from({ length: 20 }, () => store.allocateNonce(walletId, '84532', 0)));
    expect([...nonces].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Another chain has its own sequence; a chain ahead of the counter moves it forward.
    expect(await store.allocateNonce(walletId, '1', 0)).toBe(0);
    expect(await store.allocateNonce(walletId, '84532', 30)).toBe(30);
    expect(await store.allocateNonce(walletId, '84532', 0)).toBe(31);
  });

  it('reuses a released nonce before a new one, and drops released nonces the chain has passed', async () => {
    const store = createTransactionStore(database);
    const walletId = randomUUID();
    for (let i = 0; i < 5; i++) await store.allocateNonce(walletId, '84532', 0);
    await store.releaseNonce(walletId, '84532', 3);
    await store.releaseNonce(walletId, '84532', 1);
    expect(await store.allocateNonce(walletId, '84532', 2)).toBe(3); // 1 is below the chain's pending nonce
    expect(await store.allocateNonce(walletId, '84532', 2)).toBe(5);
    expect(await store.allocateNonce(walletId, '84532', 0)).toBe(6); // 1 was dropped as stale
  });

  it('lists newest first with keyset pages, filters, and scopes lookups to project and wallet', async () => {
    const store = createTransactionStore(database);
    const projectId = randomUUID();
    const walletId = randomUUID();
    const base = Date.UTC(2026, 0, 1);
    const created = [];
    for (let i = 0; i < 7; i++) {
      created.push(
        await store.create(
          newRecord({ projectId, walletId, status: i % 2 ? 'confirmed' : 'submitted', intentKind: i % 3 ? 'transfer' : 'sign_transaction', createdAt: new Date(base + i * 1000) }),
          [],
        ),
      );
    }
    const page1 = await store.list({ projectId, walletId, limit: 3 });
    const last = page1.at(-1)!;
    const page2 = await store.list({ projectId, walletId, limit: 10, after: { createdAt: last.createdAt, id: last.id } });
    expect([...page1, ...page2].map((r) => r.id)).toEqual(created.map((r) => r.id).reverse());
    const confirmed = await store.list({ projectId, walletId, limit: 10, status: 'confirmed' });
    expect(confirmed.map((r) => r.id)).toEqual([created[5]!.id, created[3]!.id, created[1]!.id]);
    const signTx = await store.list({ projectId, walletId, limit: 10, intentKind: 'sign_transaction' });
    expect(signTx.map((r) => r.id)).toEqual([created[6]!.id, created[3]!.id, created[0]!.id]);
    expect(await store.findInWallet(projectId, walletId, created[0]!.id)).toMatchObject({ id: created[0]!.id });
    expect(await store.findInWallet(randomUUID(), walletId, created[0]!.id)).toBeNull();
    expect(await store.findInWallet(projectId, randomUUID(), created[0]!.id)).toBeNull();
  });

  it('writes the record and its events in one transaction', async () => {
    const store = createTransactionStore(database);
    const record = newRecord();
    const eventId = `evt_${randomUUID()}`;
    await store.create(record, [{ id: eventId, projectId: record.projectId, type: 'send.broadcasted', data: { txHash: record.hash } }]);
    // A second create with the same event id fails as a whole: no second record.
    const again = newRecord({ projectId: record.projectId });
    await expect(store.create(again, [{ id: eventId, projectId: record.projectId, type: 'x', data: {} }])).rejects.toThrow();
    expect(await store.findInWallet(again.projectId, again.walletId, again.id)).toBeNull();
    const updated = await store.update(record.id, { status: 'confirmed', blockNumber: 12n, blockHash: '0xabc', resolvedAt: new Date(), nextCheckAt: null }, []);
    expect(updated).toMatchObject({ status: 'confirmed', blockNumber: 12n, nextCheckAt: null });
  });

  it('leases each due record to one owner at a time, and only the owner can save its check', async () => {
    const store = createTransactionStore(database);
    // On PostgreSQL the pool runs these on separate connections, as separate worker processes would.
    const other = createTransactionStore(database);
    const now = new Date(Date.UTC(2030, 0, 1));
    const due = [];
    for (let i = 0; i < 40; i++) due.push(await store.create(newRecord({ nextCheckAt: new Date(now.getTime() - 1000 + i) }), []));
    await store.create(newRecord({ nextCheckAt: new Date(now.getTime() + 60_000) }), []); // not due yet
    const leaseUntil = new Date(now.getTime() + 30_000);
    const [a, b, c] = await Promise.all([
      store.leaseDue('worker-a', now, leaseUntil, 25),
      other.leaseDue('worker-b', now, leaseUntil, 25),
      store.leaseDue('worker-c', now, leaseUntil, 25),
    ]);
    const ids = [...a, ...b, ...c].map((r) => r.id);
    const dueIds = new Set(due.map((r) => r.id));
    const mine = ids.filter((id) => dueIds.has(id));
    expect(new Set(mine).size).toBe(mine.length); // never the same record twice
    expect(mine.length).toBe(40);
    const held = a.find((r) => dueIds.has(r.id))!;
    // The lease is live: nobody else gets it, and a non-owner cannot save a check on it.
    expect((await other.leaseDue('worker-d', now, leaseUntil, 1000)).map((r) => r.id)).not.toContain(held.id);
    expect(await other.completeCheck('worker-d', held.id, { status: 'confirmed' }, [])).toBeNull();
    expect(await store.reschedule('worker-d', [{ id: held.id, nextCheckAt: now, consecutiveErrors: 0, evidenceAt: null, monitoring: null }])).toBe(0);
    // The owner reschedules it; after that (and after an expired lease) it is due again.
    const next = new Date(now.getTime() + 5_000);
    expect(await store.reschedule('worker-a', [{ id: held.id, nextCheckAt: next, consecutiveErrors: 2, evidenceAt: now, monitoring: { state: 'active' } }])).toBe(1);
    const later = new Date(now.getTime() + 40_000);
    const again = await other.leaseDue('worker-e', later, new Date(later.getTime() + 30_000), 1000);
    const retaken = again.find((r) => r.id === held.id);
    expect(retaken).toMatchObject({ consecutiveErrors: 2, checkCount: 1, monitoring: { state: 'active' } });
    const done = await other.completeCheck('worker-e', held.id, { status: 'confirmed', nextCheckAt: null }, []);
    expect(done).toMatchObject({ status: 'confirmed', nextCheckAt: null, checkCount: 2 });
  });
});
