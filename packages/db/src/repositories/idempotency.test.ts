import { randomUUID } from 'node:crypto';
import type { IdempotencyStore } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createIdempotencyStore } from './idempotency.ts';

const T0 = new Date(Date.UTC(2026, 0, 1, 12, 0));
const at = (ms: number) => new Date(T0.getTime() + ms);
const DAY = 24 * 60 * 60_000;
const lease = (owner: string, untilMs: number) => ({ owner, expiresAt: at(untilMs) });

describe.each(testDatabaseKinds)('idempotency store (%s)', (kind) => {
  let db: Database;
  let store: IdempotencyStore;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
    store = createIdempotencyStore(db);
  });
  afterAll(() => db?.close());

  const begin = (project: string, key: string, hash: string, nowMs: number, owner: string, leaseMs = 30_000) =>
    store.begin(project, key, hash, at(nowMs), at(nowMs + DAY), lease(owner, nowMs + leaseMs));

  it('keeps a running record while its lease holds, and lets exactly one retry take it over once the lease has passed', async () => {
    const project = randomUUID();
    const key = randomUUID();
    expect(await begin(project, key, 'h', 0, 'crashed')).toEqual({ kind: 'started' });
    expect(await begin(project, key, 'h', 29_999, 'early')).toEqual({ kind: 'existing', requestHash: 'h', response: null });
    // A different request never takes the key over, even after the lease.
    expect(await begin(project, key, 'other', 40_000, 'intruder')).toEqual({ kind: 'existing', requestHash: 'h', response: null });

    const retries = await Promise.all(Array.from({ length: 8 }, (_, i) => begin(project, key, 'h', 30_000, `retry-${i}`)));
    expect(retries.filter((r) => r.kind === 'started')).toHaveLength(1);
    const winner = `retry-${retries.findIndex((r) => r.kind === 'started')}`;

    // The crashed holder, should it come back, can neither renew, complete nor release the key.
    expect(await store.renew(project, key, lease('crashed', 90_000))).toBe(false);
    expect(await store.complete(project, key, 'crashed', { status: 200, body: { from: 'crashed' } })).toBe(false);
    await store.abandon(project, key, 'crashed');
    expect(await store.renew(project, key, lease(winner, 90_000))).toBe(true);
    expect(await begin(project, key, 'h', 80_000, 'late')).toMatchObject({ kind: 'existing', response: null });
    expect(await store.complete(project, key, winner, { status: 201, body: { from: winner }, headers: { 'x-a': '1' } })).toBe(true);
    expect(await begin(project, key, 'h', 100_000, 'replay')).toEqual({
      kind: 'existing',
      requestHash: 'h',
      response: { status: 201, body: { from: winner }, headers: { 'x-a': '1' } },
    });
  });

  it('keeps a finished outcome for its 24 hours, whatever its lease was, then lets the key be used again', async () => {
    const project = randomUUID();
    const key = randomUUID();
    await begin(project, key, 'h', 0, 'a', 1_000);
    await store.complete(project, key, 'a', { status: 200, body: { ok: true } });
    expect(await begin(project, key, 'h', DAY - 1, 'b')).toMatchObject({ kind: 'existing', response: { status: 200 } });
    expect(await begin(project, key, 'h2', DAY, 'c')).toEqual({ kind: 'started' });
  });

  it('releases an abandoned claim so the next request starts', async () => {
    const project = randomUUID();
    const key = randomUUID();
    await begin(project, key, 'h', 0, 'a');
    await store.abandon(project, key, 'a');
    expect(await begin(project, key, 'h', 1, 'b')).toEqual({ kind: 'started' });
  });

  it('keeps a released claim bound to its request: the same request takes it over at once, another never does', async () => {
    const project = randomUUID();
    const key = randomUUID();
    await begin(project, key, 'h', 0, 'paused');
    await store.release(project, key, 'stranger');
    expect(await begin(project, key, 'h', 1, 'early')).toMatchObject({ kind: 'existing' });
    await store.release(project, key, 'paused');
    expect(await begin(project, key, 'other', 2, 'intruder')).toEqual({ kind: 'existing', requestHash: 'h', response: null });
    expect(await store.complete(project, key, 'paused', { status: 200, body: {} })).toBe(false);
    const resends = await Promise.all(Array.from({ length: 4 }, (_, i) => begin(project, key, 'h', 3, `resend-${i}`)));
    expect(resends.filter((r) => r.kind === 'started')).toHaveLength(1);
  });

  it('prunes records past their 24 hours in batches, and only those', async () => {
    const project = randomUUID();
    for (let i = 0; i < 5; i++) await begin(project, `old-${i}`, 'h', -2 * DAY, `o${i}`);
    await begin(project, 'fresh', 'h', 0, 'f');
    // Only this test's old rows have expired by then (the other tests' expire from T0 + 24 h on).
    const cutoff = at(-DAY + 1);
    expect(await store.pruneExpired(cutoff, 3)).toBe(3);
    expect(await store.pruneExpired(cutoff, 3)).toBe(2);
    expect(await store.pruneExpired(cutoff, 3)).toBe(0);
    const left = await db.prisma.idempotencyRecord.findMany({ where: { projectId: project }, select: { key: true } });
    expect(left.map((r) => r.key)).toEqual(['fresh']);
  });
});
