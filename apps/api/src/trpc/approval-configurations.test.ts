import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalsProject, configurationPath, decide, evmApprovalsRequirement, FINANCE_APPROVALS, LARGE, partnerReviewPolicy, reviewPath, storeApprovalPolicy, twoStagePolicy } from '../testing/approval-fixtures.ts';
import { consolePartner, restWallet } from '../testing/console-fixtures.ts';
import { DEAD, EVM_CHAIN, EVM_FEES } from '../testing/policy-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { trpcFailure } from '../testing/staff-client.ts';


const KEY = FINANCE_APPROVALS;
const READ_ONLY = { status: 403, body: { code: 'FORBIDDEN', message: 'Support staff have read-only access' } };
const UNAVAILABLE = { status: 403, body: { code: 'PERMISSIONS_V2_EXTENSION_UNAVAILABLE', message: expect.stringContaining('not enabled') } };
const NOT_PROJECT = { status: 404, body: { code: 'NOT_FOUND', message: 'Project not found' } };
const OWNERS_ONLY = { status: 403, body: { code: 'FORBIDDEN', message: 'Only owners may approve or reject partner reviews' } };
const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const requirement = evmApprovalsRequirement;
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
        stages: [{ id: 'finance', eligibility: { roles: ['finance'], attributes: {} }, requiredApprovals: 3 }],
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

    /** The "Reviews & cases" page's procedures, on a project of partner a with a two-stage policy. */
    describe('approval cases', () => {
      let p: Awaited<ReturnType<typeof approvalsProject>>;
      /** Oldest first: rejected after a completed stage, then two pending ones. */
      const ids: string[] = [];
      const users = { finance1: '', finance2: '', executive: '' };

      beforeAll(async () => {
        p = await approvalsProject(app, { partner: a.partner, policy: twoStagePolicy() });
        // Members first: an assignment write invalidates the scope's open cases.
        users.finance1 = await p.member(['finance']);
        users.finance2 = await p.member(['finance']);
        users.executive = await p.member(['executive']);
        for (let i = 0; i < 3; i++) {
          const opened = await p.sign(LARGE, { 'Idempotency-Key': `console-${i}` }, {}, i);
          expect(opened.body.code, JSON.stringify(opened.body)).toBe('POLICY_REVIEW_REQUIRED');
          ids.push(opened.body.caseId);
          await new Promise((resolve) => setTimeout(resolve, 5)); // distinct createdAt: the list's order is the test's
        }
        for (const [verb, user] of [['approve', users.finance1], ['approve', users.finance2], ['reject', users.executive]] as const) {
          expect((await decide(app, verb, ids[0]!, user)).ok).toBe(true);
        }
      });

      const where = () => ({ projectId: p.projectId, environment: 'development' as const });
      const caseAt = (caseId: string) => ({ ...where(), caseId });

      it('every role lists the cases newest first, by status and wallet, in pages; one case is the REST view with its location', async () => {
        const all = await a.support.approvalCases.list.query({ ...where() });
        expect(all.data.map((c) => c.caseId)).toEqual([...ids].reverse());
        expect(all.nextCursor).toBeNull();
        expect(all.data.map((c) => c.status)).toEqual(['pending', 'pending', 'rejected']);

        const page1 = await a.developer.approvalCases.list.query({ ...where(), limit: 2 });
        expect(page1.data.map((c) => c.caseId)).toEqual([ids[2], ids[1]]);
        const page2 = await a.developer.approvalCases.list.query({ ...where(), limit: 2, cursor: page1.nextCursor!, direction: 'forward' }); // infinite queries send direction
        expect(page2).toMatchObject({ data: [{ caseId: ids[0] }], nextCursor: null });
        expect((await a.owner.approvalCases.list.query({ ...where(), status: 'rejected' })).data.map((c) => c.caseId)).toEqual([ids[0]]);
        expect((await a.owner.approvalCases.list.query({ ...where(), walletId: randomUUID() })).data).toEqual([]);
        expect((await a.owner.approvalCases.list.query({ ...where(), walletId: p.wallet.id })).data).toHaveLength(3);
        expect((await a.owner.approvalCases.list.query({ ...where(), environment: 'production' })).data).toEqual([]);

        const rejected = await a.support.approvalCases.get.query(caseAt(ids[0]!));
        const rest = await p.getCase(ids[0]!);
        expect(rejected).toEqual({ ...rest.body, projectId: p.projectId, environment: 'development' });
        expect(rejected).toMatchObject({
          status: 'rejected',
          request: { action: 'wallet.sign.sign-transaction', chain: { walletType: 'EVM', chainId: '84532' }, transfer: { value: LARGE } },
          stages: [
            { id: 'finance', roles: ['finance'], requiredApprovals: 2, approvals: [{ userId: users.finance1, at: iso }, { userId: users.finance2, at: iso }], completedAt: iso },
            { id: 'executive', roles: ['executive'], requiredApprovals: 1, approvals: [], completedAt: null },
          ],
          rejectedBy: { userId: users.executive, stageId: 'executive', at: iso },
          rejectedAt: iso,
        });

        expect(await trpcFailure(a.owner.approvalCases.list.query({ ...where(), cursor: 'nope' }))).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
        expect(await trpcFailure(a.owner.approvalCases.list.query({ ...where(), status: 'open' as never }))).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
      });

      it("cancels pending cases for owners and developers (audited with the staff member); support never; another partner's case is a missing one", async () => {
        expect(await trpcFailure(a.support.approvalCases.cancel.mutate(caseAt(ids[2]!)))).toEqual(READ_ONLY);
        const cancelled = await a.developer.approvalCases.cancel.mutate(caseAt(ids[2]!));
        expect(cancelled).toMatchObject({ caseId: ids[2], status: 'cancelled', terminalReason: 'case_cancelled', cancelledAt: iso, environment: 'development' });
        expect((await p.getCase(ids[2]!)).body.status).toBe('cancelled');
        expect(await trpcFailure(a.owner.approvalCases.cancel.mutate(caseAt(ids[2]!)))).toEqual({ status: 409, body: expect.objectContaining({ code: 'CONFLICT', status: 'cancelled' }) });
        expect(await trpcFailure(a.owner.approvalCases.cancel.mutate(caseAt(ids[0]!)))).toEqual({ status: 409, body: expect.objectContaining({ code: 'CONFLICT', status: 'rejected' }) });
        const developer = (await a.developer.auth.me.query())!.staffId;
        const audit = await app.database.prisma.auditLog.findMany({ where: { projectId: p.projectId, action: 'approval_case.cancel' } });
        expect(audit).toEqual([
          expect.objectContaining({ walletId: p.wallet.id, apiKeyId: null, details: { environment: 'development', caseId: ids[2], actor: { type: 'staff', id: developer } } }),
        ]);

        // The other partner: its project id is a missing project; the case in our project, from theirs, a missing case.
        const notProject = { status: 404, body: { code: 'NOT_FOUND', message: 'Project not found' } };
        expect(await trpcFailure(b.owner.approvalCases.get.query(caseAt(ids[1]!)))).toEqual(notProject);
        expect(await trpcFailure(b.owner.approvalCases.cancel.mutate(caseAt(ids[1]!)))).toEqual(notProject);
        expect(await trpcFailure(b.owner.approvalCases.list.query({ ...where() }))).toEqual(notProject);
        const own = { projectId: b.key.projectId, environment: 'development' as const };
        const foreign = await trpcFailure(b.owner.approvalCases.get.query({ ...own, caseId: ids[1]! }));
        expect(foreign).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'Approval case not found' } });
        expect(await trpcFailure(b.owner.approvalCases.get.query({ ...own, caseId: randomUUID() }))).toEqual(foreign);
        expect(await trpcFailure(b.owner.approvalCases.cancel.mutate({ ...own, caseId: ids[1]! }))).toEqual(foreign);
        expect((await p.getCase(ids[1]!)).body.status).toBe('pending');
      });
    });

    /**
     * The page's partner review queue, on a project of partner a of its own (the cases' project has
     * conditional rules) whose policy asks the app to review large values.
     */
    describe('partner reviews', () => {
      let p: { projectId: string; apiKey: string; wallet: { id: string } };
      /** Oldest first, each its own Idempotency-Key (`review-<i>`) and nonce. */
      const ids: string[] = [];
      const sign = (i: number) =>
        app.request('POST', `/v1/wallets/${p.wallet.id}/sign-transaction`, {
          key: p.apiKey,
          body: { transaction: { to: DEAD, value: LARGE, chainId: EVM_CHAIN, type: 2, nonce: i, ...EVM_FEES } },
          headers: { 'Idempotency-Key': `review-${i}` },
        });
      const getReview = (reviewId: string) => app.request('GET', reviewPath(reviewId), { key: p.apiKey });
      const signatures = () => app.database.prisma.auditLog.count({ where: { walletId: p.wallet.id, action: { startsWith: 'wallet.sign' } } });

      beforeAll(async () => {
        const issued = await app.createKey({ partner: a.partner, project: 'reviews' });
        await app.services.policies.apply(await app.services.policies.operatorScope(issued.projectId, 'development'), partnerReviewPolicy());
        p = { projectId: issued.projectId, apiKey: issued.apiKey, wallet: await restWallet(app, issued.apiKey) };
        for (let i = 0; i < 3; i++) {
          const opened = await sign(i);
          expect(opened.body.code, JSON.stringify(opened.body)).toBe('POLICY_REVIEW_REQUIRED');
          ids.push(opened.body.reviewId);
          await new Promise((resolve) => setTimeout(resolve, 5)); // distinct createdAt: the list's order is the test's
        }
      });

      const where = () => ({ projectId: p.projectId, environment: 'development' as const });
      const reviewAt = (reviewId: string) => ({ ...where(), reviewId });
      const located = (body: unknown) => ({ ...(body as object), projectId: p.projectId, environment: 'development' });

      it('every role reads the pending queue; an owner approves as the staff member (audited), the identical REST resend signs; a repeat answers the final status', async () => {
        const queue = await a.support.partnerReviews.list.query(where());
        expect(queue.data.map((r) => [r.reviewId, r.status])).toEqual([...ids].reverse().map((id) => [id, 'pending']));
        expect(queue.data[0]).toEqual(located((await getReview(ids[2]!)).body));
        const page = await a.developer.partnerReviews.list.query({ ...where(), limit: 2 });
        expect(page.data.map((r) => r.reviewId)).toEqual([ids[2], ids[1]]);
        // infinite queries send direction
        expect(await a.developer.partnerReviews.list.query({ ...where(), limit: 2, cursor: page.nextCursor!, direction: 'forward' })).toMatchObject({ data: [{ reviewId: ids[0] }], nextCursor: null });

        const approved = await a.owner.partnerReviews.approve.mutate(reviewAt(ids[0]!));
        expect(approved).toMatchObject({ reviewId: ids[0], status: 'approved', caseStatus: 'completed', approvedAt: iso, decidedBy: { type: 'staff', id: staff.owner }, environment: 'development' });
        expect(approved).toEqual(located((await getReview(ids[0]!)).body));
        // The case view names the decision too (the case detail shows it).
        expect((await a.support.approvalCases.get.query({ ...where(), caseId: ids[0]! })).partnerReview).toEqual({ decision: 'approve', decidedAt: approved.approvedAt, decidedBy: { type: 'staff', id: staff.owner } });
        const audit = await app.database.prisma.auditLog.findMany({ where: { projectId: p.projectId, action: { startsWith: 'partner_review.' } } });
        expect(audit).toEqual([
          expect.objectContaining({ action: 'partner_review.approve', apiKeyId: null, walletId: p.wallet.id, details: expect.objectContaining({ reviewId: ids[0], actor: { type: 'staff', id: staff.owner } }) }),
        ]);

        const resent = await sign(0);
        expect(resent.status, JSON.stringify(resent.body)).toBe(200);
        expect(resent.body.signedTransaction).toMatch(/^0x02/);
        expect(await signatures()).toBe(1);
        // Decided and consumed: a second approve or a reject changes nothing and answers the final status.
        expect(await a.owner.partnerReviews.reject.mutate(reviewAt(ids[0]!))).toMatchObject({ status: 'consumed', decidedBy: { type: 'staff', id: staff.owner } });
        expect((await a.support.partnerReviews.list.query(where())).data.map((r) => r.reviewId)).toEqual([ids[2], ids[1]]);
        expect((await a.support.partnerReviews.list.query({ ...where(), status: 'consumed' })).data.map((r) => r.reviewId)).toEqual([ids[0]]);
        expect(await trpcFailure(a.owner.partnerReviews.list.query({ ...where(), cursor: 'nope' }))).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
      });

      it("an owner rejects (the resend is review-rejected); developers and support never decide; another partner's project or review is a missing one", async () => {
        for (const who of [a.developer, a.support]) {
          expect(await trpcFailure(who.partnerReviews.approve.mutate(reviewAt(ids[1]!)))).toEqual(OWNERS_ONLY);
          expect(await trpcFailure(who.partnerReviews.reject.mutate(reviewAt(ids[1]!)))).toEqual(OWNERS_ONLY);
        }
        expect((await getReview(ids[1]!)).body).toMatchObject({ status: 'pending', decidedBy: null });

        const rejected = await a.owner.partnerReviews.reject.mutate(reviewAt(ids[1]!));
        expect(rejected).toMatchObject({ status: 'rejected', caseStatus: 'rejected', terminalReason: 'review_rejected', rejectedAt: iso, approvedAt: null, decidedBy: { type: 'staff', id: staff.owner } });
        expect(await a.owner.partnerReviews.approve.mutate(reviewAt(ids[1]!))).toEqual(rejected);
        const resend = await sign(1);
        expect(resend).toMatchObject({ status: 403, body: { code: 'POLICY_DENIED', deniedBy: [{ reason: 'review-rejected', caseId: ids[1] }] } });
        const audit = await app.database.prisma.auditLog.findMany({ where: { projectId: p.projectId, action: 'partner_review.reject' } });
        expect(audit).toEqual([expect.objectContaining({ apiKeyId: null, details: expect.objectContaining({ reviewId: ids[1], actor: { type: 'staff', id: staff.owner } }) })]);

        expect(await trpcFailure(b.owner.partnerReviews.list.query(where()))).toEqual(NOT_PROJECT);
        expect(await trpcFailure(b.owner.partnerReviews.approve.mutate(reviewAt(ids[2]!)))).toEqual(NOT_PROJECT);
        const own = { projectId: b.key.projectId, environment: 'development' as const };
        const missing = await trpcFailure(b.owner.partnerReviews.get.query({ ...own, reviewId: randomUUID() }));
        expect(missing).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'Review not found' } });
        expect(await trpcFailure(b.owner.partnerReviews.approve.mutate({ ...own, reviewId: ids[2]! }))).toEqual(missing);
        expect(await trpcFailure(b.owner.partnerReviews.reject.mutate({ ...own, reviewId: ids[2]! }))).toEqual(missing);
        expect((await b.owner.partnerReviews.list.query(own)).data).toEqual([]);
        expect((await getReview(ids[2]!)).body.status).toBe('pending');
        expect(await signatures()).toBe(1);
      });
    });
  });
});
