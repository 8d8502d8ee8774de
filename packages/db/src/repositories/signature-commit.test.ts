import { randomUUID } from 'node:crypto';
import { NonceReservationLostError, type NewTransactionRecord, type SignatureWrite } from '@wallet/domain';
import type { MeterKey } from '@wallet/domain/policies/evaluation-types.ts';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createPolicyMeterStore } from './policy-meters.ts';
import { createSponsoredOperationStore } from './sponsored-operations.ts';
import { createTransactionAttemptStore } from './transaction-attempts.ts';
import { createTransactionStore } from './transactions.ts';
import { createYieldOperationStore } from './yield-operations.ts';

const DAY = 86_400_000;

/**
 * A signature committed with what it signed (`SigningPipeline.signAndRecord`): each store write that
 * takes a `SignatureWrite` writes the audit row, the events and the spent reservation in its own
 * statement when it writes its record, and none of them when it writes nothing.
 */
describe.each(testDatabaseKinds)('signatures committed with their records (%s)', (kind) => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database?.close();
  });

  /** A signature of `walletId` with a real spend reservation (reserved) when `metered`. */
  async function signature(walletId: string, projectId: string, { metered = true, action = 'wallet.sign.transfer' } = {}): Promise<SignatureWrite> {
    let spentReservationId: string | null = null;
    if (metered) {
      const key: MeterKey = { projectId, environment: 'development', apiKeyId: randomUUID(), walletId, network: '84532', asset: 'native', windowMs: DAY, windowStart: new Date(Math.floor(Date.now() / DAY) * DAY) };
      const { reservation } = await createPolicyMeterStore(database).reserve([{ key, amount: 5n }], () => ({ reserve: true, result: 'allow', bounds: new Map() }));
      spentReservationId = reservation.id;
    }
    return {
      audit: { projectId, apiKeyId: null, walletId, requestId: randomUUID(), action, details: { digest: randomUUID() } },
      events: [{ id: `evt_${randomUUID()}`, projectId, type: 'transaction.signed', data: { walletId } }],
      spentReservationId,
    };
  }

  /** What the database holds of these signatures: audit rows (actions in order), events, reservation statuses. */
  async function written(walletId: string, signatures: SignatureWrite[]) {
    const audit = await database.query<{ action: string }>('SELECT action FROM audit_log WHERE wallet_id = $1::uuid ORDER BY id', [walletId]);
    const events = await database.query<{ id: string }>('SELECT id FROM events WHERE id = ANY($1::text[])', [signatures.flatMap((s) => s.events.map((e) => e.id))]);
    const ids = signatures.flatMap((s) => (s.spentReservationId ? [s.spentReservationId] : []));
    const spend = await database.query<{ status: string }>('SELECT status FROM policy_spend_reservations WHERE id = ANY($1::uuid[])', [ids]);
    return { audit: audit.map((a) => a.action), events: events.length, spend: spend.map((s) => s.status) };
  }

  it('a transfer record: its audit row, event and spent reservation in its insert; a lost nonce writes none of them', async () => {
    const store = createTransactionStore(database);
    const record = transactionRecordFixture();
    const signed = await signature(record.walletId, record.projectId);
    const saved = await store.create(record, [], undefined, signed);
    expect(saved.id).toBe(record.id);
    expect(await written(record.walletId, [signed])).toEqual({ audit: ['wallet.sign.transfer'], events: 1, spend: ['spent'] });

    // The nonce's reservation lapsed and another request took it: nothing of the signature is written.
    const walletId = randomUUID();
    const lapsed = await store.allocateNonce(walletId, '84532', 0, 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await store.allocateNonce(walletId, '84532', 0, 60_000);
    const lost = await signature(walletId, record.projectId);
    await expect(store.create(transactionRecordFixture({ walletId, chainId: '84532', nonce: lapsed.nonce }), [], lapsed.reservationId, lost)).rejects.toBeInstanceOf(NonceReservationLostError);
    expect(await written(walletId, [lost])).toEqual({ audit: [], events: 0, spend: ['reserved'] });
  });

  it('a sponsored operation: its signatures (delegation first) with the step that stores it, none when the lease is gone', async () => {
    const records = createTransactionStore(database);
    const store = createSponsoredOperationStore(database);
    const now = new Date(Date.UTC(2033, 0, 1));
    const accepted = (overrides: Partial<NewTransactionRecord> = {}) =>
      transactionRecordFixture({ executionMode: 'sponsored', stage: 'accepted', status: 'pending', nonce: null, hash: null, submittedAt: null, nextCheckAt: new Date(now.getTime() - 1), ...overrides });
    const record = await records.create(accepted(), []);
    const [leased] = await store.leaseDue('worker-a', now, new Date(now.getTime() + 60_000), 1);
    expect(leased?.id).toBe(record.id);
    const delegation = await signature(record.walletId, record.projectId, { metered: false, action: 'wallet.sign.sponsored-authorization' });
    const operation = await signature(record.walletId, record.projectId);
    const patch = { stage: 'signed', userOperation: '{}', userOperationHash: `0x${'1'.repeat(64)}` };
    // Another worker's save (its lease lost) writes nothing.
    expect(await store.save('worker-b', record.id, patch, [], { keepLease: true, signature: [delegation, operation] })).toBeNull();
    expect(await written(record.walletId, [delegation, operation])).toEqual({ audit: [], events: 0, spend: ['reserved'] });
    const saved = await store.save('worker-a', record.id, patch, [], { keepLease: true, onlyIfStage: 'accepted', signature: [delegation, operation] });
    expect(saved?.stage).toBe('signed');
    expect(await written(record.walletId, [delegation, operation])).toEqual({ audit: ['wallet.sign.sponsored-authorization', 'wallet.sign.transfer'], events: 2, spend: ['spent'] });
    // A second run of the same worker that signed it again (its lease had passed) stores nothing more.
    const again = await signature(record.walletId, record.projectId);
    expect(await store.save('worker-a', record.id, patch, [], { keepLease: true, onlyIfStage: 'accepted', signature: again })).toBeNull();
    expect(await written(record.walletId, [again])).toEqual({ audit: ['wallet.sign.sponsored-authorization', 'wallet.sign.transfer'], events: 0, spend: ['reserved'] });
  });

  it('a fee replacement and a yield step store nothing of their signature when they store no attempt or step', async () => {
    const records = createTransactionStore(database);
    const record = await records.create(transactionRecordFixture({ status: 'submitted' }), []);
    const replacement = await signature(record.walletId, record.projectId, { metered: false });
    const attempt = {
      id: randomUUID(),
      recordId: record.id,
      number: 2,
      hash: `0x${'2'.repeat(64)}`,
      signedTransaction: '0x02',
      maxFeePerGas: '2',
      maxPriorityFeePerGas: '1',
      recentBlockhash: null,
      lastValidBlockHeight: null,
      sentBlock: 10n,
      sentAt: new Date(),
      outcome: 'unknown' as const,
      reason: 'fee replacement 2',
    };
    // No monitor leases the record.
    expect(await createTransactionAttemptStore(database).add('monitor-a', attempt, replacement)).toBe(false);
    expect(await written(record.walletId, [replacement])).toEqual({ audit: [], events: 0, spend: [] });

    const walletId = randomUUID();
    const step = await signature(walletId, record.projectId, { metered: false, action: 'wallet.sign.yield.deposit' });
    const stored = await createYieldOperationStore(database).addStep('worker-a', randomUUID(), 'approval', transactionRecordFixture({ walletId, intentKind: 'yield' }), new Date(), step);
    expect(stored).toBeNull();
    expect(await written(walletId, [step])).toEqual({ audit: [], events: 0, spend: [] });
  });

  it('a fee replacement stored by the monitor that leases its record comes with its audit row and event', async () => {
    const records = createTransactionStore(database);
    const now = new Date(Date.UTC(2034, 0, 1));
    const record = await records.create(transactionRecordFixture({ status: 'submitted', nextCheckAt: new Date(now.getTime() - 1) }), []);
    const leased = await records.leaseDue('monitor-a', now, new Date(now.getTime() + 60_000), 10);
    expect(leased.map((r) => r.id)).toContain(record.id);
    const replacement = await signature(record.walletId, record.projectId, { metered: false });
    const attempt = {
      id: randomUUID(),
      recordId: record.id,
      number: 2,
      hash: `0x${'3'.repeat(64)}`,
      signedTransaction: '0x03',
      maxFeePerGas: '2',
      maxPriorityFeePerGas: '1',
      recentBlockhash: null,
      lastValidBlockHeight: null,
      sentBlock: 10n,
      sentAt: now,
      outcome: 'unknown' as const,
      reason: 'fee replacement 2',
    };
    expect(await createTransactionAttemptStore(database).add('monitor-a', attempt, replacement)).toBe(true);
    expect(await written(record.walletId, [replacement])).toEqual({ audit: ['wallet.sign.transfer'], events: 1, spend: [] });
  });
});
