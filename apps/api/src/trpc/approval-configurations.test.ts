import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { configurationPath, storeApprovalPolicy } from '../testing/approval-fixtures.ts';
import { consolePartner } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { trpcFailure } from '../testing/staff-client.ts';


const KEY = 'finance.requiredApprovals';
const READ_ONLY = { status: 403, body: { code: 'FORBIDDEN', message: 'Support staff have read-only access' } };
const UNAVAILABLE = { status: 403, body: { code: 'PERMISSIONS_V2_EXTENSION_UNAVAILABLE', message: expect.stringContaining('not enabled') } };
const NOT_PROJECT = { status: 404, body: { code: 'NOT_FOUND', message: 'Project not found' } };
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const requirement = {
  policyId: 'evm-approvals',
  policyVersion: '1',
  ruleId: 'large',
  requirementId: 'finance-approval',
  stages: [{ id: 'finance', eligibility: { roles: ['finance'] }, requiredApprovals: 1 }],
  configurable: [{ key: KEY, min: 1, max: 3, default: 1 }],
};
const ref = { policyId: 'evm-approvals', policyVersion: '1', requirementId: 'finance-approval' };

describe.concurrent.each(testDatabaseKinds)('console approval configurations over tRPC (%s)', (kind) => {
  // The two database kinds side by side (partners of their own); each kind's tests in order.
  describe.sequential(`${kind}: one test at a time`, () => {
    let app: TestApp;
    let a: Awaited<ReturnType<typeof consolePartner>>;
    let b: Awaited<ReturnType<typeof consolePartner<'owner'>>>;
    const staff = { owner: '', developer: '' };

    beforeAll(async () => {
      app = await startTestApp(kind);
      // The other partner needs one signed-in owner (each sign-in hashes a password).
      [a, b] = await Promise.all([consolePartner(app), consolePartner(app, [], ['owner'])]);
      staff.owner = (await a.owner.auth.me.query())!.staffId;
      staff.developer = (await a.developer.auth.me.query())!.staffId;
      await storeApprovalPolicy(app, { projectId: a.key.projectId, environment: 'development' });
    });
    afterAll(async () => {
      await app?.close();
    });

    const here = (scopeId = 'acme:org.1') => ({ projectId: a.key.projectId, environment: 'development' as const, scopeId });
    const at = (scopeId = 'acme:org.1') => ({ ...here(scopeId), ...ref });
    const rest = (path: string) => app.request('GET', path, { key: a.key.apiKey });

    it('every role reads the requirements, effective values and history; writes wait for the extension; support never writes', async () => {
      expect(await a.support.approvalConfigurations.requirements.query(here())).toEqual({ requirements: [requirement] });
      // Production has no approval policy.
      expect(await a.support.approvalConfigurations.requirements.query({ ...here(), environment: 'production' })).toEqual({ requirements: [] });
      expect(await a.support.approvalConfigurations.effective.query(at())).toEqual({ authorizationScopeId: 'acme:org.1', ...requirement, values: { [KEY]: 1 }, configuration: null });
      expect(await a.support.approvalConfigurations.history.query(at())).toEqual({ data: [], pagination: { cursor: null, hasMore: false, limit: 50 } });

      expect(await trpcFailure(a.owner.approvalConfigurations.save.mutate({ ...at(), expectedRevision: 0, values: { [KEY]: 2 } }))).toEqual(UNAVAILABLE);
      await a.owner.scopes.setExtension.mutate({ projectId: a.key.projectId, environment: 'development', enabled: true });
      expect(await trpcFailure(a.support.approvalConfigurations.save.mutate({ ...at(), expectedRevision: 0, values: { [KEY]: 2 } }))).toEqual(READ_ONLY);
      // The REST rules as they are: bounds, undeclared keys, scope id pattern, unknown requirement.
      expect(await trpcFailure(a.owner.approvalConfigurations.save.mutate({ ...at(), expectedRevision: 0, values: { [KEY]: 4 } }))).toMatchObject({
        status: 400,
        body: { code: 'INVALID_REQUEST', details: [{ path: `values.${KEY}`, message: expect.any(String) }] },
      });
      expect(await trpcFailure(a.owner.approvalConfigurations.save.mutate({ ...at(), expectedRevision: 0, values: { 'other.requiredApprovals': 1 } }))).toMatchObject({ status: 400 });
      expect(await trpcFailure(a.owner.approvalConfigurations.requirements.query(here('has space')))).toMatchObject({ status: 400, body: { details: [{ path: 'authorizationScopeId' }] } });
      expect(await trpcFailure(a.owner.approvalConfigurations.effective.query({ ...at(), requirementId: 'nope' }))).toEqual({
        status: 404,
        body: { code: 'NOT_FOUND', message: 'Approval requirement not found' },
      });
      expect(await a.support.approvalConfigurations.history.query(at())).toMatchObject({ data: [] });
    });

    it('owners and developers save with the revision shown (stale = 409 with currentRevision), reset with {}; audit names the staff member; REST reads the same', async () => {
      const first = await a.owner.approvalConfigurations.save.mutate({ ...at(), expectedRevision: 0, values: { [KEY]: 2 } });
      expect(first).toEqual({ authorizationScopeId: 'acme:org.1', ...ref, revision: 1, values: { [KEY]: 2 }, updatedAt: iso, updatedBy: { type: 'staff', id: staff.owner }, invalidatedCaseIds: [] });
      // The developer's form still shows revision 0: refused, nothing written, the current revision named.
      const stale = await trpcFailure(a.developer.approvalConfigurations.save.mutate({ ...at(), expectedRevision: 0, values: { [KEY]: 3 } }));
      expect(stale).toEqual({ status: 409, body: { code: 'CONFLICT', message: expect.stringContaining('not the current revision 1'), currentRevision: 1 } });
      const second = await a.developer.approvalConfigurations.save.mutate({ ...at(), expectedRevision: 1, values: { [KEY]: 3 } });
      expect(second).toMatchObject({ revision: 2, values: { [KEY]: 3 }, updatedBy: { type: 'staff', id: staff.developer } });

      const effective = await a.support.approvalConfigurations.effective.query(at());
      expect(effective).toEqual({
        authorizationScopeId: 'acme:org.1',
        ...requirement,
        stages: [{ id: 'finance', eligibility: { roles: ['finance'] }, requiredApprovals: 3 }],
        values: { [KEY]: 3 },
        configuration: { revision: 2, values: { [KEY]: 3 }, updatedAt: second.updatedAt, updatedBy: { type: 'staff', id: staff.developer } },
      });
      // Another scope keeps the defaults.
      expect((await a.support.approvalConfigurations.effective.query(at('acme:org.2'))).configuration).toBeNull();

      const reset = await a.owner.approvalConfigurations.save.mutate({ ...at(), expectedRevision: 2, values: {} });
      expect(reset).toMatchObject({ revision: 3, values: {} });
      expect((await a.support.approvalConfigurations.effective.query(at())).values).toEqual({ [KEY]: 1 });

      const history = await a.support.approvalConfigurations.history.query(at());
      expect(history.data.map((h) => [h.revision, h.values, h.createdBy])).toEqual([
        [3, {}, { type: 'staff', id: staff.owner }],
        [2, { [KEY]: 3 }, { type: 'staff', id: staff.developer }],
        [1, { [KEY]: 2 }, { type: 'staff', id: staff.owner }],
      ]);
      const page = await a.support.approvalConfigurations.history.query({ ...at(), limit: 2 });
      expect(page.pagination).toEqual({ cursor: expect.any(String), hasMore: true, limit: 2 });
      expect((await a.support.approvalConfigurations.history.query({ ...at(), limit: 2, cursor: page.pagination.cursor! })).data.map((h) => h.revision)).toEqual([1]);

      // The partner's REST routes read what the console wrote, with the staff member as the writer.
      const path = configurationPath('acme:org.1');
      expect((await rest(`${path}/history`)).body).toEqual(history);
      expect((await rest(`${path}/effective`)).body).toEqual(await a.support.approvalConfigurations.effective.query(at()));
      expect((await rest(path)).body).toMatchObject({ revision: 3, values: {}, updatedBy: { type: 'staff', id: staff.owner } });

      const audit = await app.database.prisma.auditLog.findMany({ where: { projectId: a.key.projectId, action: { startsWith: 'approval_configuration.' } }, orderBy: { id: 'asc' } });
      expect(audit.map((row) => [row.action, row.apiKeyId, (row.details as { actor: unknown; revision: number; force: boolean }).actor, (row.details as { revision: number }).revision])).toEqual([
        ['approval_configuration.update', null, { type: 'staff', id: staff.owner }, 1],
        ['approval_configuration.update', null, { type: 'staff', id: staff.developer }, 2],
        ['approval_configuration.reset', null, { type: 'staff', id: staff.owner }, 3],
      ]);
    });

    it("another partner's project is the 404 of a missing one; its own project has no such requirement", async () => {
      expect(await trpcFailure(b.owner.approvalConfigurations.requirements.query(here()))).toEqual(NOT_PROJECT);
      expect(await trpcFailure(b.owner.approvalConfigurations.effective.query(at()))).toEqual(NOT_PROJECT);
      expect(await trpcFailure(b.owner.approvalConfigurations.history.query(at()))).toEqual(NOT_PROJECT);
      expect(await trpcFailure(b.owner.approvalConfigurations.save.mutate({ ...at(), expectedRevision: 3, values: {} }))).toEqual(NOT_PROJECT);
      expect(await trpcFailure(a.owner.approvalConfigurations.requirements.query({ ...here(), projectId: 'not-a-uuid' }))).toEqual(NOT_PROJECT);
      const own = { ...at(), projectId: b.key.projectId };
      expect(await b.owner.approvalConfigurations.requirements.query({ ...here(), projectId: b.key.projectId })).toEqual({ requirements: [] });
      expect(await trpcFailure(b.owner.approvalConfigurations.effective.query(own))).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'Approval requirement not found' } });
      // a's configuration is untouched.
      expect((await a.support.approvalConfigurations.effective.query(at())).configuration).toMatchObject({ revision: 3 });
    });
  });
});
