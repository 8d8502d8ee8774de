import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalProject, approvalsProject, configurationPath, evmApprovalsRequirement, FINANCE_APPROVALS, LARGE, requirementPath, requirementsPath, type ApprovalProject } from '../testing/approval-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { examplePolicy } from '../testing/policy-fixtures.ts';

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const KEY = FINANCE_APPROVALS;
const requirement = evmApprovalsRequirement;
const missingRequirement = { code: 'NOT_FOUND', message: 'Approval requirement not found' };
const missingConfiguration = { code: 'NOT_FOUND', message: 'Approval configuration not found' };
const unavailable = { code: 'PERMISSIONS_V2_EXTENSION_UNAVAILABLE', message: expect.stringContaining('not enabled') };
const revisions = (body: { data: Array<{ revision: number }> }) => body.data.map((r) => r.revision);

describe.concurrent.each(testDatabaseKinds)('approval requirement configuration over HTTP (%s)', (kind) => {
  // The two database kinds side by side (projects of their own); each kind's tests in order.
  describe.sequential(`${kind}: one test at a time`, () => {
    let app: TestApp;
    let project: ApprovalProject;
    let by: { type: string; id: string };

    beforeAll(async () => {
      app = await startTestApp(kind);
      project = await approvalProject(app);
      by = { type: 'api_key', id: project.apiKeyId };
      await project.enable();
      await project.storeApproval();
      // A guardrail without approval rules has no requirement to list.
      await project.apply(examplePolicy('evm-guardrails.json'));
    });
    afterAll(async () => {
      await app?.close();
    });

    it('lists the requirements of the active policies and answers one; unknown policy, version, requirement and another partner are the same 404', async () => {
      const list = await project.get(requirementsPath('org-1'));
      expect(list.status).toBe(200);
      expect(list.body).toEqual({ requirements: [requirement] });
      const one = await project.get(requirementPath('org-1'));
      expect(one.status).toBe(200);
      expect(one.body).toEqual(requirement);

      const stranger = await approvalProject(app);
      await stranger.enable();
      for (const [who, path] of [
        [project, requirementPath('org-1', 'no-such-policy')],
        [project, requirementPath('org-1', 'evm-approvals', '2')],
        [project, requirementPath('org-1', 'evm-approvals', 'one')],
        [project, requirementPath('org-1', 'evm-approvals', '1', 'no-such-requirement')],
        [project, requirementPath('org-1', 'evm-guardrails', '1', 'finance-approval')],
        [stranger, requirementPath('org-1')],
      ] as const) {
        for (const suffix of ['', '/configuration', '/configuration/effective', '/configuration/history']) {
          const response = await who.get(`${path}${suffix}`);
          expect(response.status, `${path}${suffix}`).toBe(404);
          expect(response.body).toEqual(missingRequirement);
        }
        const put = await who.put(`${path}/configuration`, { expectedRevision: 0, values: {} });
        expect(put.status).toBe(404);
        expect(put.body).toEqual(missingRequirement);
      }
      expect((await stranger.get(requirementsPath('org-1'))).body).toEqual({ requirements: [] });
      for (const response of [await project.get(requirementsPath('has space')), await project.get(requirementPath('x'.repeat(129)))]) {
        expect(response.status).toBe(400);
        expect(response.body.details).toEqual([{ path: 'authorizationScopeId', message: expect.any(String) }]);
      }
    });

    it('has no configuration before the first write, takes the README body, resets with {}, and shows the effective values each time', async () => {
      const path = configurationPath('acme:org.1');
      expect((await project.get(path)).body).toEqual(missingConfiguration);
      expect((await project.get(`${path}/history`)).body).toEqual({ data: [], pagination: { cursor: null, hasMore: false, limit: 50 } });
      const defaults = await project.get(`${path}/effective`);
      expect(defaults.status).toBe(200);
      expect(defaults.body).toEqual({ authorizationScopeId: 'acme:org.1', ...requirement, values: { [KEY]: 1 }, configuration: null });
      expect(await app.services.stores.approvalConfigurations.configuredValues(project, 'acme:org.1', 'evm-approvals', 1, 'finance-approval')).toBeNull();

      const written = await project.put(path, { expectedRevision: 0, values: { 'finance.requiredApprovals': 2 } });
      expect(written.status).toBe(200);
      const stored = { authorizationScopeId: 'acme:org.1', policyId: 'evm-approvals', policyVersion: '1', requirementId: 'finance-approval', revision: 1, values: { [KEY]: 2 }, updatedAt: iso, updatedBy: by };
      expect(written.body).toEqual({ ...stored, invalidatedCaseIds: [] });
      expect((await project.get(path)).body).toEqual({ ...stored, updatedAt: written.body.updatedAt });
      expect((await project.get(`${path}/effective`)).body).toEqual({
        authorizationScopeId: 'acme:org.1',
        ...requirement,
        stages: [{ id: 'finance', eligibility: { roles: ['finance'], attributes: {} }, requiredApprovals: 2 }],
        values: { [KEY]: 2 },
        configuration: { revision: 1, values: { [KEY]: 2 }, updatedAt: written.body.updatedAt, updatedBy: by },
      });
      // The requirement itself keeps showing the policy's defaults; another scope is not configured.
      expect((await project.get(requirementPath('acme:org.1'))).body).toEqual(requirement);
      expect((await project.get(`${configurationPath('acme:org.2')}/effective`)).body.configuration).toBeNull();
      expect(await app.services.stores.approvalConfigurations.configuredValues(project, 'acme:org.1', 'evm-approvals', 1, 'finance-approval')).toEqual({ [KEY]: 2 });

      const third = await project.put(path, { expectedRevision: 1, values: { [KEY]: 3 } });
      expect(third.body).toMatchObject({ revision: 2, values: { [KEY]: 3 } });
      const reset = await project.put(path, { expectedRevision: 2, values: {} });
      expect(reset.status).toBe(200);
      expect(reset.body).toMatchObject({ revision: 3, values: {}, invalidatedCaseIds: [] });
      const effective = (await project.get(`${path}/effective`)).body;
      expect(effective.stages[0].requiredApprovals).toBe(1);
      expect(effective.values).toEqual({ [KEY]: 1 });
      expect(effective.configuration).toEqual({ revision: 3, values: {}, updatedAt: iso, updatedBy: by });
      expect(await app.services.stores.approvalConfigurations.configuredValues(project, 'acme:org.1', 'evm-approvals', 1, 'finance-approval')).toEqual({});

      const history = await project.get(`${path}/history`);
      expect(history.body).toEqual({
        data: [
          { revision: 3, values: {}, createdAt: iso, createdBy: by, requestId: expect.any(String) },
          { revision: 2, values: { [KEY]: 3 }, createdAt: iso, createdBy: by, requestId: expect.any(String) },
          { revision: 1, values: { [KEY]: 2 }, createdAt: written.body.updatedAt, createdBy: by, requestId: expect.any(String) },
        ],
        pagination: { cursor: null, hasMore: false, limit: 50 },
      });
      const page1 = await project.get(`${path}/history?limit=2`);
      expect(revisions(page1.body)).toEqual([3, 2]);
      expect(page1.body.pagination).toEqual({ cursor: expect.any(String), hasMore: true, limit: 2 });
      const page2 = await project.get(`${path}/history?limit=2&cursor=${page1.body.pagination.cursor}`);
      expect(revisions(page2.body)).toEqual([1]);
      expect(page2.body.pagination).toEqual({ cursor: null, hasMore: false, limit: 2 });
      for (const query of ['cursor=nope', 'limit=0', 'limit=101', 'extra=1']) expect((await project.get(`${path}/history?${query}`)).status).toBe(400);

      const audit = await app.database.prisma.auditLog.findMany({ where: { projectId: project.projectId, action: { startsWith: 'approval_configuration.' } }, orderBy: { id: 'asc' } });
      const mine = audit.filter((a) => (a.details as { authorizationScopeId: string }).authorizationScopeId === 'acme:org.1');
      expect(mine.map((a) => [a.action, a.apiKeyId, (a.details as { revision: number }).revision])).toEqual([
        ['approval_configuration.update', project.apiKeyId, 1],
        ['approval_configuration.update', project.apiKeyId, 2],
        ['approval_configuration.reset', project.apiKeyId, 3],
      ]);
    });

    it('refuses undeclared keys, values outside 1..3, non-integers and other body shapes with 400, writing nothing', async () => {
      const path = configurationPath('org-valid');
      const bounds = 'expected an integer from 1 to 3';
      const cases: Array<[unknown, Array<{ path: string; message?: string }>]> = [
        [{ expectedRevision: 0, values: { [KEY]: 0 } }, [{ path: `values.${KEY}`, message: bounds }]],
        [{ expectedRevision: 0, values: { [KEY]: 4 } }, [{ path: `values.${KEY}`, message: bounds }]],
        [{ expectedRevision: 0, values: { [KEY]: 1.5 } }, [{ path: `values.${KEY}`, message: bounds }]],
        [{ expectedRevision: 0, values: { [KEY]: '2' } }, [{ path: `values.${KEY}`, message: bounds }]],
        [{ expectedRevision: 0, values: { [KEY]: null } }, [{ path: `values.${KEY}`, message: bounds }]],
        [{ expectedRevision: 0, values: { 'finance.minApprovals': 2 } }, [{ path: 'values.finance.minApprovals', message: `not a configurable value of this requirement (declared: ${KEY})` }]],
        [{ expectedRevision: 0, values: { requiredApprovals: 2, [KEY]: 9 } }, [{ path: 'values.requiredApprovals' }, { path: `values.${KEY}`, message: bounds }]],
        [{ expectedRevision: 0, values: { [KEY]: 2 }, extra: true }, [{ path: '' }]],
        [{ expectedRevision: 0, values: { [KEY]: 2 }, force: 'yes' }, [{ path: 'force' }]],
        [{ expectedRevision: 0 }, [{ path: 'values' }]],
        [{ expectedRevision: 0, values: [2] }, [{ path: 'values' }]],
        [{ expectedRevision: '0', values: {} }, [{ path: 'expectedRevision' }]],
        [{ expectedRevision: -1, values: {} }, [{ path: 'expectedRevision' }]],
        [[], [{ path: '' }]],
      ];
      for (const [body, details] of cases) {
        const refused = await project.put(path, body);
        expect(refused.status, JSON.stringify(body)).toBe(400);
        expect(refused.body.code).toBe('INVALID_REQUEST');
        expect(refused.body.details, JSON.stringify(body)).toEqual(details.map((d) => (d.message ? d : { ...d, message: expect.any(String) })));
      }
      expect((await project.put(path, { expectedRevision: 0, values: { [KEY]: 4 } })).body.message).toBe(`Invalid request: values.${KEY}: ${bounds}`);
      expect((await project.get(path)).body).toEqual(missingConfiguration);
      expect((await project.get(`${path}/history`)).body.data).toEqual([]);
      // The bounds themselves are accepted.
      expect((await project.put(path, { expectedRevision: 0, values: { [KEY]: 1 } })).status).toBe(200);
      expect((await project.put(path, { expectedRevision: 1, values: { [KEY]: 3 } })).status).toBe(200);
    });

    it('refuses a stale, missing or future expectedRevision with 409 CONFLICT and the current revision, writing nothing', async () => {
      const path = configurationPath('org-conflicts');
      const early = await project.put(path, { expectedRevision: 1, values: { [KEY]: 2 } });
      expect(early.status).toBe(409);
      expect(early.body).toEqual({ code: 'CONFLICT', message: expect.stringContaining('current revision 0'), currentRevision: 0 });
      expect((await project.put(path, { expectedRevision: 0, values: { [KEY]: 2 } })).status).toBe(200);
      for (const body of [{ expectedRevision: 0, values: { [KEY]: 3 } }, { values: {} }, { expectedRevision: 5, values: {} }]) {
        const refused = await project.put(path, body);
        expect(refused.status, JSON.stringify(body)).toBe(409);
        expect(refused.body).toMatchObject({ code: 'CONFLICT', currentRevision: 1 });
      }
      expect((await project.get(path)).body).toMatchObject({ revision: 1, values: { [KEY]: 2 } });
      expect((await project.get(`${path}/history`)).body.data).toHaveLength(1);
    });

    it("lets exactly one of concurrent PUTs with the same expectedRevision win; the others get 409 with the winner's revision", async () => {
      const path = configurationPath('org-race');
      for (const expectedRevision of [0, 1]) {
        const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => project.put(path, { expectedRevision, values: { [KEY]: (i % 3) + 1 } })));
        const winners = answers.filter((a) => a.status === 200);
        expect(winners, JSON.stringify(answers.map((a) => a.body))).toHaveLength(1);
        for (const loser of answers.filter((a) => a.status !== 200)) {
          expect(loser.status).toBe(409);
          expect(loser.body).toMatchObject({ code: 'CONFLICT', currentRevision: expectedRevision + 1 });
        }
        const { invalidatedCaseIds: _, ...stored } = winners[0]!.body;
        expect((await project.get(path)).body).toEqual(stored);
      }
      expect(revisions((await project.get(`${path}/history`)).body)).toEqual([2, 1]);
    });

    it('replays a PUT resent with the same Idempotency-Key instead of answering 409', async () => {
      const path = configurationPath('org-idem');
      const key = { 'idempotency-key': randomUUID() };
      const body = { expectedRevision: 0, values: { [KEY]: 2 } };
      const first = await project.put(path, body, key);
      const again = await project.put(path, body, key);
      expect(first.status).toBe(200);
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body).toEqual(first.body);
      expect((await project.get(`${path}/history`)).body.data).toHaveLength(1);
    });

    it('answers PUT with 403 PERMISSIONS_V2_EXTENSION_UNAVAILABLE until the extension is enabled; reads stay open', async () => {
      const fresh = await approvalProject(app);
      await fresh.storeApproval();
      const path = configurationPath('org-gate');
      const refused = await fresh.put(path, { expectedRevision: 0, values: { [KEY]: 2 } });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual(unavailable);
      // Refused before anything else: a reset, an invalid body or an unknown requirement is the same 403.
      expect((await fresh.put(path, { expectedRevision: 0, values: {} })).body).toEqual(unavailable);
      expect((await fresh.put(path, { nonsense: true })).body).toEqual(unavailable);
      expect((await fresh.put(`${requirementPath('org-gate', 'nope')}/configuration`, {})).body).toEqual(unavailable);
      for (const read of [requirementsPath('org-gate'), requirementPath('org-gate'), `${path}/effective`, `${path}/history`]) expect((await fresh.get(read)).status, read).toBe(200);
      expect((await fresh.get(path)).status).toBe(404);

      await fresh.enable();
      expect((await fresh.put(path, { expectedRevision: 0, values: { [KEY]: 2 } })).status).toBe(200);
      await fresh.disable();
      expect((await fresh.put(path, { expectedRevision: 1, values: {} })).body).toEqual(unavailable);
      expect((await fresh.get(path)).body).toMatchObject({ revision: 1, values: { [KEY]: 2 } });
    });

    it('starts a new policy version from the defaults; the replaced version is no longer configurable but keeps its history', async () => {
      const versioned = await approvalProject(app);
      await versioned.enable();
      await versioned.storeApproval();
      expect((await versioned.put(configurationPath('org-v'), { expectedRevision: 0, values: { [KEY]: 3 } })).status).toBe(200);
      const next = await versioned.storeApproval();
      expect(next.version).toBe(2);

      expect((await versioned.get(requirementsPath('org-v'))).body).toEqual({ requirements: [{ ...requirement, policyVersion: '2' }] });
      expect((await versioned.get(configurationPath('org-v', '2'))).body).toEqual(missingConfiguration);
      const effective = (await versioned.get(`${configurationPath('org-v', '2')}/effective`)).body;
      expect(effective).toMatchObject({ policyVersion: '2', values: { [KEY]: 1 }, configuration: null });
      expect(effective.stages[0].requiredApprovals).toBe(1);

      expect((await versioned.get(requirementPath('org-v', 'evm-approvals', '1'))).body).toEqual(missingRequirement);
      expect((await versioned.get(`${configurationPath('org-v', '1')}/effective`)).body).toEqual(missingRequirement);
      expect((await versioned.put(configurationPath('org-v', '1'), { expectedRevision: 1, values: {} })).body).toEqual(missingRequirement);
      expect((await versioned.get(configurationPath('org-v', '1'))).body).toMatchObject({ policyVersion: '1', revision: 1, values: { [KEY]: 3 } });
      expect(revisions((await versioned.get(`${configurationPath('org-v', '1')}/history`)).body)).toEqual([1]);
      expect((await versioned.put(configurationPath('org-v', '2'), { expectedRevision: 0, values: { [KEY]: 2 } })).body).toMatchObject({ policyVersion: '2', revision: 1 });

      await versioned.deactivate('evm-approvals');
      expect((await versioned.get(requirementsPath('org-v'))).body).toEqual({ requirements: [] });
      expect((await versioned.get(requirementPath('org-v', 'evm-approvals', '2'))).body).toEqual(missingRequirement);
    });

    it('answers 409 APPROVAL_CASES_AFFECTED when open cases would change and changes nothing; force applies it and invalidates them', async () => {
      // Real cases: evm-approvals.json applied, a wallet bound to org-1, requests above 0.001 ETH.
      const cases = await approvalsProject(app);
      const path = configurationPath('org-1');
      expect((await cases.put(path, { expectedRevision: 0, values: { [KEY]: 2 } })).status).toBe(200);
      const opened: string[] = [];
      for (const [i, key] of ['cfg-a', 'cfg-b'].entries()) {
        const paused = await cases.sign(LARGE, { 'idempotency-key': `${key}-${randomUUID()}` }, {}, i);
        expect(paused.status, JSON.stringify(paused.body)).toBe(403);
        expect(paused.body.code).toBe('POLICY_REVIEW_REQUIRED');
        opened.push(paused.body.reviewId as string);
      }
      // The configured value is what the case needs.
      expect((await cases.getCase(opened[0]!)).body.stages[0]).toMatchObject({ id: 'finance', requiredApprovals: 2 });
      // A write that changes nothing a case sees goes through.
      expect((await cases.put(path, { expectedRevision: 1, values: { [KEY]: 2 } })).body).toMatchObject({ revision: 2, invalidatedCaseIds: [] });

      for (const values of [{ [KEY]: 3 }, {}]) {
        const refused = await cases.put(path, { expectedRevision: 2, values });
        expect(refused.status).toBe(409);
        expect(refused.body).toEqual({ code: 'APPROVAL_CASES_AFFECTED', message: expect.stringContaining('"force": true'), affectedCaseIds: opened });
        expect((await cases.put(path, { expectedRevision: 2, values, force: false })).body.code).toBe('APPROVAL_CASES_AFFECTED');
      }
      expect((await cases.get(path)).body).toMatchObject({ revision: 2, values: { [KEY]: 2 } });
      for (const id of opened) expect((await cases.getCase(id)).body.status).toBe('pending');
      // Another scope's configuration reaches none of them.
      expect((await cases.put(configurationPath('org-2'), { expectedRevision: 0, values: { [KEY]: 3 } })).body).toMatchObject({ revision: 1, invalidatedCaseIds: [] });

      // Invalidation commits with the write: when it fails, nothing is written and the cases stay open.
      const links = app.services.stores.approvalCaseLinks;
      const invalidate = links.invalidateCases;
      links.invalidateCases = async () => {
        throw new Error('invalidation failed');
      };
      try {
        expect((await cases.put(path, { expectedRevision: 2, values: { [KEY]: 3 }, force: true })).status).toBe(500);
      } finally {
        links.invalidateCases = invalidate;
      }
      expect((await cases.get(path)).body).toMatchObject({ revision: 2, values: { [KEY]: 2 } });
      expect(revisions((await cases.get(`${path}/history`)).body)).toEqual([2, 1]);

      const forced = await cases.put(path, { expectedRevision: 2, values: { [KEY]: 3 }, force: true });
      expect(forced.status).toBe(200);
      expect(forced.body).toMatchObject({ revision: 3, values: { [KEY]: 3 }, invalidatedCaseIds: opened });
      for (const id of opened) expect((await cases.getCase(id)).body).toMatchObject({ status: 'invalidated', terminalReason: 'configuration_changed', invalidatedAt: iso });
      // No case is open any more: the reset goes through.
      expect((await cases.put(path, { expectedRevision: 3, values: {} })).body).toMatchObject({ revision: 4, invalidatedCaseIds: [] });
      const audit = await app.database.prisma.auditLog.findFirst({ where: { projectId: cases.projectId, action: 'approval_configuration.update', requestId: { not: null } }, orderBy: { id: 'desc' } });
      expect(audit?.details).toMatchObject({ authorizationScopeId: 'org-1', revision: 3, force: true, invalidatedCaseIds: opened });
    });
  });
});
