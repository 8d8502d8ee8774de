import { randomUUID } from 'node:crypto';
import { createPruner } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createStores } from './index.ts';

const NOW = new Date(Date.UTC(2026, 5, 1, 12, 0, 30));

describe.each(testDatabaseKinds)('the pruner on the database stores (%s)', (kind) => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
  });
  afterAll(() => db?.close());

  it('deletes expired idempotency records and rate-limit windows older than the previous one, in batches, and nothing else', async () => {
    const stores = createStores(db);
    const project = randomUUID();
    const lease = { owner: 'o', expiresAt: NOW };
    const begin = (key: string, expiresAt: Date) => stores.idempotency.begin(project, key, 'h', new Date(expiresAt.getTime() - 1), expiresAt, lease);
    for (let i = 0; i < 3; i++) await begin(`expired-${i}`, new Date(NOW.getTime() - 1));
    await begin('live', new Date(NOW.getTime() + 1));
    const apiKey = randomUUID();
    const minute = (n: number) => new Date(Date.UTC(2026, 5, 1, 12, n));
    for (let n = -9; n <= 0; n++) await stores.rateLimits.hit(apiKey, minute(n));
    // 12:00 is the current window and 11:59 the one before; 11:58 and older go.

    const pruner = createPruner({ idempotency: stores.idempotency, rateLimits: stores.rateLimits, clock: { now: () => NOW }, batchSize: 4 });
    const runs = [];
    for (let more = true; more; ) {
      const result = await pruner.runOnce();
      runs.push(result);
      more = result.more;
    }
    expect(runs).toEqual([
      { idempotency: 3, rateLimits: 4, more: true },
      { idempotency: 0, rateLimits: 4, more: true },
      { idempotency: 0, rateLimits: 0, more: false },
    ]);
    expect((await db.prisma.idempotencyRecord.findMany({ where: { projectId: project } })).map((r) => r.key)).toEqual(['live']);
    const windows = await db.prisma.rateLimitCounter.findMany({ where: { apiKeyId: apiKey }, orderBy: { windowStart: 'asc' } });
    expect(windows.map((w) => w.windowStart)).toEqual([minute(-1), minute(0)]);
  });
});
