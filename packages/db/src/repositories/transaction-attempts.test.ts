import { randomUUID } from 'node:crypto';
import type { TransactionAttempt } from '@wallet/domain';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createTransactionAttemptStore } from './transaction-attempts.ts';
import { createTransactionStore } from './transactions.ts';

describe.each(testDatabaseKinds)('transaction attempt store (%s)', (kind) => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database.close();
  });

  const attempt = (recordId: string, number: number, overrides: Partial<TransactionAttempt> = {}): TransactionAttempt => ({
    id: randomUUID(),
    recordId,
    number,
    hash: `0x${randomUUID().replaceAll('-', '')}${randomUUID().replaceAll('-', '')}`,
    signedTransaction: '0x02f8',
    maxFeePerGas: '110',
    maxPriorityFeePerGas: '11',
    recentBlockhash: null,
    lastValidBlockHeight: null,
    sentBlock: 7n,
    sentAt: new Date(),
    outcome: 'unknown',
    reason: `fee replacement ${number}`,
    ...overrides,
  });

  /** A managed-retry record, leased by `owner`. */
  async function leasedRecord(owner: string, solana = false) {
    const transactions = createTransactionStore(database);
    const fields = solana
      ? { walletType: 'SOLANA' as const, chainId: null, network: 'SOLANA_DEVNET', nonce: null, autoRetryMaxFeePerGas: null, recentBlockhash: 'GfVcyD4kkTrj4bKc7WA9sZCin9JDbdT4Zkd3EittNR1W', lastValidBlockHeight: 150n }
      : { autoRetryMaxFeePerGas: '1000' };
    const record = await transactions.create(transactionRecordFixture({ autoRetry: true, ...fields, nextCheckAt: new Date(0) }), []);
    const now = new Date();
    const leased = await transactions.leaseDue(owner, now, new Date(now.getTime() + 60_000), 1000);
    expect(leased.map((r) => r.id)).toContain(record.id);
    return record;
  }

  it('stores an attempt only for the monitor that leases the submitted record, once per number, even when two race', async () => {
    const store = createTransactionAttemptStore(database);
    const record = await leasedRecord('monitor-a');
    expect(await store.add('monitor-b', attempt(record.id, 2))).toBe(false);
    const racing = await Promise.all([store.add('monitor-a', attempt(record.id, 2)), store.add('monitor-a', attempt(record.id, 2))]);
    expect(racing.sort()).toEqual([false, true]);
    // An earlier number after a later one is a stale plan: refused too.
    expect(await store.add('monitor-a', attempt(record.id, 3))).toBe(true);
    expect(await store.add('monitor-a', attempt(record.id, 2))).toBe(false);
    const stored = (await store.forRecords([record.id, randomUUID()])).get(record.id)!;
    expect(stored.map((a) => [a.number, a.outcome, a.sentBlock])).toEqual([
      [2, 'unknown', 7n],
      [3, 'unknown', 7n],
    ]);
    const row = (await database.query<{ auto_retry_reason: string }>('SELECT auto_retry_reason FROM transaction_records WHERE id = $1', [record.id]))[0]!;
    expect(row.auto_retry_reason).toBe('fee replacement 3');
  });

  it('marks sent, settles the winner and the losers, and writes reasons only under the lease', async () => {
    const store = createTransactionAttemptStore(database);
    const record = await leasedRecord('monitor-c');
    const second = attempt(record.id, 2);
    const third = attempt(record.id, 3);
    expect(await store.add('monitor-c', second)).toBe(true);
    expect(await store.add('monitor-c', third)).toBe(true);
    await store.markSent(record.id, second.hash, new Date());
    expect((await store.forRecords([record.id])).get(record.id)!.map((a) => a.outcome)).toEqual(['pending', 'unknown']);
    await store.setReasons('monitor-x', [{ recordId: record.id, reason: 'not mine' }]);
    await store.setReasons('monitor-c', [{ recordId: record.id, reason: 'ceiling reached' }]);
    const reason = async () => (await database.query<{ auto_retry_reason: string }>('SELECT auto_retry_reason FROM transaction_records WHERE id = $1', [record.id]))[0]!.auto_retry_reason;
    expect(await reason()).toBe('ceiling reached');
    await store.settle([{ recordId: record.id, winningHash: second.hash }]);
    expect((await store.forRecords([record.id])).get(record.id)!.map((a) => a.outcome)).toEqual(['included', 'lost']);
  });

  it('refuses an attempt for a record that is no longer submitted', async () => {
    const store = createTransactionAttemptStore(database);
    const record = await leasedRecord('monitor-d');
    await database.query(`UPDATE transaction_records SET status = 'confirmed' WHERE id = $1`, [record.id]);
    expect(await store.add('monitor-d', attempt(record.id, 2))).toBe(false);
  });

  it('the database refuses an unknown outcome and a managed record without a ceiling', async () => {
    const store = createTransactionAttemptStore(database);
    const record = await leasedRecord('monitor-e');
    await expect(store.add('monitor-e', attempt(record.id, 2, { outcome: 'won' as TransactionAttempt['outcome'] }))).rejects.toThrow(/check/i);
    await expect(createTransactionStore(database).create(transactionRecordFixture({ autoRetry: true, autoRetryMaxFeePerGas: null }), [])).rejects.toThrow();
  });

  it('stores a Solana rebuild with its blockhash and height, no fees; the database refuses an attempt of neither kind', async () => {
    const store = createTransactionAttemptStore(database);
    const record = await leasedRecord('monitor-f', true);
    const rebuild = { maxFeePerGas: null, maxPriorityFeePerGas: null, recentBlockhash: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG', lastValidBlockHeight: 400n };
    await expect(store.add('monitor-f', attempt(record.id, 2, { ...rebuild, maxFeePerGas: '110' }))).rejects.toThrow(/check/i);
    await expect(store.add('monitor-f', attempt(record.id, 2, { ...rebuild, lastValidBlockHeight: null }))).rejects.toThrow(/check/i);
    await expect(store.add('monitor-f', attempt(record.id, 2, { maxPriorityFeePerGas: null }))).rejects.toThrow(/check/i);
    expect(await store.add('monitor-f', attempt(record.id, 2, rebuild))).toBe(true);
    expect((await store.forRecords([record.id])).get(record.id)!.map((a) => [a.recentBlockhash, a.lastValidBlockHeight, a.maxFeePerGas])).toEqual([[rebuild.recentBlockhash, 400n, null]]);
  });
});
