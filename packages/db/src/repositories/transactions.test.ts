import { randomUUID } from 'node:crypto';
import { NonceReservationLostError, type NewTransactionRecord } from '@wallet/domain';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createTransactionStore } from './transactions.ts';

const newRecord = transactionRecordFixture;

describe.each(testDatabaseKinds)('transaction store (%s)', (kind) => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database.close();
  });

  const LEASE = 60_000;

  it('hands out consecutive nonces to 20 concurrent allocations, never the same one twice', async () => {
    const store = createTransactionStore(database);
    const walletId = randomUUID();
    const allocate = async (chainId: string, pending: number) => (await store.allocateNonce(walletId, chainId, pending, LEASE)).nonce;
    const nonces = await Promise.all(Array.from({ length: 20 }, () => allocate('84532', 0)));
    expect([...nonces].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    // Another chain has its own sequence; a chain ahead of the counter moves it forward.
    expect(await allocate('1', 0)).toBe(0);
    expect(await allocate('84532', 30)).toBe(30);
    expect(await allocate('84532', 0)).toBe(31);
  });

  it('reuses a released nonce before a new one, and drops released nonces the chain has passed', async () => {
    const store = createTransactionStore(database);
    const walletId = randomUUID();
    const allocate = async (pending: number) => (await store.allocateNonce(walletId, '84532', pending, LEASE)).nonce;
    for (let i = 0; i < 5; i++) await allocate(0);
    await store.releaseNonce(walletId, '84532', 3);
    await store.releaseNonce(walletId, '84532', 1);
    expect(await allocate(2)).toBe(3); // 1 is below the chain's pending nonce
    expect(await allocate(2)).toBe(5);
    expect(await allocate(0)).toBe(6); // 1 was dropped as stale
  });

  it('hands a lapsed reservation out again before a new nonce; a live one stays its own', async () => {
    const store = createTransactionStore(database);
    const walletId = randomUUID();
    // Its process dies: no record ever takes it. The lease outlasts the next two statements on a loaded machine.
    const crashed = await store.allocateNonce(walletId, '84532', 0, 1_500);
    const live = await store.allocateNonce(walletId, '84532', 0, LEASE);
    expect([crashed.nonce, live.nonce]).toEqual([0, 1]);
    expect((await store.allocateNonce(walletId, '84532', 0, LEASE)).nonce).toBe(2);
    await new Promise((resolve) => setTimeout(resolve, 1_600));
    const retried = await store.allocateNonce(walletId, '84532', 0, LEASE);
    expect(retried.nonce).toBe(0);
    expect(retried.reservationId).not.toBe(crashed.reservationId);
    expect((await store.allocateNonce(walletId, '84532', 0, LEASE)).nonce).toBe(3);
    // The lapsed reservation can neither record nor release the nonce another request now holds.
    await expect(store.create(newRecord({ walletId, chainId: '84532', nonce: 0 }), [], crashed.reservationId)).rejects.toBeInstanceOf(NonceReservationLostError);
    await store.releaseNonce(walletId, '84532', 0, crashed.reservationId);
    expect((await store.allocateNonce(walletId, '84532', 0, LEASE)).nonce).toBe(4);
  });

  it('takes the nonce from its reservation in the record insert, and writes nothing once the reservation is gone', async () => {
    const store = createTransactionStore(database);
    const walletId = randomUUID();
    const first = await store.allocateNonce(walletId, '84532', 0, 50);
    const record = newRecord({ walletId, chainId: '84532', nonce: first.nonce });
    expect((await store.create(record, [], first.reservationId)).nonce).toBe(0);
    await new Promise((resolve) => setTimeout(resolve, 80));
    // The record holds 0: past its lease the nonce is not free again.
    expect((await store.allocateNonce(walletId, '84532', 0, LEASE)).nonce).toBe(1);
    // A reservation released (a policy refused the signature) is free at once; its holder can no longer record with it.
    const refused = await store.allocateNonce(walletId, '84532', 0, LEASE);
    await store.releaseNonce(walletId, '84532', refused.nonce, refused.reservationId);
    const orphan = newRecord({ walletId, chainId: '84532', nonce: refused.nonce });
    await expect(store.create(orphan, [], refused.reservationId)).rejects.toBeInstanceOf(NonceReservationLostError);
    expect(await store.findInWallet(orphan.projectId, walletId, orphan.id)).toBeNull();
    expect((await store.allocateNonce(walletId, '84532', 0, LEASE)).nonce).toBe(refused.nonce);
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
    // Only while the status is still the expected one (a monitor may have moved it meanwhile).
    const event = (type: string) => ({ id: `evt_${randomUUID()}`, projectId: record.projectId, type, data: { txHash: record.hash }, transactionId: record.id });
    const refusedEvent = event('send.failed');
    expect(await store.update(record.id, { status: 'failed' }, [refusedEvent], 'pending')).toBeNull();
    const confirmedEvent = event('send.confirmed');
    const updated = await store.update(record.id, { status: 'confirmed', blockNumber: 12n, blockHash: '0xabc', resolvedAt: new Date(), nextCheckAt: null }, [confirmedEvent], 'submitted');
    expect(updated).toMatchObject({ status: 'confirmed', blockNumber: 12n, nextCheckAt: null });
    const { leaseOwner: _o, leaseUntil: _u, ...looked } = (await store.findInWallet(record.projectId, record.walletId, record.id)) as NonNullable<typeof updated> & { leaseOwner: unknown; leaseUntil: unknown };
    expect(updated).toEqual(looked);
    // The events come with the update that applied, never with the one that did not.
    const written = await database.query<{ id: string; transaction_id: string }>('SELECT id, transaction_id FROM events WHERE id = ANY($1::text[])', [[refusedEvent.id, confirmedEvent.id]]);
    expect(written).toEqual([{ id: confirmedEvent.id, transaction_id: record.id }]);
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
    // Which worker gets which records is up to the race (one may get none); take one that was leased.
    const [owner, held] = ([['worker-a', a], ['worker-b', b], ['worker-c', c]] as const)
      .map(([name, leased]) => [name, leased.find((r) => dueIds.has(r.id))] as const)
      .find(([, record]) => record !== undefined) as readonly [string, (typeof a)[number]];
    // The lease is live: nobody else gets it, and a non-owner cannot save a check on it.
    expect((await other.leaseDue('worker-d', now, leaseUntil, 1000)).map((r) => r.id)).not.toContain(held.id);
    expect(await other.completeCheck('worker-d', held.id, { status: 'confirmed' }, [])).toBeNull();
    expect(await store.reschedule('worker-d', [{ id: held.id, nextCheckAt: now, consecutiveErrors: 0, evidenceAt: null, evidenceBlock: null, monitoring: null }])).toBe(0);
    // The owner reschedules it; after that (and after an expired lease) it is due again.
    const next = new Date(now.getTime() + 5_000);
    expect(await store.reschedule(owner, [{ id: held.id, nextCheckAt: next, consecutiveErrors: 2, evidenceAt: now, evidenceBlock: null, monitoring: { state: 'active' } }])).toBe(1);
    const later = new Date(now.getTime() + 40_000);
    const again = await other.leaseDue('worker-e', later, new Date(later.getTime() + 30_000), 1000);
    const retaken = again.find((r) => r.id === held.id);
    expect(retaken).toMatchObject({ consecutiveErrors: 2, checkCount: 1, monitoring: { state: 'active' } });
    const done = await other.completeCheck('worker-e', held.id, { status: 'confirmed', nextCheckAt: null }, []);
    expect(done).toMatchObject({ status: 'confirmed', nextCheckAt: null, checkCount: 2 });
  });
  it('saves many completions with their events in one statement, only for records the owner leases', async () => {
    const store = createTransactionStore(database);
    const now = new Date(Date.UTC(2031, 0, 1));
    const records = [];
    for (let i = 0; i < 3; i++) records.push(await store.create(newRecord({ status: i === 2 ? 'pending' : 'submitted', submittedAt: i === 2 ? null : now, nextCheckAt: new Date(now.getTime() - 1) }), []));
    const ids = new Set(records.map((r) => r.id));
    const leased = (await store.leaseDue('owner-a', now, new Date(now.getTime() + 30_000), 10_000)).filter((r) => ids.has(r.id));
    expect(leased).toHaveLength(3);
    const [a, b, c] = records as [(typeof records)[0], (typeof records)[0], (typeof records)[0]];
    // Another owner steals b's lease after it expired.
    await database.query('UPDATE transaction_records SET lease_owner = $1 WHERE id = $2', ['owner-b', b.id]);
    const at = new Date(now.getTime() + 1_000);
    const completion = (id: string, projectId: string, over: object = {}) => ({
      id,
      status: 'confirmed' as const,
      blockNumber: 9_007_199_254_740_993n,
      blockHash: '0xabc',
      failureStage: null,
      failureCode: null,
      failureMessage: null,
      monitoring: { state: 'resolved' },
      submittedAt: at,
      resolvedAt: at,
      evidenceAt: at,
      evidenceBlock: null,
      nextCheckAt: null,
      consecutiveErrors: 0,
      events: [{ id: `evt_${randomUUID()}`, projectId, type: 'rest.transaction.confirmed', data: { transactionId: id } }],
      ...over,
    });
    const saved = await store.completeChecks('owner-a', [
      completion(a.id, a.projectId),
      completion(b.id, b.projectId),
      completion(c.id, c.projectId, { status: 'failed', blockNumber: null, blockHash: null, failureStage: 'broadcast', failureCode: 'REPLACED', monitoring: { chainOutcome: 'nonce_consumed_elsewhere' } }),
    ]);
    expect(saved.sort()).toEqual([a.id, c.id].sort());
    expect(await store.findInWallet(a.projectId, a.walletId, a.id)).toMatchObject({
      status: 'confirmed',
      blockNumber: 9_007_199_254_740_993n,
      submittedAt: now, // an existing submittedAt is kept
      resolvedAt: at,
      nextCheckAt: null,
      checkCount: 1,
      monitoring: { state: 'resolved' },
    });
    expect(await store.findInWallet(c.projectId, c.walletId, c.id)).toMatchObject({ status: 'failed', failureCode: 'REPLACED', submittedAt: at, blockNumber: null });
    expect(await store.findInWallet(b.projectId, b.walletId, b.id)).toMatchObject({ status: 'submitted', resolvedAt: null });
    const events = await database.query<{ project_id: string }>('SELECT project_id FROM events WHERE project_id = ANY($1::uuid[])', [[a.projectId, b.projectId, c.projectId]]);
    expect(events.map((e) => e.project_id).sort()).toEqual([a.projectId, c.projectId].sort());
    expect(await store.completeChecks('owner-a', [])).toEqual([]);
  });
  it('leases records whose evidence finality covers before they are due, and only those', async () => {
    const store = createTransactionStore(database);
    const now = new Date(Date.UTC(2033, 0, 1));
    const later = new Date(now.getTime() + 60_000);
    const chain = `evidence-${randomUUID()}`; // a chain no other test uses
    const make = async (block: bigint | null, over: Partial<NewTransactionRecord> = {}, errors = 0) => {
      const r = await store.create(newRecord({ chainId: chain, nextCheckAt: later, ...over }), []);
      await database.query('UPDATE transaction_records SET evidence_block = $2, consecutive_errors = $3 WHERE id = $1', [r.id, block?.toString() ?? null, errors]);
      return r.id;
    };
    const final = await make(100n);
    const atEdge = await make(120n);
    const ahead = await make(121n);
    const noEvidence = await make(null);
    const erroring = await make(50n, {}, 1); // backing off after an RPC error: waits for its schedule
    const resolved = await make(10n, { status: 'confirmed', nextCheckAt: null });
    const solana = await make(5n, { walletType: 'SOLANA', chainId: null, network: chain, nonce: null });
    expect(await store.waitingForFinality()).toContainEqual({ walletType: 'EVM', chain, lowest: 100n });
    expect(await store.waitingForFinality()).toContainEqual({ walletType: 'SOLANA', chain, lowest: 5n });

    const leaseUntil = new Date(now.getTime() + 30_000);
    const ours = new Set([final, atEdge, ahead, noEvidence, erroring, resolved, solana]);
    const lease = async (owner: string, covered: Parameters<typeof store.leaseDue>[4]) =>
      (await store.leaseDue(owner, now, leaseUntil, 1000, covered)).map((r) => r.id).filter((id) => ours.has(id));
    expect(await lease('none', [])).toEqual([]); // none due by time
    expect(await lease('other-chain', [{ walletType: 'EVM', chain: 'another', upTo: 10n ** 12n }])).toEqual([]);
    const leased = await lease('evm', [{ walletType: 'EVM', chain, upTo: 120n }]);
    expect(leased.sort()).toEqual([final, atEdge].sort());
    const leasedRecord = (await store.leaseDue('x', now, leaseUntil, 1000, [{ walletType: 'EVM', chain, upTo: 120n }])).find((r) => r.id === final);
    expect(leasedRecord).toBeUndefined(); // still leased by 'evm'
    expect(await lease('sol', [{ walletType: 'SOLANA', chain, upTo: 5n }])).toEqual([solana]);
    // The lease limit counts both kinds; covered records come first.
    await database.query('UPDATE transaction_records SET lease_owner = NULL, lease_until = NULL, next_check_at = $2 WHERE id = ANY($1::uuid[])', [
      [final, atEdge, noEvidence],
      new Date(now.getTime() - 1),
    ]);
    const limited = (await store.leaseDue('limit', now, leaseUntil, 1, [{ walletType: 'EVM', chain, upTo: 120n }])).map((r) => r.id);
    expect(limited).toHaveLength(1);
    expect([final, atEdge]).toContain(limited[0]);
    expect(await store.reschedule('limit', [{ id: limited[0]!, nextCheckAt: later, consecutiveErrors: 0, evidenceAt: now, evidenceBlock: 130n, monitoring: null }])).toBe(1);
    const reread = (await store.leaseDue('reread', now, leaseUntil, 1000, [{ walletType: 'EVM', chain, upTo: 130n }])).find((r) => r.id === limited[0]);
    expect(reread).toMatchObject({ evidenceBlock: 130n });
  });

  it('returns leased records with the same shape and types as a lookup', async () => {
    const store = createTransactionStore(database);
    const now = new Date(Date.UTC(2032, 0, 1));
    const created = await store.create(
      newRecord({ walletType: 'SOLANA', chainId: null, network: 'SOLANA_DEVNET', nonce: null, recentBlockhash: 'abc', lastValidBlockHeight: 2n ** 60n, monitoring: { state: 'active' }, nextCheckAt: new Date(now.getTime() - 5) }),
      [],
    );
    await store.update(created.id, { blockNumber: 2n ** 62n, blockHash: null, evidenceAt: now }, [], 'submitted');
    const leased = (await store.leaseDue('shape', now, new Date(now.getTime() + 1_000), 10_000)).find((r) => r.id === created.id)!;
    const { leaseOwner: _o, leaseUntil: _u, ...looked } = (await store.findInWallet(created.projectId, created.walletId, created.id)) as typeof leased & { leaseOwner: unknown; leaseUntil: unknown };
    expect(leased).toEqual(looked);
    expect(leased.lastValidBlockHeight).toBe(2n ** 60n);
    expect(leased.blockNumber).toBe(2n ** 62n);
    expect(leased.createdAt).toBeInstanceOf(Date);
  });
});
