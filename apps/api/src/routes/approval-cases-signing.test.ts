import path from 'node:path';
import { testDatabaseKinds } from '@wallet/db';
import { callerOf, createSigningPipeline, fileKekProvider, parseSignRouteBody, requestFingerprint, signRouteContext, systemClock } from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalsProject, decide, LARGE, SMALL, twoStagePolicy } from '../testing/approval-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { DEAD, EVM_CHAIN, EVM_FEES, traces } from '../testing/policy-fixtures.ts';
import { walletScopePath } from '../testing/scope-fixtures.ts';

const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT/);
const reviewRequired = (caseId?: string) => ({
  code: 'POLICY_REVIEW_REQUIRED',
  message: expect.stringContaining('approval'),
  reviewId: caseId ?? expect.any(String),
  caseId: caseId ?? expect.any(String),
  expiresAt: iso,
});

/** Guardrail rule 4 over REST: a matching require_approval rule pauses signing until its case is completed, then signs exactly once. */
describe.concurrent.each(testDatabaseKinds)('conditional approval cases at the signing routes (%s)', (kind) => {
  // The two database kinds side by side; each kind's tests in order.
  describe.sequential(`${kind}: one test at a time`, () => {
    let app: TestApp;

    beforeAll(async () => {
      app = await startTestApp(kind);
    });
    afterAll(async () => {
      await app?.close();
    });

    it('evm-approvals.json: 403 POLICY_REVIEW_REQUIRED with a stable reviewId, 409 for the key with another body, one finance approval (initiator refused), then the resend signs once', async () => {
      const p = await approvalsProject(app);
      const finance = await p.member(['finance']);
      const initiator = await p.member(['finance']);
      const outsider = await p.member(['auditor']);

      // Below the threshold: no case, signs at once.
      expect((await p.sign(SMALL)).status).toBe(200);

      const headers = { 'Idempotency-Key': `case-${kind}-1` };
      const first = await p.sign(LARGE, headers, { initiatorUserId: initiator });
      expect(first.status, JSON.stringify(first.body)).toBe(403);
      expect(first.body).toEqual(reviewRequired());
      const caseId = first.body.caseId as string;
      expect(first.body.reviewId).toBe(caseId);
      expect(await traces(app, p.wallet.id)).toMatchObject({ signatures: 1, reservations: 0 });

      // Resent while pending: the same case; the key is released to this request, so it ran again.
      const again = await p.sign(LARGE, headers, { initiatorUserId: initiator });
      expect(again.body).toEqual({ ...first.body });
      // The same key with another transaction: 409 without running, and the key still belongs to the first request.
      const other = await p.sign(LARGE, headers, { initiatorUserId: initiator }, 1);
      expect(other.status).toBe(409);
      expect(other.body).toEqual({ code: 'CONFLICT', message: 'Idempotency-Key was already used with a different request' });
      expect((await p.sign(LARGE, headers, { initiatorUserId: initiator })).body).toEqual(first.body);

      const pending = await p.getCase(caseId);
      expect(pending.status).toBe(200);
      expect(pending.body).toMatchObject({
        caseId,
        reviewId: caseId,
        status: 'pending',
        terminalReason: null,
        walletId: p.wallet.id,
        apiKeyId: p.apiKeyId,
        authorizationScopeId: 'org-1',
        bindingRevision: 1,
        idempotencyKey: headers['Idempotency-Key'],
        initiatorUserId: initiator,
        request: { action: 'wallet.sign.sign-transaction', operation: 'transaction', chain: { walletType: 'EVM', chainId: '84532', network: null }, transfer: { to: expect.any(String), value: LARGE, tokenAddress: null } },
        requirements: [{ policyId: 'evm-approvals', policyVersion: '1', ruleId: 'large', requirementId: 'finance-approval' }],
        stages: [{ id: 'finance', requirementId: 'finance-approval', roles: ['finance'], requiredApprovals: 1, approvals: [], completedAt: null }],
        rejectedBy: null,
        createdAt: iso,
        completedAt: null,
        consumedAt: null,
      });
      expect(pending.body).not.toHaveProperty('decision');
      expect(Date.parse(pending.body.expiresAt) - Date.parse(pending.body.createdAt)).toBe(3_600_000);

      // The initiator never decides, nor does a user without the stage's role.
      expect(await decide(app, 'approve', caseId, initiator)).toMatchObject({ ok: false, status: 403, body: { code: 'INITIATOR_CANNOT_REVIEW' } });
      expect(await decide(app, 'approve', caseId, outsider)).toMatchObject({ ok: false, status: 403, body: { code: 'FORBIDDEN', message: expect.stringContaining('finance') } });
      const approved = await decide(app, 'approve', caseId, finance);
      expect(approved).toMatchObject({ ok: true, body: { status: 'completed', completedAt: iso, stages: [{ id: 'finance', approvals: [{ userId: finance, at: iso }], completedAt: iso }] } });
      // Decisions are final, and a completed case takes no more.
      expect(await decide(app, 'reject', caseId, finance)).toMatchObject({ ok: false, status: 409, body: { status: 'completed' } });

      const signed = await p.sign(LARGE, headers, { initiatorUserId: initiator });
      expect(signed.status, JSON.stringify(signed.body)).toBe(200);
      expect(signed.body.signedTransaction).toMatch(/^0x/);
      const replay = await p.sign(LARGE, headers, { initiatorUserId: initiator });
      expect(replay.body).toEqual(signed.body);
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(await p.signatures()).toBe(2);
      expect((await p.getCase(caseId)).body).toMatchObject({ status: 'consumed', consumedAt: iso, completedAt: approved.ok ? approved.body.completedAt : null });
    });

    it('a two-stage requirement completes with two finance then one executive approval, in order', async () => {
      const p = await approvalsProject(app, { policy: twoStagePolicy() });
      const [f1, f2, f3] = [await p.member(['finance']), await p.member(['finance']), await p.member(['finance', 'executive'])];
      const exec = await p.member(['executive']);
      const initiator = await p.member(['finance', 'executive']);

      const opened = await p.sign(LARGE, { 'Idempotency-Key': `two-${kind}` }, { initiatorUserId: initiator });
      expect(opened.body).toEqual(reviewRequired());
      const caseId = opened.body.caseId as string;
      expect((await p.getCase(caseId)).body.stages).toEqual([
        { id: 'finance', requirementId: 'finance-then-exec', roles: ['finance'], attributes: {}, requiredApprovals: 2, approvals: [], completedAt: null },
        { id: 'executive', requirementId: 'finance-then-exec', roles: ['executive'], attributes: {}, requiredApprovals: 1, approvals: [], completedAt: null },
      ]);
      expect(Date.parse(opened.body.expiresAt) - Date.parse((await p.getCase(caseId)).body.createdAt)).toBe(2 * 3_600_000);

      // The executive stage is not current yet; the initiator is refused at every stage.
      expect(await decide(app, 'approve', caseId, exec)).toMatchObject({ ok: false, status: 403, body: { code: 'FORBIDDEN' } });
      expect(await decide(app, 'approve', caseId, initiator)).toMatchObject({ ok: false, body: { code: 'INITIATOR_CANNOT_REVIEW' } });
      expect((await decide(app, 'approve', caseId, f1)).ok).toBe(true);
      expect(await decide(app, 'approve', caseId, f1)).toMatchObject({ ok: false, status: 409 });
      expect((await p.sign(LARGE, { 'Idempotency-Key': `two-${kind}` }, { initiatorUserId: initiator })).body).toEqual(opened.body);
      const second = await decide(app, 'approve', caseId, f2);
      expect(second).toMatchObject({ ok: true, body: { status: 'pending', stages: [{ completedAt: iso }, { completedAt: null }] } });
      // f3 holds both roles but has not decided: it may approve the executive stage.
      expect(await decide(app, 'approve', caseId, initiator)).toMatchObject({ ok: false, body: { code: 'INITIATOR_CANNOT_REVIEW' } });
      const done = await decide(app, 'approve', caseId, f3);
      expect(done).toMatchObject({ ok: true, body: { status: 'completed' } });
      const view = (await p.getCase(caseId)).body;
      expect(view.stages.map((s: { approvals: { userId: string }[] }) => s.approvals.map((a) => a.userId))).toEqual([[f1, f2], [f3]]);
      expect(await decide(app, 'approve', caseId, exec)).toMatchObject({ ok: false, status: 409 });

      const signed = await p.sign(LARGE, { 'Idempotency-Key': `two-${kind}` }, { initiatorUserId: initiator });
      expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    });

    it('eligibility by role and attribute: a finance user outside the EU region is refused, one in it approves', async () => {
      const policy = JSON.parse(JSON.stringify(twoStagePolicy('regional')).replace('{"roles":["executive"]}', '{"roles":["finance"],"attributes":{"region":["eu"]}}'));
      policy.rules[0].approvalRequirement.stages.shift(); // only the (regional) executive stage is left
      const p = await approvalsProject(app, { policy });
      const us = await p.member(['finance', { attribute: 'region', value: 'us' }]);
      const eu = await p.member(['finance', { attribute: 'region', value: 'eu' }]);
      const euOnly = await p.member([{ attribute: 'region', value: 'eu' }]);
      const opened = await p.sign(LARGE, { 'Idempotency-Key': `regional-${kind}` });
      const caseId = opened.body.caseId as string;
      expect((await p.getCase(caseId)).body.stages).toMatchObject([{ id: 'executive', roles: ['finance'], attributes: { region: ['eu'] } }]);
      expect(await decide(app, 'approve', caseId, us)).toMatchObject({ ok: false, status: 403, body: { code: 'FORBIDDEN', message: expect.stringContaining('attribute region') } });
      expect(await decide(app, 'approve', caseId, euOnly)).toMatchObject({ ok: false, status: 403, body: { message: expect.stringContaining('roles') } });
      expect(await decide(app, 'approve', caseId, eu)).toMatchObject({ ok: true, body: { status: 'completed' } });
      expect((await p.sign(LARGE, { 'Idempotency-Key': `regional-${kind}` })).status).toBe(200);
    });

    it('403 FORBIDDEN without a scope binding; with the extension off a match is POLICY_DENIED approval-not-available; a dry run says review_required', async () => {
      const unbound = await approvalsProject(app, { bind: false });
      const refused = await unbound.sign(LARGE, { 'Idempotency-Key': 'unbound' });
      expect(refused.status).toBe(403);
      expect(refused.body).toEqual({ code: 'FORBIDDEN', message: expect.stringContaining('authorization scope binding') });
      expect(await traces(app, unbound.wallet.id)).toEqual({ signatures: 0, records: 0, reservations: 0 });
      expect(await app.database.prisma.approvalCase.count({ where: { walletId: unbound.wallet.id } })).toBe(0);
      // The refusal is not stored under the key: once the wallet is bound, the same request opens its case.
      expect((await unbound.put(walletScopePath(unbound.wallet.id), { expectedRevision: 0, authorizationScopeId: 'org-1' })).status).toBe(200);
      expect((await unbound.sign(LARGE, { 'Idempotency-Key': 'unbound' })).body).toEqual(reviewRequired());

      const bound = await approvalsProject(app);
      const dry = await bound.post('/v1/permissions-v2/evaluate', {
        walletId: bound.wallet.id,
        route: 'sign-transaction',
        body: { transaction: { to: bound.wallet.address, value: LARGE, chainId: 84532, type: 2, nonce: 0, maxFeePerGas: '1', maxPriorityFeePerGas: '1', gasLimit: '21000' } },
      });
      expect(dry.body).toMatchObject({ decision: 'review_required', reason: null, deniedBy: [], requirements: [{ policyId: 'evm-approvals', policyVersion: '1', ruleId: 'large', requirementId: 'finance-approval' }] });

      await bound.disable();
      const off = await bound.sign(LARGE, { 'Idempotency-Key': 'off' });
      expect(off.status).toBe(403);
      expect(off.body).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [{ reason: 'approval-not-available', policyId: 'evm-approvals', ruleId: 'large' }] });
      expect(await app.database.prisma.approvalCase.count({ where: { walletId: bound.wallet.id } })).toBe(0);
      expect((await bound.post('/v1/permissions-v2/evaluate', { walletId: bound.wallet.id, route: 'sign-transaction', body: { transaction: { to: bound.wallet.address, value: LARGE, chainId: 84532, type: 2, nonce: 0, maxFeePerGas: '1', maxPriorityFeePerGas: '1', gasLimit: '21000' } } })).body).toMatchObject({ decision: 'deny', reason: 'approval-not-available' });
    });

    it('a reject by an eligible user ends the case: the resend is POLICY_DENIED review-rejected, a new key opens a new case', async () => {
      const p = await approvalsProject(app);
      const finance = await p.member(['finance']);
      const opened = await p.sign(LARGE, { 'Idempotency-Key': 'rej-1' });
      const caseId = opened.body.caseId as string;
      const rejected = await decide(app, 'reject', caseId, finance);
      expect(rejected).toMatchObject({ ok: true, body: { status: 'rejected', rejectedAt: iso, terminalReason: 'case_rejected', rejectedBy: { userId: finance, stageId: 'finance', at: iso } } });
      // Decisions are history: never updated or deleted.
      for (const sql of ['UPDATE approval_case_decisions SET decision = $2 WHERE case_id = $1', 'DELETE FROM approval_case_decisions WHERE case_id = $1 AND $2 = $2']) {
        await expect(app.database.query(sql, [caseId, 'approve'])).rejects.toMatchObject({ code: '42501' });
      }
      const resend = await p.sign(LARGE, { 'Idempotency-Key': 'rej-1' });
      expect(resend.status).toBe(403);
      expect(resend.body).toMatchObject({ code: 'POLICY_DENIED', caseId, deniedBy: [{ reason: 'review-rejected', caseId }] });
      const fresh = await p.sign(LARGE, { 'Idempotency-Key': 'rej-2' });
      expect(fresh.body).toEqual(reviewRequired());
      expect(fresh.body.caseId).not.toBe(caseId);
      expect(await p.signatures()).toBe(0);
      // An unknown user or case is 404; a malformed id is 400.
      expect(await decide(app, 'approve', fresh.body.caseId, '00000000-0000-4000-8000-000000000000')).toMatchObject({ ok: false, status: 404 });
      expect(await decide(app, 'approve', 'nope', finance)).toMatchObject({ ok: false, status: 400 });
    });

    it('without an Idempotency-Key two identical requests map to one pending case; once it is consumed the same payload opens a new one', async () => {
      const p = await approvalsProject(app);
      const finance = await p.member(['finance']);
      const first = await p.sign(LARGE);
      const second = await p.sign(LARGE);
      expect(first.body).toEqual(reviewRequired());
      expect(second.body).toEqual(first.body);
      expect((await p.getCase(first.body.caseId)).body).toMatchObject({ idempotencyKey: null, status: 'pending' });
      expect((await decide(app, 'approve', first.body.caseId, finance)).ok).toBe(true);
      expect((await p.sign(LARGE)).status).toBe(200);
      const next = await p.sign(LARGE);
      expect(next.body).toEqual(reviewRequired());
      expect(next.body.caseId).not.toBe(first.body.caseId);
      expect(await p.signatures()).toBe(1);
    });

    it('a claimed case goes back to completed when signing fails before a signature exists, and the next resend signs', async () => {
      const p = await approvalsProject(app);
      const finance = await p.member(['finance']);
      const headers = { 'Idempotency-Key': `claim-${kind}` };
      const opened = await p.sign(LARGE, headers);
      expect((await decide(app, 'approve', opened.body.caseId, finance)).ok).toBe(true);

      // The same request as the route sees it, through a pipeline whose audit append fails.
      const body = { transaction: { to: DEAD, value: LARGE, chainId: EVM_CHAIN, type: 2, nonce: 0, ...EVM_FEES } };
      const caller = {
        ...callerOf(await app.services.apiKeys.authenticate(p.key, '127.0.0.1'), null),
        idempotencyKey: headers['Idempotency-Key'],
        requestHash: requestFingerprint('POST', `/v1/wallets/${p.wallet.id}/sign-transaction`, body),
        initiatorUserId: null,
      };
      const { wallet, shares } = await app.services.wallets.loadWalletWithShares(caller, p.wallet.id);
      const failing = createSigningPipeline({
        audit: { append: async () => Promise.reject(new Error('audit store unavailable')) },
        vault: createLocalKeyVault({ keks: fileKekProvider(path.join(app.dataDir, 'signer')) }),
        clock: systemClock,
        policy: app.services.policyEngine,
        approvals: app.services.approvalCases.gate,
      });
      await expect(failing.sign({ ...signRouteContext(caller, wallet, 'transaction', parseSignRouteBody(wallet, 'transaction', body)), shares })).rejects.toThrow('audit store unavailable');
      expect((await p.getCase(opened.body.caseId)).body).toMatchObject({ status: 'completed', consumedAt: null });

      expect((await p.sign(LARGE, headers)).status).toBe(200);
      expect((await p.getCase(opened.body.caseId)).body.status).toBe('consumed');
      expect(await p.signatures()).toBe(1);
    });

    it('20 concurrent resends after completion sign exactly once, and all 20 get the same answer', async () => {
      const p = await approvalsProject(app);
      const finance = await p.member(['finance']);
      const headers = { 'Idempotency-Key': `burst-${kind}` };
      const opened = await p.sign(LARGE, headers);
      expect((await decide(app, 'approve', opened.body.caseId, finance)).ok).toBe(true);
      const answers = await Promise.all(Array.from({ length: 20 }, () => p.sign(LARGE, headers)));
      expect(answers.map((a) => a.status)).toEqual(Array(20).fill(200));
      for (const answer of answers) expect(answer.body).toEqual(answers[0]!.body);
      expect(await app.database.prisma.auditLog.count({ where: { walletId: p.wallet.id, action: { startsWith: 'wallet.sign.' } } })).toBe(1);
      expect((await p.getCase(opened.body.caseId)).body.status).toBe('consumed');
    });
  });
});
