import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { scopeProject, walletScopePath, type ScopeProject } from '../testing/scope-fixtures.ts';

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

describe.each(testDatabaseKinds)('wallet authorization scope bindings over HTTP on %s', (kind) => {
  let app: TestApp;
  let project: ScopeProject;

  beforeAll(async () => {
    app = await startTestApp(kind);
    project = await scopeProject(app);
    await project.enable();
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers 403 PERMISSIONS_V2_EXTENSION_UNAVAILABLE to PUT until enabled (reads stay), then binds; disabling closes it again', async () => {
    const fresh = await scopeProject(app);
    const wallet = await fresh.wallet('EVM');
    const path = walletScopePath(wallet.id);
    const refused = await fresh.put(path, { expectedRevision: 0, authorizationScopeId: 'org-1' });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({ code: 'PERMISSIONS_V2_EXTENSION_UNAVAILABLE', message: expect.stringContaining('not enabled') });
    expect((await fresh.get(path)).body).toEqual({ walletId: wallet.id, authorizationScopeId: null, revision: 0, updatedAt: null });
    expect((await fresh.get(`${path}/history`)).body.data).toEqual([]);
    await fresh.enable();
    expect((await fresh.put(path, { expectedRevision: 0, authorizationScopeId: 'org-1' })).status).toBe(200);
    await fresh.disable();
    expect((await fresh.put(path, { expectedRevision: 1, authorizationScopeId: null })).body).toEqual(refused.body);
    expect((await fresh.get(path)).body).toMatchObject({ authorizationScopeId: 'org-1', revision: 1 });
  });

  it('binds, moves and unbinds (authorizationScopeId null) with a revision each, keeping who, when and the scope of every revision', async () => {
    const wallet = await project.wallet('EVM');
    const path = walletScopePath(wallet.id);
    const bound = await project.put(path, { expectedRevision: 0, authorizationScopeId: 'acme:org.1' });
    expect(bound.status).toBe(200);
    expect(bound.body).toEqual({ walletId: wallet.id, authorizationScopeId: 'acme:org.1', revision: 1, updatedAt: iso });
    expect((await project.get(path)).body).toEqual(bound.body);
    expect((await project.put(path, { expectedRevision: 1, authorizationScopeId: 'acme:org.2' })).body).toMatchObject({ authorizationScopeId: 'acme:org.2', revision: 2 });
    const unbound = await project.put(path, { expectedRevision: 2, authorizationScopeId: null });
    expect(unbound.body).toEqual({ walletId: wallet.id, authorizationScopeId: null, revision: 3, updatedAt: iso });
    expect((await project.get(path)).body).toEqual(unbound.body);

    const by = { type: 'api_key', id: project.apiKeyId };
    const history = await project.get(`${path}/history`);
    expect(history.body).toEqual({
      data: [
        { revision: 3, authorizationScopeId: null, createdAt: iso, createdBy: by, requestId: expect.any(String) },
        { revision: 2, authorizationScopeId: 'acme:org.2', createdAt: iso, createdBy: by, requestId: expect.any(String) },
        { revision: 1, authorizationScopeId: 'acme:org.1', createdAt: iso, createdBy: by, requestId: expect.any(String) },
      ],
      pagination: { cursor: null, hasMore: false, limit: 50 },
    });
    const page1 = await project.get(`${path}/history?limit=1`);
    const page2 = await project.get(`${path}/history?limit=1&cursor=${page1.body.pagination.cursor}`);
    expect([page1.body.data[0].revision, page2.body.data[0].revision, page2.body.pagination.hasMore]).toEqual([3, 2, true]);
    expect((await project.get(`${path}/history?cursor=AAAA`)).status).toBe(400);

    const audit = await app.database.prisma.auditLog.findMany({ where: { walletId: wallet.id, action: 'wallet.authorization_scope.set' }, orderBy: { id: 'asc' } });
    expect(audit.map((a) => [a.apiKeyId, (a.details as { authorizationScopeId: string | null }).authorizationScopeId])).toEqual([
      [project.apiKeyId, 'acme:org.1'],
      [project.apiKeyId, 'acme:org.2'],
      [project.apiKeyId, null],
    ]);
  });

  it('refuses a stale, missing or future expectedRevision with 409 CONFLICT and the current revision, writing nothing', async () => {
    const wallet = await project.wallet('SOLANA');
    const path = walletScopePath(wallet.id);
    const early = await project.put(path, { expectedRevision: 2, authorizationScopeId: 'org-a' });
    expect(early.status).toBe(409);
    expect(early.body).toMatchObject({ code: 'CONFLICT', currentRevision: 0 });
    const missingFirst = await project.put(path, { authorizationScopeId: 'org-a' });
    expect(missingFirst.body).toEqual({ code: 'CONFLICT', message: 'expectedRevision is required: the current revision is 0', currentRevision: 0 });
    expect((await project.put(path, { expectedRevision: 0, authorizationScopeId: 'org-a' })).status).toBe(200);
    for (const body of [{ expectedRevision: 0, authorizationScopeId: 'org-b' }, { authorizationScopeId: 'org-b' }, { expectedRevision: 9, authorizationScopeId: null }]) {
      const refused = await project.put(path, body);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'CONFLICT', currentRevision: 1 });
    }
    expect((await project.get(path)).body).toMatchObject({ authorizationScopeId: 'org-a', revision: 1 });
    expect((await project.get(`${path}/history`)).body.data).toHaveLength(1);
  });

  it('validates the body with 400 INVALID_REQUEST naming each path', async () => {
    const wallet = await project.wallet('EVM');
    const path = walletScopePath(wallet.id);
    const cases: Array<[unknown, string[]]> = [
      [{ expectedRevision: 0 }, ['authorizationScopeId']],
      [{ expectedRevision: 0, authorizationScopeId: 'has space' }, ['authorizationScopeId']],
      [{ expectedRevision: 0, authorizationScopeId: 'x'.repeat(129) }, ['authorizationScopeId']],
      [{ expectedRevision: 0, authorizationScopeId: 7 }, ['authorizationScopeId']],
      [{ expectedRevision: 0, authorizationScopeId: 'org', walletId: wallet.id }, ['']],
      [{ expectedRevision: null, authorizationScopeId: 'org' }, ['expectedRevision']],
    ];
    for (const [body, paths] of cases) {
      const refused = await project.put(path, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.details.map((d: { path: string }) => d.path), JSON.stringify(body)).toEqual(paths);
    }
    expect((await project.get(path)).body.revision).toBe(0);
  });

  it("answers another partner's wallets, missing and malformed ids with the same 404, on every route", async () => {
    const wallet = await project.wallet('EVM');
    await project.put(walletScopePath(wallet.id), { expectedRevision: 0, authorizationScopeId: 'org-1' });
    const stranger = await scopeProject(app);
    await stranger.enable();
    const missing = await project.get(walletScopePath(randomUUID()));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'Wallet not found' });
    for (const [who, walletId] of [[project, 'not-a-uuid'], [stranger, wallet.id]] as const) {
      const path = walletScopePath(walletId);
      for (const response of [await who.get(path), await who.get(`${path}/history`), await who.put(path, { expectedRevision: 1, authorizationScopeId: null })]) {
        expect(response.status).toBe(404);
        expect(response.body).toEqual(missing.body);
      }
    }
    expect((await project.get(walletScopePath(wallet.id))).body).toMatchObject({ authorizationScopeId: 'org-1', revision: 1 });
  });

  it('lets exactly one of concurrent PUTs with the same expectedRevision win; the others get 409 with the winner\'s revision', async () => {
    const wallet = await project.wallet('EVM');
    const path = walletScopePath(wallet.id);
    for (const expectedRevision of [0, 1]) {
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => project.put(path, { expectedRevision, authorizationScopeId: `org-${expectedRevision}-${i}` })));
      const winners = answers.filter((a) => a.status === 200);
      expect(winners, JSON.stringify(answers.map((a) => a.body))).toHaveLength(1);
      for (const loser of answers.filter((a) => a.status !== 200)) expect(loser.body).toMatchObject({ code: 'CONFLICT', currentRevision: expectedRevision + 1 });
      expect((await project.get(path)).body).toEqual(winners[0]!.body);
    }
    expect((await project.get(`${path}/history`)).body.data.map((r: { revision: number }) => r.revision)).toEqual([2, 1]);
  });
});
