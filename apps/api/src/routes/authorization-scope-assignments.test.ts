import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { assignmentsPath, membersPath, scopeProject, type ScopeProject } from '../testing/scope-fixtures.ts';

const unavailable = { code: 'PERMISSIONS_V2_EXTENSION_UNAVAILABLE', message: expect.stringContaining('not enabled') };
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

describe.each(testDatabaseKinds)('authorization scope assignments over HTTP on %s', (kind) => {
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

  it('answers 403 PERMISSIONS_V2_EXTENSION_UNAVAILABLE to PUT until enabled, reads stay available; disabling again closes it', async () => {
    const fresh = await scopeProject(app);
    const userId = await fresh.user();
    const path = assignmentsPath('org-1', userId);
    const body = { expectedRevision: 0, assignments: [{ role: 'finance' }] };
    const refused = await fresh.put(path, body);
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual(unavailable);
    // Refused before anything else: an invalid body or an unknown user is the same 403.
    expect((await fresh.put(assignmentsPath('org-1', randomUUID()), { nonsense: true })).body).toEqual(refused.body);
    for (const read of [path, `${path}/history`, membersPath('org-1')]) expect((await fresh.get(read)).status).toBe(200);
    expect((await fresh.get(path)).body.revision).toBe(0);

    await fresh.enable();
    const written = await fresh.put(path, body);
    expect(written.status).toBe(200);
    expect(written.body.revision).toBe(1);

    await fresh.disable();
    expect((await fresh.put(path, { expectedRevision: 1, assignments: [] })).body).toEqual(unavailable);
    // Nothing was written by the refused PUT, and reads still answer.
    expect((await fresh.get(path)).body).toMatchObject({ revision: 1, assignments: [{ role: 'finance' }] });
  });

  it('starts at revision 0, replaces the whole set with each revision, removes all with an empty array, and keeps every revision', async () => {
    const userId = await project.user();
    const path = assignmentsPath('acme:org.1', userId);
    expect((await project.get(path)).body).toEqual({ authorizationScopeId: 'acme:org.1', userId, revision: 0, assignments: [], updatedAt: null });

    const first = await project.put(path, { expectedRevision: 0, assignments: [{ role: ' finance ' }, { attribute: 'region', value: 'eu' }] });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({ authorizationScopeId: 'acme:org.1', userId, revision: 1, assignments: [{ role: 'finance' }, { attribute: 'region', value: 'eu' }], updatedAt: iso });
    expect((await project.get(path)).body).toEqual(first.body);

    const second = await project.put(path, { expectedRevision: 1, assignments: [{ role: 'executive' }] });
    expect(second.body).toMatchObject({ revision: 2, assignments: [{ role: 'executive' }] });
    const emptied = await project.put(path, { expectedRevision: 2, assignments: [] });
    expect(emptied.body).toMatchObject({ revision: 3, assignments: [] });
    expect((await project.get(path)).body).toMatchObject({ revision: 3, assignments: [] });

    const history = await project.get(`${path}/history`);
    expect(history.status).toBe(200);
    const by = { type: 'api_key', id: project.apiKeyId };
    expect(history.body).toEqual({
      data: [
        { revision: 3, assignments: [], createdAt: iso, createdBy: by, requestId: expect.any(String) },
        { revision: 2, assignments: [{ role: 'executive' }], createdAt: iso, createdBy: by, requestId: expect.any(String) },
        { revision: 1, assignments: [{ role: 'finance' }, { attribute: 'region', value: 'eu' }], createdAt: iso, createdBy: by, requestId: expect.any(String) },
      ],
      pagination: { cursor: null, hasMore: false, limit: 50 },
    });
    expect(history.body.data[2].createdAt).toBe(first.body.updatedAt);

    // Pages of two, newest first, and a cursor this list did not hand out is a 400.
    const page1 = await project.get(`${path}/history?limit=2`);
    expect(page1.body.data.map((r: { revision: number }) => r.revision)).toEqual([3, 2]);
    expect(page1.body.pagination).toEqual({ cursor: expect.any(String), hasMore: true, limit: 2 });
    const page2 = await project.get(`${path}/history?limit=2&cursor=${page1.body.pagination.cursor}`);
    expect(page2.body.data.map((r: { revision: number }) => r.revision)).toEqual([1]);
    expect(page2.body.pagination).toEqual({ cursor: null, hasMore: false, limit: 2 });
    for (const query of ['cursor=nope', 'limit=0', 'limit=101', 'extra=1']) expect((await project.get(`${path}/history?${query}`)).status).toBe(400);

    const audit = await app.database.prisma.auditLog.findMany({ where: { projectId: project.projectId, action: 'authorization_scope.assignments.replace' }, orderBy: { id: 'asc' } });
    expect(audit.filter((a) => (a.details as { userId: string }).userId === userId).map((a) => [a.apiKeyId, (a.details as { revision: number }).revision])).toEqual([
      [project.apiKeyId, 1],
      [project.apiKeyId, 2],
      [project.apiKeyId, 3],
    ]);
  });

  it('refuses a stale, missing or future expectedRevision with 409 CONFLICT and the current revision, writing nothing', async () => {
    const userId = await project.user();
    const path = assignmentsPath('org-conflicts', userId);
    // Before the first write the current revision is 0: anything else is refused.
    const early = await project.put(path, { expectedRevision: 1, assignments: [{ role: 'finance' }] });
    expect(early.status).toBe(409);
    expect(early.body).toEqual({ code: 'CONFLICT', message: expect.stringContaining('current revision 0'), currentRevision: 0 });
    expect((await project.put(path, { expectedRevision: 0, assignments: [{ role: 'finance' }] })).status).toBe(200);

    const attempts = [
      { expectedRevision: 0, assignments: [{ role: 'stale' }] },
      { assignments: [{ role: 'missing' }] },
      { expectedRevision: 7, assignments: [{ role: 'future' }] },
    ];
    for (const body of attempts) {
      const refused = await project.put(path, body);
      expect(refused.status).toBe(409);
      expect(refused.body).toMatchObject({ code: 'CONFLICT', currentRevision: 1 });
    }
    expect((await project.get(path)).body).toMatchObject({ revision: 1, assignments: [{ role: 'finance' }] });
    expect((await project.get(`${path}/history`)).body.data).toHaveLength(1);
  });

  it('validates bodies and scope ids with 400 INVALID_REQUEST naming each path', async () => {
    const userId = await project.user();
    const path = assignmentsPath('org-valid', userId);
    const cases: Array<[unknown, string[]]> = [
      [{ expectedRevision: 0, assignments: [], extra: 1 }, ['']],
      [{ expectedRevision: 0 }, ['assignments']],
      [{ expectedRevision: '0', assignments: [] }, ['expectedRevision']],
      [{ expectedRevision: -1, assignments: [] }, ['expectedRevision']],
      [{ expectedRevision: 1.5, assignments: [] }, ['expectedRevision']],
      [{ expectedRevision: 0, assignments: [{ role: 'a', attribute: 'b', value: 'c' }] }, ['assignments.0']],
      [{ expectedRevision: 0, assignments: [{ attribute: 'region' }] }, ['assignments.0']],
      [{ expectedRevision: 0, assignments: [{ role: 'a', colour: 'red' }] }, ['assignments.0']],
      [{ expectedRevision: 0, assignments: [{ role: '   ' }] }, ['assignments.0.role']],
      [{ expectedRevision: 0, assignments: [{ role: 'x'.repeat(65) }] }, ['assignments.0.role']],
      [{ expectedRevision: 0, assignments: [{ role: 1 }] }, ['assignments.0.role']],
      [{ expectedRevision: 0, assignments: [{ role: 'finance' }, { role: ' finance' }] }, ['assignments.1']],
      [{ expectedRevision: 0, assignments: Array.from({ length: 101 }, (_, i) => ({ role: `r${i}` })) }, ['assignments']],
      [[], ['']],
    ];
    for (const [body, paths] of cases) {
      const refused = await project.put(path, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.code).toBe('INVALID_REQUEST');
      expect(refused.body.details.map((d: { path: string }) => d.path), JSON.stringify(body)).toEqual(paths);
    }
    for (const scopeId of ['has space', 'x'.repeat(129), 'slash%2Fin', 'ümlaut']) {
      for (const response of [await project.get(assignmentsPath(scopeId, userId)), await project.put(assignmentsPath(scopeId, userId), { expectedRevision: 0, assignments: [] })]) {
        expect(response.status, scopeId).toBe(400);
        expect(response.body.details).toEqual([{ path: 'authorizationScopeId', message: expect.any(String) }]);
      }
    }
    expect((await project.get(path)).body.revision).toBe(0);
    // The longest allowed id is accepted.
    expect((await project.put(assignmentsPath('a'.repeat(128), userId), { expectedRevision: 0, assignments: [] })).status).toBe(200);
  });

  it('lists members with their current assignments by user id, in pages, leaving out users whose set is empty', async () => {
    const scope = `members-${randomUUID()}`;
    const users = [await project.user(), await project.user(), await project.user()];
    await project.put(assignmentsPath(scope, users[0]!), { expectedRevision: 0, assignments: [{ role: 'finance' }] });
    await project.put(assignmentsPath(scope, users[1]!), { expectedRevision: 0, assignments: [{ attribute: 'desk', value: 'ny' }] });
    await project.put(assignmentsPath(scope, users[2]!), { expectedRevision: 0, assignments: [{ role: 'gone' }] });
    await project.put(assignmentsPath(scope, users[2]!), { expectedRevision: 1, assignments: [] });
    // Another scope's assignments are not this scope's members.
    await project.put(assignmentsPath(`${scope}-other`, users[2]!), { expectedRevision: 0, assignments: [{ role: 'finance' }] });

    const expected = [
      { userId: users[0], revision: 1, assignments: [{ role: 'finance' }], updatedAt: iso },
      { userId: users[1], revision: 1, assignments: [{ attribute: 'desk', value: 'ny' }], updatedAt: iso },
    ].sort((a, b) => a.userId!.localeCompare(b.userId!));
    const all = await project.get(membersPath(scope));
    expect(all.body).toEqual({ authorizationScopeId: scope, data: expected, pagination: { cursor: null, hasMore: false, limit: 50 } });
    const first = await project.get(`${membersPath(scope)}?limit=1`);
    expect(first.body.data).toEqual([expected[0]]);
    expect(first.body.pagination.hasMore).toBe(true);
    const second = await project.get(`${membersPath(scope)}?limit=1&cursor=${first.body.pagination.cursor}`);
    expect(second.body.data).toEqual([expected[1]]);
    expect(second.body.pagination).toEqual({ cursor: null, hasMore: false, limit: 1 });
    expect((await project.get(`${membersPath(scope)}?cursor=${first.body.pagination.cursor}x`)).status).toBe(400);
    expect((await project.get(membersPath('never-used'))).body.data).toEqual([]);
  });

  it("answers another partner's users, missing and malformed user ids with the same 404, and keeps scopes per project and environment", async () => {
    const userId = await project.user();
    await project.put(assignmentsPath('shared-name', userId), { expectedRevision: 0, assignments: [{ role: 'finance' }] });
    const stranger = await scopeProject(app);
    await stranger.enable();
    const missing = await project.get(assignmentsPath('shared-name', randomUUID()));
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ code: 'NOT_FOUND', message: 'User not found' });
    for (const [who, user] of [[project, 'not-a-uuid'], [stranger, userId]] as const) {
      const path = assignmentsPath('shared-name', user);
      expect((await who.get(path)).body).toEqual(missing.body);
      expect((await who.get(`${path}/history`)).body).toEqual(missing.body);
      const put = await who.put(path, { expectedRevision: 1, assignments: [] });
      expect(put.status).toBe(404);
      expect(put.body).toEqual(missing.body);
    }
    // The same scope id in another project is another scope.
    expect((await stranger.get(membersPath('shared-name'))).body.data).toEqual([]);
    expect((await project.get(assignmentsPath('shared-name', userId))).body.revision).toBe(1);

    // Production of the same project: its own switch and its own assignments (users are per project).
    const production = await app.services.apiKeys.create({ partner: project.partner, environment: 'production', plan: 'scale', rateLimitPerMinute: 0 });
    expect(production.projectId).toBe(project.projectId);
    const asProduction = (method: string, path: string, body?: unknown) => app.request(method, path, { key: production.apiKey, body });
    expect((await asProduction('GET', assignmentsPath('shared-name', userId))).body).toMatchObject({ revision: 0, assignments: [] });
    expect((await asProduction('PUT', assignmentsPath('shared-name', userId), { expectedRevision: 0, assignments: [] })).body).toEqual(unavailable);
  });

  it('replays a PUT resent with the same Idempotency-Key instead of answering 409, and refuses the key with another body', async () => {
    const userId = await project.user();
    const path = assignmentsPath('org-idem', userId);
    const key = { 'idempotency-key': randomUUID() };
    const body = { expectedRevision: 0, assignments: [{ role: 'finance' }] };
    const first = await project.put(path, body, key);
    const again = await project.put(path, body, key);
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    const other = await project.put(path, { expectedRevision: 1, assignments: [] }, key);
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('CONFLICT');
    expect((await project.get(`${path}/history`)).body.data).toHaveLength(1);
  });

  it('lets exactly one of concurrent PUTs with the same expectedRevision win; the others get 409 with the winner\'s revision', async () => {
    const userId = await project.user();
    const path = assignmentsPath('org-race', userId);
    for (const expectedRevision of [0, 1]) {
      const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => project.put(path, { expectedRevision, assignments: [{ role: `r${expectedRevision}-${i}` }] })));
      const winners = answers.filter((a) => a.status === 200);
      expect(winners, JSON.stringify(answers.map((a) => a.body))).toHaveLength(1);
      for (const loser of answers.filter((a) => a.status !== 200)) {
        expect(loser.status).toBe(409);
        expect(loser.body).toMatchObject({ code: 'CONFLICT', currentRevision: expectedRevision + 1 });
      }
      expect((await project.get(path)).body).toEqual(winners[0]!.body);
    }
    const history = (await project.get(`${path}/history`)).body.data;
    expect(history.map((r: { revision: number }) => r.revision)).toEqual([2, 1]);
  });
});
