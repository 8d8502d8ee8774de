import { randomUUID } from 'node:crypto';
import type { RateLimitStore } from '@wallet/domain';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds } from '../database.ts';
import { createDatabaseRateLimitStore } from './rate-limits.ts';
import { createRedisRateLimitStore } from './redis-rate-limits.ts';

type Opened = { store: RateLimitStore; close(): Promise<void> };

const kinds: [string, () => Promise<Opened>][] = testDatabaseKinds.map((kind) => [
  `database (${kind})`,
  async () => {
    const database = await createTestDatabase(kind);
    return { store: createDatabaseRateLimitStore(database), close: () => database.close() };
  },
]);
if (process.env.TEST_REDIS_URL) {
  const url = process.env.TEST_REDIS_URL;
  kinds.push(['redis', async () => {
    const store = createRedisRateLimitStore(url);
    return { store, close: () => store.close() };
  }]);
}

describe.each(kinds)('rate-limit store: %s', (name, open) => {
  const opened: Opened[] = [];
  afterAll(async () => {
    for (const o of opened) await o.close();
  });

  it('counts concurrent hits exactly, per key and per window', async () => {
    const o = await open();
    opened.push(o);
    const key = randomUUID();
    const other = randomUUID();
    const window = new Date(Date.UTC(2026, 0, 1, 0, 0));
    const counts = await Promise.all(Array.from({ length: 50 }, () => o.store.hit(key, window)));
    expect([...counts].sort((a, b) => a - b)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(await o.store.hit(other, window)).toBe(1);
    expect(await o.store.hit(key, new Date(window.getTime() + 60_000))).toBe(1);
    await o.store.prune(new Date(window.getTime() + 60_000), 1000);
    expect(await o.store.hit(key, new Date(window.getTime() + 60_000))).toBe(2);
  });

  // Registered only for the database stores (Redis expires keys itself): never reported as skipped.
  if (name.startsWith('database')) it('prunes old windows in batches of at most `limit`, keeping newer ones', async () => {
    const o = await open();
    opened.push(o);
    const old = new Date(Date.UTC(2025, 0, 1, 0, 0));
    const keys = Array.from({ length: 5 }, () => randomUUID());
    for (const key of keys) await o.store.hit(key, old);
    const current = new Date(old.getTime() + 10 * 60_000);
    await o.store.hit(keys[0]!, current);
    expect(await o.store.prune(new Date(old.getTime() + 60_000), 3)).toBe(3);
    expect(await o.store.prune(new Date(old.getTime() + 60_000), 3)).toBe(2);
    expect(await o.store.prune(new Date(old.getTime() + 60_000), 3)).toBe(0);
    expect(await o.store.hit(keys[0]!, old)).toBe(1);
    expect(await o.store.hit(keys[0]!, current)).toBe(2);
  });
});
