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
      { idempotency: 3, rateLimits: 4, spendMeters: 0, spendReservations: 0, requestLog: 0, more: true },
      { idempotency: 0, rateLimits: 4, spendMeters: 0, spendReservations: 0, requestLog: 0, more: true },
      { idempotency: 0, rateLimits: 0, spendMeters: 0, spendReservations: 0, requestLog: 0, more: false },
    ]);
    expect((await db.prisma.idempotencyRecord.findMany({ where: { projectId: project } })).map((r) => r.key)).toEqual(['live']);
    const windows = await db.prisma.rateLimitCounter.findMany({ where: { apiKeyId: apiKey }, orderBy: { windowStart: 'asc' } });
    expect(windows.map((w) => w.windowStart)).toEqual([minute(-1), minute(0)]);
  });

  it('deletes spend meters a day after their window ended and reservations 7 days after they settled; held ones stay', async () => {
    const stores = createStores(db);
    const HOUR = 3_600_000;
    const DAY = 24 * HOUR;
    const identity = { projectId: randomUUID(), environment: 'development' as const, apiKeyId: randomUUID(), walletId: randomUUID(), network: '84532' };
    // Windows relative to NOW (2026-06-01 12:00:30): ended 25 h ago (goes), ended 23 h ago (stays),
    // a 7-day window that started 3 days ago (still running: stays, although it started long ago).
    const key = (asset: string, windowMs: number, start: number) => ({ ...identity, asset, windowMs, windowStart: new Date(start) });
    const old = key('old', HOUR, NOW.getTime() - 26 * HOUR);
    const recent = key('recent', HOUR, NOW.getTime() - 24 * HOUR);
    const long = key('long', 7 * DAY, NOW.getTime() - 3 * DAY);
    const reserve = (k: ReturnType<typeof key>) => stores.policyMeters.reserve([{ key: k, amount: 1n }], () => ({ reserve: true, result: null, bounds: new Map() }));
    const [o, r, l, held] = await Promise.all([reserve(old), reserve(recent), reserve(long), reserve(long)]);
    await o!.reservation.commit();
    await r!.reservation.release();
    await l!.reservation.commit();
    // Settled 8 days ago (o), 6 days ago (r), just now (l); `held` is still reserved, 30 days old.
    const age = (id: string | null, days: number | null, createdDays: number) =>
      db.query(`UPDATE policy_spend_reservations SET settled_at = $2, created_at = $3 WHERE id = $1`, [id, days === null ? null : new Date(NOW.getTime() - days * DAY), new Date(NOW.getTime() - createdDays * DAY)]);
    await age(o!.reservation.id, 8, 8);
    await age(r!.reservation.id, 6, 6);
    await age(held!.reservation.id, null, 30);

    const pruner = createPruner({ idempotency: stores.idempotency, rateLimits: stores.rateLimits, spendMeters: stores.policyMeters, clock: { now: () => NOW }, batchSize: 1000 });
    expect(await pruner.runOnce()).toMatchObject({ spendMeters: 1, spendReservations: 1, more: false });
    const meters = await db.query<{ asset: string }>('SELECT asset FROM policy_spend_meters WHERE project_id = $1 ORDER BY asset', [identity.projectId]);
    expect(meters.map((m) => m.asset)).toEqual(['long', 'recent']);
    const reservations = await db.query<{ id: string }>('SELECT id FROM policy_spend_reservations WHERE project_id = $1', [identity.projectId]);
    expect(reservations.map((x) => x.id).sort()).toEqual([r!.reservation.id, l!.reservation.id, held!.reservation.id].sort());
    expect(await pruner.runOnce()).toMatchObject({ spendMeters: 0, spendReservations: 0 });
  });
});
