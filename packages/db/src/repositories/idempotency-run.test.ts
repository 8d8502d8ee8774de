import { randomUUID } from 'node:crypto';
import { ApiError, createIdempotency, invalidRequest, notFound, systemClock } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createIdempotencyStore } from './idempotency.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(testDatabaseKinds)('runIdempotent on the database store (%s)', (kind) => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
  });
  afterAll(() => db?.close());

  it('renews the lease of a request that runs longer than it, so a retry meanwhile neither runs nor takes the key over', async () => {
    const run = createIdempotency(createIdempotencyStore(db), systemClock, { leaseMs: 1_000, waitForRunningMs: 200, pollMs: 20 });
    const project = randomUUID();
    let executions = 0;
    const slow = async () => {
      executions++;
      await sleep(3_000);
      return { status: 201, body: { n: executions } };
    };
    const first = run(project, 'slow', 'h', slow);
    await sleep(1_500);
    await expect(run(project, 'slow', 'h', slow)).rejects.toMatchObject({ status: 409, message: expect.stringContaining('still in progress') });
    expect(await first).toEqual({ status: 201, body: { n: 1 }, replayed: false });
    expect(await run(project, 'slow', 'h', slow)).toEqual({ status: 201, body: { n: 1 }, headers: {}, replayed: true });
    expect(executions).toBe(1);
  });

  it('stores client errors and releases the key after a server error', async () => {
    const run = createIdempotency(createIdempotencyStore(db), systemClock, { leaseMs: 1_000 });
    const project = randomUUID();
    const failing = (status: number) => async () => ({ status, body: { status } });
    expect(await run(project, 'client', 'h', failing(422))).toMatchObject({ status: 422, replayed: false });
    expect(await run(project, 'client', 'h', failing(200))).toMatchObject({ status: 422, replayed: true });
    expect(await run(project, 'server', 'h', failing(503))).toMatchObject({ status: 503, replayed: false });
    expect(await run(project, 'server', 'h', failing(200))).toMatchObject({ status: 200, replayed: false });
  });

  it('leaves no record for a request refused as invalid, so the corrected request runs under the same key; other client errors are stored', async () => {
    const run = createIdempotency(createIdempotencyStore(db), systemClock, { leaseMs: 1_000 });
    const project = randomUUID();
    const invalid = async () => {
      throw invalidRequest('Invalid request: amount: Required', { details: [{ path: 'amount', message: 'Required' }] });
    };
    await expect(run(project, 'typo', 'h', invalid)).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    expect(await db.prisma.idempotencyRecord.count({ where: { projectId: project } })).toBe(0);
    expect(await run(project, 'typo', 'corrected', async () => ({ status: 201, body: { ok: true } }))).toMatchObject({ status: 201, replayed: false });

    const missing = async () => {
      throw notFound('Wallet');
    };
    await expect(run(project, 'missing', 'h', missing)).rejects.toMatchObject({ status: 404 });
    expect(await run(project, 'missing', 'h', async () => ({ status: 200, body: {} }))).toMatchObject({ status: 404, replayed: true });
  });

  it('a released key runs only its own request again; a refusal for a key of another request leaves no trace', async () => {
    const run = createIdempotency(createIdempotencyStore(db), systemClock, { leaseMs: 1_000, waitForRunningMs: 200 });
    const project = randomUUID();
    const refusal = (flag: 'releasesIdempotencyKey' | 'leavesIdempotencyKeyAlone') => async () => {
      const error = new ApiError(flag === 'releasesIdempotencyKey' ? 403 : 409, 'X', flag);
      error[flag] = true;
      throw error;
    };
    await expect(run(project, 'paused', 'h', refusal('releasesIdempotencyKey'))).rejects.toMatchObject({ status: 403 });
    await expect(run(project, 'paused', 'other', async () => ({ status: 200, body: {} }))).rejects.toMatchObject({ status: 409, message: expect.stringContaining('different request') });
    expect(await run(project, 'paused', 'h', async () => ({ status: 200, body: { resent: true } }))).toMatchObject({ status: 200, body: { resent: true }, replayed: false });

    await expect(run(project, 'foreign', 'h', refusal('leavesIdempotencyKeyAlone'))).rejects.toMatchObject({ status: 409 });
    expect(await db.prisma.idempotencyRecord.count({ where: { projectId: project, key: 'foreign' } })).toBe(0);
  });
});
