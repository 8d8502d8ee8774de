import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { createSigningPipeline, fileKekProvider, parseSigningInput, systemClock, type AuditStore, type Caller, type PolicyEngine, type SigningIntent } from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './testing/harness.ts';

/**
 * `SigningPipeline.signAndRecord` over a real database, real KEKs and real wallets: the signature's
 * audit row, event and spend go into the caller's record write (here the transaction store's
 * insert), never into an append of their own; a record write that fails or writes nothing leaves no
 * audit row, no event and releases the reservation.
 */
describe.each(testDatabaseKinds)('signed and recorded in one commit (%s)', (kind) => {
  let app: TestApp;
  let caller: Caller;
  let walletId: string;

  beforeAll(async () => {
    app = await startTestApp(kind);
    const issued = await app.createKey();
    caller = { partnerId: issued.partnerId, projectId: issued.projectId, apiKeyId: issued.apiKeyId, environment: 'development', plan: 'scale', requestId: null };
    walletId = (await app.services.wallets.create(caller, { type: 'EVM', userIdentifier: 'sign-and-record', userIdentifierType: 'CUSTOM_ID' })).id;
  });
  afterAll(async () => {
    await app?.close();
  });

  const counts = async () => ({
    audit: await app.database.prisma.auditLog.count({ where: { walletId, action: { startsWith: 'wallet.sign' } } }),
    events: await app.database.prisma.event.count({ where: { projectId: caller.projectId, type: 'transaction.signed' } }),
    records: await app.database.prisma.transactionRecord.count({ where: { walletId } }),
  });

  /** A pipeline whose audit append and reservation release record that they ran. */
  function recordingPipeline() {
    const stages: string[] = [];
    const audit: AuditStore = {
      async append(entry, events, spentReservationId) {
        stages.push('append');
        await app.services.stores.audit.append(entry, events, spentReservationId);
      },
    };
    const policy: PolicyEngine = {
      evaluate: async () => ({ outcome: 'allow', reservation: { id: null, release: async () => void stages.push('release') } }),
    };
    const pipeline = createSigningPipeline({ audit, vault: createLocalKeyVault({ keks: fileKekProvider(path.join(app.dataDir, 'signer')) }), clock: systemClock, policy });
    return { pipeline, stages };
  }

  async function intent(): Promise<SigningIntent> {
    const { wallet, shares } = await app.services.wallets.loadWalletWithShares(caller, walletId);
    const body = { transaction: { to: '0x000000000000000000000000000000000000dEaD', value: '5', chainId: 84532, type: 2, nonce: 0, gasLimit: '21000', maxFeePerGas: '2', maxPriorityFeePerGas: '1' } };
    return { caller, wallet, shares, operation: 'transaction', action: 'wallet.sign.transfer', chain: { walletType: 'EVM', chainId: '84532', network: null }, transfer: { to: '0x000000000000000000000000000000000000dEaD', value: '5', tokenAddress: null }, input: parseSigningInput('EVM', 'transaction', body) };
  }

  const record = (signedTransaction: string) => transactionRecordFixture({ projectId: caller.projectId, walletId, signedTransaction, hash: `0x${randomUUID().replaceAll('-', '').padEnd(64, '0')}` });

  it('commits the audit row and event with the record, without an append of their own', async () => {
    const before = await counts();
    const { pipeline, stages } = recordingPipeline();
    const signed = await pipeline.signAndRecord(await intent(), (result, signature) => app.services.stores.transactions.create(record(result.response.signedTransaction as string), [], undefined, signature));
    expect(signed?.recorded.signedTransaction).toBe(signed?.result.response.signedTransaction);
    expect(stages).toEqual([]);
    expect(await counts()).toEqual({ audit: before.audit + 1, events: before.events + 1, records: before.records + 1 });
  });

  it('a record write that fails leaves no audit row and no event, and releases the reservation', async () => {
    const before = await counts();
    const { pipeline, stages } = recordingPipeline();
    // The same record id twice: the second insert fails on its primary key.
    const taken = await app.services.stores.transactions.create(record('0x01'), []);
    const error = await pipeline
      .signAndRecord(await intent(), (result, signature) => app.services.stores.transactions.create({ ...record(result.response.signedTransaction as string), id: taken.id }, [], undefined, signature))
      .then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect(stages).toEqual(['release']);
    expect(await counts()).toEqual({ ...before, records: before.records + 1 });
  });

  it('a record write that writes nothing (null) leaves no audit row and no event, and releases the reservation', async () => {
    const before = await counts();
    const { pipeline, stages } = recordingPipeline();
    expect(await pipeline.signAndRecord(await intent(), async () => null)).toBeNull();
    expect(stages).toEqual(['release']);
    expect(await counts()).toEqual(before);
  });

  it('a REST sign route keeps its one append', async () => {
    const before = await counts();
    const { pipeline, stages } = recordingPipeline();
    await pipeline.sign(await intent());
    expect(stages).toEqual(['append']);
    expect(await counts()).toEqual({ ...before, audit: before.audit + 1, events: before.events + 1 });
  });
});
