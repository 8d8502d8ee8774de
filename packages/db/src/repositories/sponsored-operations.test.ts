import { randomUUID } from 'node:crypto';
import type { NewTransactionRecord } from '@wallet/domain';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createSponsoredOperationStore } from './sponsored-operations.ts';
import { createTransactionStore } from './transactions.ts';

const LEASE = 60_000;

/** A sponsored record as admission writes it: accepted, due now. */
const sponsored = (overrides: Partial<NewTransactionRecord> = {}): NewTransactionRecord =>
  transactionRecordFixture({
    executionMode: 'sponsored',
    stage: 'accepted',
    status: 'pending',
    nonce: null,
    hash: null,
    submittedAt: null,
    monitoring: { sponsored: { environment: 'development', initiatorUserId: null } } as never,
    ...overrides,
  });

describe.each(testDatabaseKinds)('sponsored operation store (%s)', (kind) => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database.close();
  });

  it("signs one operation of a wallet and chain at a time, oldest first (they share the EntryPoint nonce); the monitor never leases them", async () => {
    const records = createTransactionStore(database);
    const store = createSponsoredOperationStore(database);
    const walletId = randomUUID();
    const now = new Date(Date.UTC(2032, 0, 1));
    const due = new Date(now.getTime() - 1);
    const older = await records.create(sponsored({ walletId, nextCheckAt: due, createdAt: new Date(now.getTime() - 2_000) }), []);
    const younger = await records.create(sponsored({ walletId, projectId: older.projectId, nextCheckAt: due, createdAt: new Date(now.getTime() - 1_000) }), []);
    const otherChain = await records.create(sponsored({ walletId, projectId: older.projectId, chainId: '8453', nextCheckAt: due }), []);
    const mine = (leased: { id: string }[]) => leased.map((r) => r.id).filter((id) => [older.id, younger.id, otherChain.id].includes(id)).sort();

    expect(mine(await records.leaseDue('monitor', now, new Date(now.getTime() + LEASE), 1000))).toEqual([]);
    // Two workers at once: the older one and the other chain's are leased, the younger waits.
    const [a, b] = await Promise.all([store.leaseDue('a', now, new Date(now.getTime() + LEASE), 1000), store.leaseDue('b', now, new Date(now.getTime() + LEASE), 1000)]);
    expect(mine([...a, ...b])).toEqual([older.id, otherChain.id].sort());
    const owner = a.some((r) => r.id === older.id) ? 'a' : 'b';

    // Signed and not yet included, the older one still holds the wallet's EntryPoint nonce.
    expect(await store.save('intruder', older.id, { stage: 'signed' }, [])).toBeNull();
    expect(await store.save(owner, older.id, { stage: 'signed', nextCheckAt: due }, [])).toMatchObject({ stage: 'signed' });
    const later = new Date(now.getTime() + 1);
    expect(mine(await store.leaseDue('c', later, new Date(later.getTime() + LEASE), 1000))).toEqual([older.id]);
    // Resolved (here failed before submission), it lets the next one go.
    expect(await store.save('c', older.id, { status: 'failed', resolvedAt: later, nextCheckAt: null }, [])).toMatchObject({ status: 'failed', nextCheckAt: null });
    expect(mine(await store.leaseDue('d', later, new Date(later.getTime() + LEASE), 1000))).toEqual([younger.id]);
  });

  it('leases among the given ids alone when asked (a wake-up), with the same due, lease and one-at-a-time rules', async () => {
    const records = createTransactionStore(database);
    const store = createSponsoredOperationStore(database);
    const now = new Date(Date.UTC(2032, 0, 3));
    const due = new Date(now.getTime() - 1);
    const until = new Date(now.getTime() + LEASE);
    const woken = await records.create(sponsored({ nextCheckAt: due }), []);
    const other = await records.create(sponsored({ nextCheckAt: due }), []);
    const notDue = await records.create(sponsored({ nextCheckAt: new Date(now.getTime() + 60_000) }), []);
    expect((await store.leaseDue('w', now, until, 10, [woken.id, notDue.id, 'not-a-uuid'])).map((r) => r.id)).toEqual([woken.id]);
    // Leased already: a second wake-up of it leases nothing.
    expect(await store.leaseDue('x', now, until, 10, [woken.id])).toEqual([]);
    expect(await store.leaseDue('x', now, until, 10, [])).toEqual([]);
    expect(await store.leaseDue('x', now, until, 10, ['not-a-uuid'])).toEqual([]);
    // The polls still find the rest.
    expect((await store.leaseDue('y', now, until, 1000)).map((r) => r.id)).toContain(other.id);
  });

  it('resumes only the record waiting for that review, clearing it; a save writes explicit nulls and leaves unset fields', async () => {
    const records = createTransactionStore(database);
    const store = createSponsoredOperationStore(database);
    const now = new Date(Date.UTC(2032, 0, 2));
    const record = await records.create(sponsored({ nextCheckAt: new Date(now.getTime() - 1) }), []);
    expect(await store.leaseDue('w', now, new Date(now.getTime() + LEASE), 1000)).toContainEqual(expect.objectContaining({ id: record.id }));
    const paused = await store.save('w', record.id, { stage: 'requires_action', reviewId: 'case-1', nextCheckAt: null }, []);
    expect(paused).toMatchObject({ stage: 'requires_action', reviewId: 'case-1', nextCheckAt: null, status: 'pending' });

    expect(await store.resume(record.projectId, record.walletId, record.id, 'case-2', now)).toBeNull();
    expect(await store.resume(randomUUID(), record.walletId, record.id, 'case-1', now)).toBeNull();
    const resumed = await store.resume(record.projectId, record.walletId, record.id, 'case-1', now);
    expect(resumed).toMatchObject({ stage: 'accepted', reviewId: null, nextCheckAt: now });
    expect(await store.resume(record.projectId, record.walletId, record.id, 'case-1', now)).toBeNull();
  });
});
