import { randomUUID } from 'node:crypto';
import { broadcastedEvents, newEventId, resolvedEvents, type NewTransactionRecord } from '@wallet/domain';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createAuditStore } from './audit.ts';
import { createConsoleStore } from './console.ts';
import { createTransactionStore } from './transactions.ts';

function pendingRecord(projectId: string, walletId: string, hash: string): NewTransactionRecord {
  return transactionRecordFixture({ projectId, walletId, hash, intentKind: 'sign_transaction', status: 'pending', to: null, value: null, nonce: 7, submittedAt: null });
}

describe.each(testDatabaseKinds)('events of a transaction record (%s)', (kind) => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database.close();
  });

  it('stores the record id on every event about it and finds a record\'s events by it, not by its hash', async () => {
    const transactions = createTransactionStore(database);
    const consoleStore = createConsoleStore(database);
    const projectId = randomUUID();
    const walletId = randomUUID();
    const hash = `0x${randomUUID().replaceAll('-', '')}`;
    // The same signed transaction broadcast twice (sign-transaction with broadcast): two records, one hash.
    const first = await transactions.create(pendingRecord(projectId, walletId, hash), []);
    const second = await transactions.create(pendingRecord(projectId, walletId, hash), []);
    const at = new Date();
    for (const record of [first, second]) {
      const submitted = { ...record, status: 'submitted' as const, submittedAt: at };
      expect(await transactions.update(record.id, { status: 'submitted', submittedAt: at }, broadcastedEvents(submitted, true, at), 'pending')).not.toBeNull();
    }
    // The first resolves through the monitor's batch statement (raw SQL), the second through an update.
    const now = new Date(Date.UTC(2035, 0, 1));
    const leased = await transactions.leaseDue('owner', now, new Date(now.getTime() + 30_000), 100);
    expect(leased.map((r) => r.id)).toContain(first.id);
    const confirmed = { ...first, status: 'confirmed' as const, blockNumber: 12n, blockHash: '0xb1', resolvedAt: now, submittedAt: at };
    const saved = await transactions.completeChecks('owner', [
      { ...confirmed, monitoring: null, evidenceAt: now, evidenceBlock: null, nextCheckAt: null, consecutiveErrors: 0, events: resolvedEvents(confirmed, true, now) },
    ]);
    expect(saved).toEqual([first.id]);
    const failed = { ...second, status: 'failed' as const, failureStage: 'broadcast' as const, failureCode: 'REPLACED', failureMessage: 'replaced', resolvedAt: now, submittedAt: at };
    await transactions.update(second.id, failed, resolvedEvents(failed, true, now), 'submitted');
    // A signature's event (written with its audit row) is about no record.
    await createAuditStore(database).append(
      { projectId, apiKeyId: null, walletId, requestId: null, action: 'sign_transaction', details: {} },
      [{ id: newEventId(), projectId, type: 'transaction.signed', data: { walletId, chainId: '84532' } }],
    );

    const rows = await database.query<{ type: string; transaction_id: string | null }>(
      'SELECT type, transaction_id FROM events WHERE project_id = $1 ORDER BY seq',
      [projectId],
    );
    expect(rows).toEqual([
      { type: 'send.broadcasted', transaction_id: first.id },
      { type: 'send.broadcasted', transaction_id: second.id },
      { type: 'rest.transaction.confirmed', transaction_id: first.id },
      { type: 'send.confirmed', transaction_id: first.id },
      { type: 'rest.transaction.failed', transaction_id: second.id },
      { type: 'send.failed', transaction_id: second.id },
      { type: 'transaction.signed', transaction_id: null },
    ]);

    const ofFirst = await consoleStore.transactionEvents(projectId, first.id);
    expect(ofFirst.map(({ event }) => event.type)).toEqual(['send.broadcasted', 'rest.transaction.confirmed', 'send.confirmed']);
    const ofSecond = await consoleStore.transactionEvents(projectId, second.id);
    expect(ofSecond.map(({ event }) => event.type)).toEqual(['send.broadcasted', 'rest.transaction.failed', 'send.failed']);
    expect(await consoleStore.transactionEvents(randomUUID(), first.id)).toEqual([]);
  });

  it('indexes events by transaction_id (only the rows that have one)', async () => {
    const indexes = await database.query<{ indexdef: string }>(`SELECT indexdef FROM pg_indexes WHERE tablename = 'events'`);
    expect(indexes.map((i) => i.indexdef).join('\n')).toMatch(/ON public\.events USING btree \(transaction_id\) WHERE \(transaction_id IS NOT NULL\)/);
  });
});
