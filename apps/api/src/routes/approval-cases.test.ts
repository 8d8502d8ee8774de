import { testDatabaseKinds } from '@wallet/db';
import { parseTransaction, recoverTransactionAddress, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalsProject, casePath, casesPath, decide, LARGE, partnerReviewPolicy, reviewPath, reviewsPath, SMALL } from '../testing/approval-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { movableClock } from '../testing/monitor-fixtures.ts';
import { examplePolicy } from '../testing/policy-fixtures.ts';
import { scopeProject, walletScopePath } from '../testing/scope-fixtures.ts';

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const HOUR = 3_600_000;
const MINUTE = 60_000;
const reviewRequired = { code: 'POLICY_REVIEW_REQUIRED', message: expect.stringContaining('partner review'), reviewId: expect.any(String), caseId: expect.any(String), expiresAt: iso };

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

    describe('partner reviews (a require_approval rule without approvalRequirement: the app approves)', () => {
      /** The extension switch off and the wallet unbound: partner reviews need neither. */
      const reviewProject = () => approvalsProject(app, { policy: partnerReviewPolicy(), enable: false, bind: false });

      it('403 POLICY_REVIEW_REQUIRED (5 minutes), approve, the identical resend signs once, then consumed; extension off, no scope binding', async () => {
        const p = await reviewProject();
        expect((await p.sign(SMALL)).status).toBe(200);
        const headers = { 'Idempotency-Key': `review-${kind}-1` };
        const opened = await p.sign(LARGE, headers);
        expect(opened.status, JSON.stringify(opened.body)).toBe(403);
        expect(opened.body).toEqual(reviewRequired);
        const reviewId = opened.body.reviewId as string;

        const pending = await p.get(reviewPath(reviewId));
        expect(pending.status).toBe(200);
        expect(pending.body).toEqual({
          reviewId,
          status: 'pending',
          caseStatus: 'pending',
          terminalReason: null,
          walletId: p.wallet.id,
          request: { action: 'wallet.sign.sign-transaction', operation: 'transaction', chain: { walletType: 'EVM', chainId: '84532', network: null }, transfer: { to: expect.any(String), value: LARGE, tokenAddress: null } },
          decidedBy: null,
          createdAt: iso,
          expiresAt: opened.body.expiresAt,
          approvedAt: null,
          rejectedAt: null,
          consumedAt: null,
          expiredAt: null,
          invalidatedAt: null,
          cancelledAt: null,
        });
        expect(Date.parse(pending.body.expiresAt) - Date.parse(pending.body.createdAt)).toBe(5 * MINUTE);
        expect((await p.get(`${reviewsPath}?status=pending`)).body).toEqual({ reviews: [pending.body], nextBeforeReviewId: null });
        const dry = await p.post('/v1/permissions-v2/evaluate', { walletId: p.wallet.id, route: 'sign-transaction', body: { transaction: { to: p.wallet.address, value: LARGE, chainId: 84532, type: 2, nonce: 0, maxFeePerGas: '1', maxPriorityFeePerGas: '1', gasLimit: '21000' } } });
        expect(dry.body).toMatchObject({ decision: 'review_required', requirements: [{ policyId: 'partner-review', ruleId: 'review-large', requirementId: 'partner-review' }] });
        // The case behind it: no scope, the partner review not yet decided; no user decides it.
        expect((await p.get(casePath(reviewId))).body).toMatchObject({ authorizationScopeId: null, bindingRevision: null, stages: [], partnerReview: { decision: null, decidedAt: null, decidedBy: null } });
        expect(await decide(app, 'approve', reviewId, await p.user())).toMatchObject({ ok: false, status: 409, body: { message: expect.stringContaining('partner review') } });
        // The same key with another transaction: 409, the review stays bound to the first request.
        expect(await p.sign(LARGE, headers, {}, 1)).toMatchObject({ status: 409, body: { code: 'CONFLICT', message: 'Idempotency-Key was already used with a different request' } });

        clock.advance(MINUTE);
        const approved = await p.post(`${reviewPath(reviewId)}/approve`, undefined);
        expect(approved.status).toBe(200);
        expect(approved.body).toEqual({ ...pending.body, status: 'approved', caseStatus: 'completed', approvedAt: iso, decidedBy: { type: 'api_key', id: p.apiKeyId } });
        expect(Date.parse(approved.body.approvedAt) - Date.parse(pending.body.createdAt)).toBeGreaterThanOrEqual(MINUTE);
        // Decided once: approving again changes nothing, rejecting neither.
        expect((await p.post(`${reviewPath(reviewId)}/approve`, undefined)).body).toEqual(approved.body);
        expect((await p.post(`${reviewPath(reviewId)}/reject`, undefined)).body).toEqual(approved.body);
      const audited = await app.database.prisma.auditLog.findMany({ where: { walletId: p.wallet.id, action: { startsWith: 'partner_review.' } } });
      expect(audited).toMatchObject([{ action: 'partner_review.approve', apiKeyId: p.apiKeyId, details: { reviewId, actor: { type: 'api_key', id: p.apiKeyId }, caseStatus: 'completed' } }]);

        // Five identical resends at once: one signature, one answer.
        const answers = await Promise.all(Array.from({ length: 5 }, () => p.sign(LARGE, headers)));
        expect(answers.map((a) => a.status)).toEqual(Array(5).fill(200));
        for (const answer of answers) expect(answer.body).toEqual(answers[0]!.body);
        const signed = answers[0]!.body.signedTransaction as Hex;
        expect(await recoverTransactionAddress({ serializedTransaction: signed as `0x02${string}` })).toBe(p.wallet.address);
        expect(parseTransaction(signed)).toMatchObject({ chainId: 84532, value: BigInt(LARGE), nonce: 0 });
        expect(await p.signatures()).toBe(2);

        const consumed = await p.post(`${reviewPath(reviewId)}/approve`, undefined);
        expect(consumed.body).toMatchObject({ status: 'consumed', caseStatus: 'consumed', consumedAt: iso, approvedAt: approved.body.approvedAt });
        expect((await p.get(`${reviewsPath}?status=pending`)).body.reviews).toEqual([]);
        expect((await p.get(`${reviewsPath}?status=consumed`)).body.reviews).toEqual([consumed.body]);
      });

      it('reject: the resend is POLICY_DENIED review-rejected and approve afterwards stays rejected; a body is 400; another partner\'s review is 404', async () => {
        const p = await reviewProject();
        const opened = await p.sign(LARGE, { 'Idempotency-Key': 'rej' });
        const reviewId = opened.body.reviewId as string;
        for (const body of [{ reason: 'no' }, [], 'x']) {
          const refused = await p.post(`${reviewPath(reviewId)}/reject`, body);
          expect(refused.status, JSON.stringify(body)).toBe(400);
          expect(refused.body.code).toBe('INVALID_REQUEST');
        }
        expect((await p.post(`${reviewPath(reviewId)}/approve`, {})).body.status).toBe('approved');
        const other = await p.sign(LARGE, { 'Idempotency-Key': 'rej-2' });
        const rejected = await p.post(`${reviewPath(other.body.reviewId)}/reject`, undefined);
        expect(rejected.body).toMatchObject({ status: 'rejected', caseStatus: 'rejected', terminalReason: 'review_rejected', rejectedAt: iso, approvedAt: null, decidedBy: { type: 'api_key', id: p.apiKeyId } });
        const resend = await p.sign(LARGE, { 'Idempotency-Key': 'rej-2' });
        expect(resend.status).toBe(403);
        expect(resend.body).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [{ reason: 'review-rejected', caseId: other.body.reviewId }] });
        expect((await p.post(`${reviewPath(other.body.reviewId)}/approve`, undefined)).body).toEqual(rejected.body);

        // Another partner, an unknown or malformed id, and a conditional approval case without a partner review: the same 404.
        const stranger = await scopeProject(app);
        const missing = await stranger.get(reviewPath(crypto.randomUUID()));
        expect(missing.status).toBe(404);
        expect(await stranger.get(reviewPath(reviewId))).toMatchObject({ status: 404, body: missing.body });
        expect(await stranger.post(`${reviewPath(reviewId)}/approve`, undefined)).toMatchObject({ status: 404, body: missing.body });
        expect(await stranger.post(`${reviewPath('nope')}/reject`, undefined)).toMatchObject({ status: 404, body: missing.body });
        expect((await stranger.get(reviewsPath)).body).toEqual({ reviews: [], nextBeforeReviewId: null });
        const conditional = await approvalsProject(app);
        const caseOnly = await conditional.sign(LARGE, { 'Idempotency-Key': 'cond' });
        expect(caseOnly.body.code).toBe('POLICY_REVIEW_REQUIRED');
        expect(await conditional.post(`${reviewPath(caseOnly.body.caseId)}/approve`, undefined)).toMatchObject({ status: 404, body: missing.body });
        expect(await p.signatures()).toBe(0);

        // Listing: newest first, paged, filtered; a bad limit or cursor is 400.
        const page = await p.get(`${reviewsPath}?limit=1`);
        expect(page.body).toMatchObject({ reviews: [{ reviewId: other.body.reviewId }], nextBeforeReviewId: other.body.reviewId });
        expect((await p.get(`${reviewsPath}?limit=1&beforeReviewId=${page.body.nextBeforeReviewId}`)).body).toMatchObject({ reviews: [{ reviewId, status: 'approved' }], nextBeforeReviewId: null });
        expect((await p.get(`${reviewsPath}?status=rejected`)).body.reviews.map((r: { reviewId: string }) => r.reviewId)).toEqual([other.body.reviewId]);
        for (const query of ['limit=0', 'limit=101', `beforeReviewId=${caseOnly.body.caseId}`, 'status=completed', 'extra=1']) {
          expect((await p.get(`${reviewsPath}?${query}`)).status, query).toBe(400);
        }
      });

      it('expires 5 minutes after opening (an approval does not extend it): the resend is review-expired, approve answers 200 expired', async () => {
        const p = await reviewProject();
        const a = await p.sign(LARGE, { 'Idempotency-Key': 'exp-a' });
        const b = await p.sign(LARGE, { 'Idempotency-Key': 'exp-b' }, {}, 1);
        clock.advance(4 * MINUTE);
        expect((await p.post(`${reviewPath(b.body.reviewId)}/approve`, undefined)).body).toMatchObject({ status: 'approved', expiresAt: b.body.expiresAt });
        clock.advance(MINUTE);
        const late = await p.sign(LARGE, { 'Idempotency-Key': 'exp-b' }, {}, 1);
        expect(late.status).toBe(403);
        expect(late.body).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [{ reason: 'review-expired' }] });
        const expired = await p.post(`${reviewPath(a.body.reviewId)}/approve`, undefined);
        expect(expired.status).toBe(200);
        expect(expired.body).toMatchObject({ status: 'expired', caseStatus: 'expired', approvedAt: null, expiredAt: a.body.expiresAt, terminalReason: 'case_expired' });
        expect((await p.get(reviewPath(b.body.reviewId))).body).toMatchObject({ status: 'expired', approvedAt: iso, expiredAt: b.body.expiresAt });
        // A new key opens a new review.
        expect((await p.sign(LARGE, { 'Idempotency-Key': 'exp-c' })).body).toEqual(reviewRequired);
        expect(await p.signatures()).toBe(0);
      });

      it('with a conditional approval rule too: one case needing the partner approval and the finance stage, expiring after 5 minutes; with the extension off the conditional rule still denies', async () => {
        const conditional = examplePolicy('evm-approvals.json') as { rules: unknown[] };
        const p = await approvalsProject(app, { policy: partnerReviewPolicy('both', conditional.rules) });
        const finance = await p.member(['finance']);
        const headers = { 'Idempotency-Key': 'both' };
        const opened = await p.sign(LARGE, headers);
        expect(opened.body).toEqual({ ...reviewRequired, message: expect.stringContaining('conditional approval stages') });
        const caseView = (await p.get(casePath(opened.body.caseId))).body;
        expect(caseView).toMatchObject({ authorizationScopeId: 'org-1', stages: [{ id: 'finance' }], partnerReview: { decision: null } });
        expect(caseView.requirements.map((r: { requirementId: string }) => r.requirementId)).toEqual(['partner-review', 'finance-approval']);
        expect(Date.parse(caseView.expiresAt) - Date.parse(caseView.createdAt)).toBe(5 * MINUTE);

        expect((await p.post(`${reviewPath(opened.body.reviewId)}/approve`, undefined)).body).toMatchObject({ status: 'approved', caseStatus: 'pending' });
        expect((await p.get(`${reviewsPath}?status=approved`)).body.reviews).toMatchObject([{ reviewId: opened.body.reviewId, caseStatus: 'pending' }]);
        expect((await p.get(`${reviewsPath}?status=pending`)).body.reviews).toEqual([]);
        expect((await p.sign(LARGE, headers)).body).toEqual(opened.body);
        expect(await decide(app, 'approve', opened.body.caseId, finance)).toMatchObject({ ok: true, body: { status: 'completed' } });
        expect((await p.sign(LARGE, headers)).status).toBe(200);
        expect(await p.signatures()).toBe(1);

        await p.disable();
        const off = await p.sign(LARGE, { 'Idempotency-Key': 'both-off' });
        expect(off.body).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [{ reason: 'approval-not-available', ruleId: 'large' }] });
        // A binding change ends cases with user stages, never a partner-only review.
        const only = await reviewProject();
        const review = await only.sign(LARGE, { 'Idempotency-Key': 'bind' });
        await only.enable();
        expect((await only.put(walletScopePath(only.wallet.id), { expectedRevision: 0, authorizationScopeId: 'org-1' })).status).toBe(200);
        expect((await only.get(reviewPath(review.body.reviewId))).body.status).toBe('pending');
      });
    });
  });
});
