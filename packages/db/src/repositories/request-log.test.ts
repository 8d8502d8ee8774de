import { randomUUID } from 'node:crypto';
import type { RequestLogEntry } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createStores } from './index.ts';

const AT = new Date(Date.UTC(2026, 5, 1, 12, 0, 0));
const seconds = (n: number) => new Date(AT.getTime() + n * 1000);

function entry(overrides: Partial<RequestLogEntry>): RequestLogEntry {
  return {
    projectId: null,
    requestId: randomUUID(),
    method: 'POST',
    route: '/v1/wallets',
    status: 201,
    code: null,
    apiKeyId: null,
    walletId: null,
    transactionId: null,
    caseId: null,
    latencyMs: 1.5,
    deniedBy: null,
    at: AT,
    ...overrides,
  };
}

describe.each(testDatabaseKinds)('the request log store (%s)', (kind) => {
  let db: Database;
  beforeAll(async () => {
    db = await createTestDatabase(kind);
  });
  afterAll(() => db?.close());

  async function partnerWithProject() {
    const partnerId = randomUUID();
    const projectId = randomUUID();
    await db.prisma.partner.create({ data: { id: partnerId, name: `partner-${partnerId}` } });
    await db.prisma.project.create({ data: { id: projectId, partnerId, name: `p-${projectId}` } });
    return { partnerId, projectId };
  }

  it('appends a batch in one statement and reads it back newest first, every column intact', async () => {
    const { requestLog } = createStores(db);
    const { partnerId, projectId } = await partnerWithProject();
    const walletId = randomUUID();
    const refused = entry({
      projectId,
      method: 'POST',
      route: '/v1/wallets/:walletId/transfer',
      status: 403,
      code: 'POLICY_DENIED',
      apiKeyId: randomUUID(),
      walletId,
      transactionId: randomUUID(),
      caseId: randomUUID(),
      latencyMs: 12.25,
      deniedBy: [{ policyId: 'cap', policyVersion: '3', ruleId: 'max' }],
      at: seconds(2),
    });
    const created = entry({ projectId, walletId, at: seconds(1) });
    await requestLog.append([created, refused, entry({ at: seconds(3) })]);

    const listed = await requestLog.list({ partnerId, limit: 10 });
    expect(listed).toEqual([refused, created]);
    expect(await requestLog.list({ partnerId, limit: 1 })).toEqual([refused]);
  });

  it('filters by request id, wallet, API key, status, code and time range, and never crosses partners', async () => {
    const { requestLog } = createStores(db);
    const mine = await partnerWithProject();
    const theirs = await partnerWithProject();
    const apiKeyId = randomUUID();
    const walletId = randomUUID();
    const a = entry({ projectId: mine.projectId, apiKeyId, status: 201, at: seconds(10) });
    const b = entry({ projectId: mine.projectId, walletId, status: 404, code: 'NOT_FOUND', at: seconds(20) });
    const c = entry({ projectId: mine.projectId, walletId, status: 403, code: 'POLICY_DENIED', at: seconds(30) });
    const foreign = entry({ projectId: theirs.projectId, walletId, status: 403, code: 'POLICY_DENIED', at: seconds(25) });
    await requestLog.append([a, b, c, foreign]);
    const list = (filter: object) => requestLog.list({ partnerId: mine.partnerId, limit: 50, ...filter });

    expect(await list({ requestId: b.requestId })).toEqual([b]);
    expect(await list({ requestId: foreign.requestId })).toEqual([]);
    expect(await list({ walletId })).toEqual([c, b]);
    expect(await list({ apiKeyId })).toEqual([a]);
    expect(await list({ status: 404 })).toEqual([b]);
    expect(await list({ code: 'POLICY_DENIED' })).toEqual([c]);
    expect(await list({ from: seconds(20), to: seconds(30) })).toEqual([b]);
    expect(await requestLog.list({ partnerId: theirs.partnerId, limit: 50 })).toEqual([foreign]);
  });

  it('prunes entries older than the cutoff in batches, and nothing newer', async () => {
    const { requestLog } = createStores(db);
    const { partnerId, projectId } = await partnerWithProject();
    const old = [1, 2, 3].map((n) => entry({ projectId, at: new Date(Date.UTC(2001, 0, n)) }));
    const recent = entry({ projectId, at: new Date(Date.UTC(2001, 0, 10)) });
    await requestLog.append([...old, recent]);
    const cutoff = new Date(Date.UTC(2001, 0, 5));
    expect(await requestLog.prune(cutoff, 2)).toBe(2);
    expect(await requestLog.prune(cutoff, 2)).toBe(1);
    expect(await requestLog.prune(cutoff, 2)).toBe(0);
    expect((await requestLog.list({ partnerId, limit: 50 })).map((e) => e.requestId)).toEqual([recent.requestId]);
  });
});
