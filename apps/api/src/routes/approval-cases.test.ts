import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalsProject, casePath, casesPath, decide, LARGE } from '../testing/approval-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { movableClock } from '../testing/monitor-fixtures.ts';
import { examplePolicy } from '../testing/policy-fixtures.ts';
import { walletScopePath } from '../testing/scope-fixtures.ts';

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const HOUR = 3_600_000;

/** The case routes (list, one, cancel) and how cases end without signing: expiry, invalidation, cancellation. */
describe.concurrent.each(testDatabaseKinds)('approval case routes and life cycle (%s)', (kind) => {
  describe.sequential(`${kind}: one test at a time`, () => {
    let app: TestApp;
    const clock = movableClock();

    beforeAll(async () => {
      app = await startTestApp(kind, { clock });
    });
    afterAll(async () => {
      await app?.close();
    });

    it('lists cases newest first with limit and beforeCaseId paging, filters by status and wallet, and refuses a bad limit or an unknown beforeCaseId', async () => {
      const p = await approvalsProject(app);
      const otherWallet = await p.newWallet('EVM');
      expect((await p.put(walletScopePath(otherWallet.id), { expectedRevision: 0, authorizationScopeId: 'org-1' })).status).toBe(200);
      const finance = await p.member(['finance']);
      const ids: string[] = [];
      for (let i = 0; i < 4; i++) {
        const opened = await p.sign(LARGE, { 'Idempotency-Key': `list-${i}` });
        ids.push(opened.body.caseId);
        clock.advance(10);
      }
      const onOther = await p.post(`/v1/wallets/${otherWallet.id}/sign-transaction`, { transaction: { to: otherWallet.address, value: LARGE, chainId: 84532, type: 2, nonce: 0, maxFeePerGas: '1', maxPriorityFeePerGas: '1', gasLimit: '21000' } }, { 'Idempotency-Key': 'list-other' });
      expect(onOther.body.code).toBe('POLICY_REVIEW_REQUIRED');
      expect((await decide(app, 'approve', ids[1]!, finance)).ok).toBe(true);

      const all = await p.get(casesPath);
      expect(all.status).toBe(200);
      expect(all.body.cases.map((c: { caseId: string }) => c.caseId)).toEqual([onOther.body.caseId, ...[...ids].reverse()]);
      expect(all.body.nextBeforeCaseId).toBeNull();

      const page1 = await p.get(`${casesPath}?limit=2`);
      expect(page1.body.cases.map((c: { caseId: string }) => c.caseId)).toEqual([onOther.body.caseId, ids[3]]);
      expect(page1.body.nextBeforeCaseId).toBe(ids[3]);
      const page2 = await p.get(`${casesPath}?limit=2&beforeCaseId=${page1.body.nextBeforeCaseId}`);
      expect(page2.body.cases.map((c: { caseId: string }) => c.caseId)).toEqual([ids[2], ids[1]]);
      const page3 = await p.get(`${casesPath}?limit=2&beforeCaseId=${page2.body.nextBeforeCaseId}`);
      expect(page3.body).toMatchObject({ cases: [{ caseId: ids[0] }], nextBeforeCaseId: null });

      expect((await p.get(`${casesPath}?status=completed`)).body.cases.map((c: { caseId: string }) => c.caseId)).toEqual([ids[1]]);
      expect((await p.get(`${casesPath}?walletId=${otherWallet.id}`)).body.cases.map((c: { caseId: string }) => c.caseId)).toEqual([onOther.body.caseId]);

      for (const query of ['limit=0', 'limit=101', 'limit=abc', `beforeCaseId=${crypto.randomUUID()}`, 'beforeCaseId=nope', 'status=open', 'extra=1']) {
        const refused = await p.get(`${casesPath}?${query}`);
        expect(refused.status, query).toBe(400);
        expect(refused.body.code).toBe('INVALID_REQUEST');
      }
      expect((await p.get(`${casesPath}?limit=100`)).status).toBe(200);

      // Another partner sees none of it: its list is empty, each case and its cancel are 404 like a missing one, its cursor is unknown.
      const stranger = await approvalsProject(app, { bind: false });
      expect((await stranger.get(casesPath)).body).toEqual({ cases: [], nextBeforeCaseId: null });
      const missing = await stranger.get(casePath(crypto.randomUUID()));
      expect(missing.status).toBe(404);
      expect(await stranger.get(casePath(ids[0]!))).toMatchObject({ status: 404, body: missing.body });
      expect(await stranger.cancel(ids[0]!)).toMatchObject({ status: 404, body: missing.body });
      expect((await stranger.get(casePath('not-a-uuid'))).status).toBe(404);
      expect((await stranger.get(`${casesPath}?beforeCaseId=${ids[0]}`)).status).toBe(400);
      expect((await p.get(casePath(ids[0]!))).body.status).toBe('pending');
    });

    it('cancels a pending case only: cancelled with terminalReason case_cancelled; the resend is POLICY_DENIED review-cancelled; a second cancel is 409', async () => {
      const p = await approvalsProject(app);
      const opened = await p.sign(LARGE, { 'Idempotency-Key': 'cancel-1' });
      const cancelled = await p.cancel(opened.body.caseId);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body).toMatchObject({ caseId: opened.body.caseId, status: 'cancelled', terminalReason: 'case_cancelled', cancelledAt: iso });
      expect(await p.cancel(opened.body.caseId)).toMatchObject({ status: 409, body: { code: 'CONFLICT', status: 'cancelled' } });
      const resend = await p.sign(LARGE, { 'Idempotency-Key': 'cancel-1' });
      expect(resend).toMatchObject({ status: 403, body: { code: 'POLICY_DENIED', deniedBy: [{ reason: 'review-cancelled', caseId: opened.body.caseId }] } });
      const finance = await p.member(['finance']);
      expect(await decide(app, 'approve', opened.body.caseId, finance)).toMatchObject({ ok: false, status: 409, body: { status: 'cancelled' } });
    });

    it('expires on the moved clock: reading shows expired at expiresAt, approving is refused, the resend is review-expired, a new key opens a new case', async () => {
      const p = await approvalsProject(app);
      const finance = await p.member(['finance']);
      const opened = await p.sign(LARGE, { 'Idempotency-Key': 'expiry-1' });
      const completedCase = await p.sign(LARGE, { 'Idempotency-Key': 'expiry-2' }, {}, 1);
      expect((await decide(app, 'approve', completedCase.body.caseId, finance)).ok).toBe(true);
      clock.advance(HOUR - 1000);
      expect((await p.getCase(opened.body.caseId)).body.status).toBe('pending');
      clock.advance(60_000);
      // The list expires due cases before filtering by status.
      expect((await p.get(`${casesPath}?status=pending`)).body.cases.map((c: { caseId: string }) => c.caseId)).toEqual([]);
      expect((await p.get(`${casesPath}?status=expired`)).body.cases.map((c: { caseId: string }) => c.caseId)).toEqual([completedCase.body.caseId, opened.body.caseId]);
      const expired = await p.getCase(opened.body.caseId);
      expect(expired.body).toMatchObject({ status: 'expired', terminalReason: 'case_expired', expiredAt: opened.body.expiresAt });
      expect(await decide(app, 'approve', opened.body.caseId, finance)).toMatchObject({ ok: false, status: 409, body: { status: 'expired' } });
      expect((await p.sign(LARGE, { 'Idempotency-Key': 'expiry-1' })).body).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [{ reason: 'review-expired' }] });
      // A completed case unused by its expiry cannot sign either.
      expect((await p.sign(LARGE, { 'Idempotency-Key': 'expiry-2' }, {}, 1)).body).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [{ reason: 'review-expired' }] });
      expect((await p.getCase(completedCase.body.caseId)).body).toMatchObject({ status: 'expired', completedAt: iso, consumedAt: null });
      const fresh = await p.sign(LARGE, { 'Idempotency-Key': 'expiry-3' });
      expect(fresh.body.code).toBe('POLICY_REVIEW_REQUIRED');
      expect(await p.signatures()).toBe(0);
    });

    it('is invalidated by a new policy version, by an assignment change in its scope and by a binding change of its wallet', async () => {
      const p = await approvalsProject(app);
      const finance = await p.member(['finance']);
      const byPolicy = await p.sign(LARGE, { 'Idempotency-Key': 'inv-policy' });
      expect((await decide(app, 'approve', byPolicy.body.caseId, finance)).body.status).toBe('completed');
      await p.apply({ ...examplePolicy('evm-approvals.json'), metadata: { productMode: 'guardrail', description: 'v2' } });
      expect((await p.getCase(byPolicy.body.caseId)).body).toMatchObject({ status: 'invalidated', terminalReason: 'policy_changed', invalidatedAt: iso });
      expect((await p.sign(LARGE, { 'Idempotency-Key': 'inv-policy' })).body).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [{ reason: 'review-invalidated' }] });

      const byAssignment = await p.sign(LARGE, { 'Idempotency-Key': 'inv-assign' });
      expect(byAssignment.body.code).toBe('POLICY_REVIEW_REQUIRED');
      expect((await p.getCase(byAssignment.body.caseId)).body.requirements).toEqual([{ policyId: 'evm-approvals', policyVersion: '2', ruleId: 'large', requirementId: 'finance-approval' }]);
      await p.member(['finance']);
      expect((await p.getCase(byAssignment.body.caseId)).body).toMatchObject({ status: 'invalidated', terminalReason: 'assignments_changed' });
      expect(await decide(app, 'approve', byAssignment.body.caseId, finance)).toMatchObject({ ok: false, body: { status: 'invalidated' } });

      const byBinding = await p.sign(LARGE, { 'Idempotency-Key': 'inv-bind' });
      expect((await p.put(walletScopePath(p.wallet.id), { expectedRevision: 1, authorizationScopeId: 'org-2' })).status).toBe(200);
      expect((await p.getCase(byBinding.body.caseId)).body).toMatchObject({ status: 'invalidated', terminalReason: 'binding_changed' });
      // The new case snapshots the new binding; assignments in another scope leave it open.
      const next = await p.sign(LARGE, { 'Idempotency-Key': 'inv-next' });
      expect((await p.getCase(next.body.caseId)).body).toMatchObject({ status: 'pending', authorizationScopeId: 'org-2', bindingRevision: 2 });
      await p.member(['finance'], 'org-3');
      expect((await p.getCase(next.body.caseId)).body.status).toBe('pending');
      expect(await p.signatures()).toBe(0);
    });
  });
});
