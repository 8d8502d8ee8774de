import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
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
});
