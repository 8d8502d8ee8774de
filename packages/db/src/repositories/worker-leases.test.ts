import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createWorkerLeaseStore } from './worker-leases.ts';

const at = (s: number) => new Date(Date.UTC(2026, 0, 1, 0, 0, s));

describe.each(testDatabaseKinds)('worker lease store (%s)', (kind) => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
  });
  afterAll(() => db?.close());

  it('gives a lease to exactly one of several processes, lets the holder extend it, and hands it over when it expires or is released', async () => {
    const store = createWorkerLeaseStore(db);
    const won = await Promise.all(Array.from({ length: 8 }, (_, i) => store.acquire('job', `p${i}`, at(0), at(30))));
    expect(won.filter(Boolean)).toHaveLength(1);
    const holder = `p${won.indexOf(true)}`;
    const other = holder === 'p0' ? 'p1' : 'p0';
    expect(await store.acquire('job', holder, at(20), at(50))).toBe(true);
    expect(await store.acquire('job', other, at(40), at(70))).toBe(false);
    // Another job name is another lease.
    expect(await store.acquire('other-job', other, at(40), at(70))).toBe(true);
    // The holder died: once its lease has passed, someone else takes it, and the dead one cannot release it.
    expect(await store.acquire('job', other, at(50), at(80))).toBe(true);
    await store.release('job', holder);
    expect(await store.acquire('job', holder, at(60), at(90))).toBe(false);
    await store.release('job', other);
    expect(await store.acquire('job', holder, at(61), at(91))).toBe(true);
  });
});
