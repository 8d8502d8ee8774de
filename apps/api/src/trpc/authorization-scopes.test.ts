import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePartner, graphql, restWallet } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { assignmentsPath, membersPath, walletScopePath } from '../testing/scope-fixtures.ts';
import { trpcFailure } from '../testing/staff-client.ts';

type Partner = Awaited<ReturnType<typeof consolePartner>>;

const READ_ONLY = { status: 403, body: { code: 'FORBIDDEN', message: 'Support staff have read-only access' } };
const UNAVAILABLE = { status: 403, body: { code: 'PERMISSIONS_V2_EXTENSION_UNAVAILABLE', message: expect.stringContaining('not enabled') } };
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);

describe.each(testDatabaseKinds)('console authorization scopes over tRPC and GraphQL on %s', (kind) => {
  let app: TestApp;
  let a: Partner;
  let b: Partner;
  const staff = { owner: '', developer: '' };
  const passwords: string[] = [];

  beforeAll(async () => {
    app = await startTestApp(kind);
    [a, b] = await Promise.all([consolePartner(app, passwords), consolePartner(app, passwords)]);
    staff.owner = (await a.owner.auth.me.query())!.staffId;
    staff.developer = (await a.developer.auth.me.query())!.staffId;
  });
  afterAll(async () => {
    const logs = app.logLines.join('');
    for (const secret of [...app.secrets(), ...passwords]) expect(logs).not.toContain(secret);
    await app.close();
  });

  const here = () => ({ projectId: a.key.projectId, environment: 'development' as const });
  const rest = (method: string, path: string, body?: unknown) => app.request(method, path, { key: a.key.apiKey, body });
  const newUser = async (projectId = a.key.projectId) =>
    (await app.services.users.signUp({ projectId, identifier: `scope-${Math.random().toString(36).slice(2)}@example.com`, identifierType: 'EMAIL' })).userId;

  it('the extension switch: every role reads it, only owners switch it (audited with the staff member), another partner gets 404', async () => {
    expect(await a.support.scopes.extension.query(here())).toEqual({ ...here(), enabled: false, updatedAt: null, updatedBy: null });
    expect(await trpcFailure(a.developer.scopes.setExtension.mutate({ ...here(), enabled: true }))).toEqual({
      status: 403,
      body: { code: 'FORBIDDEN', message: 'Only owners may switch the permissions v2 extension' },
    });
    expect(await trpcFailure(a.support.scopes.setExtension.mutate({ ...here(), enabled: true }))).toEqual(READ_ONLY);
    expect(await trpcFailure(b.owner.scopes.setExtension.mutate({ ...here(), enabled: true }))).toMatchObject({ status: 404, body: { message: 'Project not found' } });
    expect(await trpcFailure(b.owner.scopes.extension.query(here()))).toMatchObject({ status: 404, body: { message: 'Project not found' } });

    // Before enabling, the console's writes are refused like REST's.
    const userId = await newUser();
    expect(await trpcFailure(a.owner.scopes.replaceAssignments.mutate({ ...here(), scopeId: 'org-1', userId, expectedRevision: 0, assignments: [{ role: 'finance' }] }))).toEqual(UNAVAILABLE);

    const enabled = await a.owner.scopes.setExtension.mutate({ ...here(), enabled: true });
    expect(enabled).toEqual({ ...here(), enabled: true, updatedAt: iso, updatedBy: { type: 'staff', id: staff.owner } });
    expect(await a.support.scopes.extension.query(here())).toEqual(enabled);
    // Production is another switch.
    expect(await a.support.scopes.extension.query({ ...here(), environment: 'production' })).toMatchObject({ enabled: false, updatedBy: null });
    const audit = await app.database.prisma.auditLog.findMany({ where: { projectId: a.key.projectId, action: { startsWith: 'permissions.extension.' } } });
    expect(audit.map((row) => [row.action, row.apiKeyId, row.details])).toEqual([
      ['permissions.extension.enable', null, { environment: 'development', actor: { type: 'staff', id: staff.owner } }],
    ]);
  });

  it("owners and developers replace a user's assignments with the revision shown (stale = 409); every role reads members, ids and history; REST sees the same", async () => {
    const userId = await newUser();
    const at = { ...here(), scopeId: 'acme:org.1', userId };
    expect(await a.support.scopes.assignments.query(at)).toEqual({ authorizationScopeId: 'acme:org.1', userId, revision: 0, assignments: [], updatedAt: null });

    const first = await a.owner.scopes.replaceAssignments.mutate({ ...at, expectedRevision: 0, assignments: [{ role: 'finance' }] });
    expect(first).toEqual({ authorizationScopeId: 'acme:org.1', userId, revision: 1, assignments: [{ role: 'finance' }], updatedAt: iso });
    // The developer's form still shows revision 0: refused, nothing written, the current revision named.
    const stale = await trpcFailure(a.developer.scopes.replaceAssignments.mutate({ ...at, expectedRevision: 0, assignments: [] }));
    expect(stale).toEqual({ status: 409, body: { code: 'CONFLICT', message: expect.stringContaining('not the current revision 1'), currentRevision: 1 } });
    const second = await a.developer.scopes.replaceAssignments.mutate({ ...at, expectedRevision: 1, assignments: [{ role: 'finance' }, { attribute: 'region', value: ' eu ' }] });
    expect(second).toMatchObject({ revision: 2, assignments: [{ role: 'finance' }, { attribute: 'region', value: 'eu' }] });
    expect(await trpcFailure(a.support.scopes.replaceAssignments.mutate({ ...at, expectedRevision: 2, assignments: [] }))).toEqual(READ_ONLY);
    // The REST body rules apply as they are.
    expect(await trpcFailure(a.owner.scopes.replaceAssignments.mutate({ ...at, expectedRevision: 2, assignments: [{ role: 'a', value: 'b' }] }))).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    expect(await trpcFailure(a.owner.scopes.replaceAssignments.mutate({ ...at, scopeId: 'no spaces', expectedRevision: 2, assignments: [] }))).toMatchObject({ status: 400 });

    expect(await a.support.scopes.assignments.query(at)).toEqual(second);
    const history = await a.support.scopes.assignmentHistory.query(at);
    expect(history.data.map((h) => [h.revision, h.createdBy, h.assignments.length])).toEqual([
      [2, { type: 'staff', id: staff.developer }, 2],
      [1, { type: 'staff', id: staff.owner }, 1],
    ]);
    const paged = await a.support.scopes.assignmentHistory.query({ ...at, limit: 1 });
    expect(paged.pagination.hasMore).toBe(true);
    expect((await a.support.scopes.assignmentHistory.query({ ...at, limit: 1, cursor: paged.pagination.cursor! })).data.map((h) => h.revision)).toEqual([1]);

    const members = await a.support.scopes.members.query({ ...here(), scopeId: 'acme:org.1' });
    expect(members.data).toEqual([{ userId, revision: 2, assignments: second.assignments, updatedAt: second.updatedAt }]);
    expect((await a.support.scopes.ids.query(here())).scopeIds).toContain('acme:org.1');
    expect((await a.support.scopes.ids.query({ ...here(), environment: 'production' })).scopeIds).toEqual([]);

    // The partner's REST routes read what the console wrote, with the staff member as the writer.
    expect((await rest('GET', membersPath('acme:org.1'))).body).toEqual(members);
    expect((await rest('GET', `${assignmentsPath('acme:org.1', userId)}/history`)).body).toEqual(history);
    const audit = await app.database.prisma.auditLog.findMany({ where: { projectId: a.key.projectId, action: 'authorization_scope.assignments.replace' }, orderBy: { id: 'asc' } });
    expect(audit.map((row) => [row.apiKeyId, (row.details as { actor: unknown }).actor])).toEqual([
      [null, { type: 'staff', id: staff.owner }],
      [null, { type: 'staff', id: staff.developer }],
    ]);

    // Emptying the set removes the member (its history stays).
    await a.owner.scopes.replaceAssignments.mutate({ ...at, expectedRevision: 2, assignments: [] });
    expect((await a.support.scopes.members.query({ ...here(), scopeId: 'acme:org.1' })).data).toEqual([]);
    expect((await a.support.scopes.assignmentHistory.query(at)).data).toHaveLength(3);
    // A scope with neither members nor bound wallets is no longer listed.
    expect((await a.support.scopes.ids.query(here())).scopeIds).not.toContain('acme:org.1');
  });

  it("another partner's project and users are 404 like missing ones", async () => {
    const userId = await newUser();
    await a.owner.scopes.replaceAssignments.mutate({ ...here(), scopeId: 'private', userId, expectedRevision: 0, assignments: [{ role: 'finance' }] });
    const notProject = { status: 404, body: { code: 'NOT_FOUND', message: 'Project not found' } };
    expect(await trpcFailure(b.owner.scopes.members.query({ ...here(), scopeId: 'private' }))).toEqual(notProject);
    expect(await trpcFailure(b.owner.scopes.ids.query(here()))).toEqual(notProject);
    expect(await trpcFailure(b.owner.scopes.assignments.query({ ...here(), scopeId: 'private', userId }))).toEqual(notProject);
    expect(await trpcFailure(b.owner.scopes.assignmentHistory.query({ ...here(), scopeId: 'private', userId }))).toEqual(notProject);
    expect(await trpcFailure(b.owner.scopes.replaceAssignments.mutate({ ...here(), scopeId: 'private', userId, expectedRevision: 1, assignments: [] }))).toEqual(notProject);
    // b's own project: a's user is not one of its users.
    const own = { projectId: b.key.projectId, environment: 'development' as const, scopeId: 'private', userId };
    expect(await trpcFailure(b.owner.scopes.assignments.query(own))).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'User not found' } });
    expect((await b.owner.scopes.members.query({ projectId: own.projectId, environment: own.environment, scopeId: own.scopeId })).data).toEqual([]);
    expect((await b.owner.scopes.ids.query({ projectId: b.key.projectId, environment: 'development' })).scopeIds).toEqual([]);
    expect(await trpcFailure(a.owner.scopes.members.query({ ...here(), projectId: 'not-a-uuid', scopeId: 'x' }))).toEqual(notProject);
  });

  it("a wallet's binding: bind, stale revision, unbind, history with who; support reads it over tRPC and GraphQL; another partner gets 404", async () => {
    const wallet = await restWallet(app, a.key.apiKey);
    const at = { walletId: wallet.id, environment: 'development' as const };
    expect(await a.support.scopes.walletScope.query(at)).toEqual({ walletId: wallet.id, authorizationScopeId: null, revision: 0, updatedAt: null });
    const bound = await a.owner.scopes.bindWallet.mutate({ ...at, expectedRevision: 0, authorizationScopeId: 'treasury' });
    expect(bound).toEqual({ walletId: wallet.id, authorizationScopeId: 'treasury', revision: 1, updatedAt: iso });
    expect(await trpcFailure(a.developer.scopes.bindWallet.mutate({ ...at, expectedRevision: 0, authorizationScopeId: 'other' }))).toMatchObject({
      status: 409,
      body: { code: 'CONFLICT', currentRevision: 1 },
    });
    expect(await trpcFailure(a.support.scopes.bindWallet.mutate({ ...at, expectedRevision: 1, authorizationScopeId: null }))).toEqual(READ_ONLY);
    expect((await a.support.scopes.ids.query(here())).scopeIds).toContain('treasury');
    expect((await rest('GET', walletScopePath(wallet.id))).body).toEqual(bound);

    const query = `query($id: ID!, $projectId: ID!) {
      wallet(id: $id) { authorizationScope { environment authorizationScopeId revision updatedAt updatedBy { type id } } }
      authorizationScopeMembers(projectId: $projectId, scopeId: "treasury") { authorizationScopeId members { userId } nextCursor }
    }`;
    const seen = await graphql(app, a.cookies.support, query, { id: wallet.id, projectId: a.key.projectId });
    expect(seen.body.errors).toBeUndefined();
    expect(seen.body.data).toEqual({
      wallet: { authorizationScope: { environment: 'development', authorizationScopeId: 'treasury', revision: 1, updatedAt: bound.updatedAt, updatedBy: { type: 'staff', id: staff.owner } } },
      authorizationScopeMembers: { authorizationScopeId: 'treasury', members: [], nextCursor: null },
    });
    // Another partner: the wallet and the project are the 404 of missing ones.
    const foreignWallet = await graphql(app, b.cookies.support, '{ wallet(id: "' + wallet.id + '") { authorizationScope { revision } } }');
    expect(foreignWallet.body.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([['NOT_FOUND', 'Wallet not found']]);
    const foreignMembers = await graphql(app, b.cookies.support, `{ authorizationScopeMembers(projectId: "${a.key.projectId}", scopeId: "treasury") { authorizationScopeId } }`);
    expect(foreignMembers.body.errors?.map((e) => [e.extensions?.code, e.message])).toEqual([['NOT_FOUND', 'Project not found']]);

    const unbound = await a.developer.scopes.bindWallet.mutate({ ...at, expectedRevision: 1, authorizationScopeId: null });
    expect(unbound).toMatchObject({ authorizationScopeId: null, revision: 2 });
    expect((await a.support.scopes.ids.query(here())).scopeIds).not.toContain('treasury');
    const history = await a.support.scopes.walletScopeHistory.query(at);
    expect(history.data.map((h) => [h.revision, h.authorizationScopeId, h.createdBy])).toEqual([
      [2, null, { type: 'staff', id: staff.developer }],
      [1, 'treasury', { type: 'staff', id: staff.owner }],
    ]);
    expect(await trpcFailure(b.owner.scopes.walletScope.query(at))).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'Wallet not found' } });
    expect(await trpcFailure(b.owner.scopes.walletScopeHistory.query(at))).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'Wallet not found' } });
    expect(await trpcFailure(b.owner.scopes.bindWallet.mutate({ ...at, expectedRevision: 2, authorizationScopeId: 'x' }))).toMatchObject({ status: 404 });
    const audit = await app.database.prisma.auditLog.findMany({ where: { walletId: wallet.id, action: 'wallet.authorization_scope.set' }, orderBy: { id: 'asc' } });
    expect(audit.map((row) => (row.details as { actor: unknown }).actor)).toEqual([{ type: 'staff', id: staff.owner }, { type: 'staff', id: staff.developer }]);
  });
});
