import { randomUUID } from 'node:crypto';
import { resolveChainReset, systemClock, type NewTransactionRecord, type TransactionRecord } from '@wallet/domain';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createChainResetStore, createTransactionStore } from './transactions.ts';

const newRecord = transactionRecordFixture;

describe.each(testDatabaseKinds)('resolving a reset chain (%s)', (kind) => {
  let database: Database;
  beforeAll(async () => {
    database = await createTestDatabase(kind);
  });
  afterAll(async () => {
    await database.close();
  });

  it('fails the unresolved records of that chain only, with their events, and restarts its nonces only', async () => {
    const transactions = createTransactionStore(database);
    const store = createChainResetStore(database);
    const wallet = randomUUID();
    const solana = { walletType: 'SOLANA' as const, chainId: null, network: 'SOLANA_DEVNET', fromAddress: 'So11111111111111111111111111111111111111112', nonce: null };
    const records: Record<string, TransactionRecord> = {};
    for (const [name, overrides] of Object.entries({
      submitted: { walletId: wallet, nonce: 1 },
      pending: { walletId: wallet, status: 'pending', submittedAt: null, nonce: 2 },
      confirmed: { walletId: wallet, status: 'confirmed', nextCheckAt: null },
      otherChain: { walletId: wallet, chainId: '1' },
      solanaDevnet: solana,
      solanaMainnet: { ...solana, network: 'SOLANA' },
    } satisfies Record<string, Partial<NewTransactionRecord>>)) {
      records[name] = await transactions.create(newRecord(overrides), []);
    }
    for (let i = 0; i < 3; i++) await transactions.allocateNonce(wallet, '84532', 0, 60_000);
    await transactions.releaseNonce(wallet, '84532', 1);
    await transactions.allocateNonce(wallet, '1', 0, 60_000);

    const evm = await resolveChainReset({ store, clock: systemClock }, { walletType: 'EVM', chain: '84532', isDevnet: true });
    expect(evm.failed.sort()).toEqual([records.submitted!.id, records.pending!.id].sort());
    expect(evm.nonceRows).toBe(4); // the counter and the three reserved nonces (one released)
    for (const name of ['submitted', 'pending']) {
      const after = await transactions.findInWallet(records[name]!.projectId, wallet, records[name]!.id);
      expect(after).toMatchObject({ status: 'failed', failureStage: 'broadcast', failureCode: 'CHAIN_RESET', nextCheckAt: null });
      expect(after!.resolvedAt).toBeInstanceOf(Date);
      const events = await database.query<{ type: string; data: Record<string, unknown> }>(
        `SELECT type, data FROM events WHERE project_id = $1 ORDER BY type`,
        [records[name]!.projectId],
      );
      expect(events.map((e) => e.type)).toEqual(['rest.transaction.failed', 'send.failed']);
      expect(events[0]!.data).toMatchObject({ transactionId: records[name]!.id, status: 'failed', failureCode: 'CHAIN_RESET', failureStage: 'broadcast' });
    }
    for (const name of ['confirmed', 'otherChain', 'solanaDevnet', 'solanaMainnet']) {
      const after = await transactions.findInWallet(records[name]!.projectId, records[name]!.walletId, records[name]!.id);
      expect(after?.status, name).toBe(records[name]!.status);
    }
    expect((await transactions.allocateNonce(wallet, '84532', 0, 60_000)).nonce).toBe(0);
    expect((await transactions.allocateNonce(wallet, '1', 0, 60_000)).nonce).toBe(1);

    const sol = await resolveChainReset({ store, clock: systemClock }, { walletType: 'SOLANA', chain: 'SOLANA_DEVNET', isDevnet: true });
    expect(sol).toEqual({ failed: [records.solanaDevnet!.id], nonceRows: 0 });
    const mainnet = records.solanaMainnet!;
    expect((await transactions.findInWallet(mainnet.projectId, mainnet.walletId, mainnet.id))?.status).toBe('submitted');
    // A second pass finds no record left (and forgets the counter and the reservation allocated since).
    expect(await resolveChainReset({ store, clock: systemClock }, { walletType: 'EVM', chain: '84532', isDevnet: true })).toEqual({ failed: [], nonceRows: 2 });
  });
});
