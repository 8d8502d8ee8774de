import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { createTestClient, http, parseTransaction } from 'viem';
import { approvalsProject, decide, LARGE, SMALL } from '../testing/approval-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { DEAD, EVM_CHAIN } from '../testing/policy-fixtures.ts';

let devnets: LocalDevnets;
beforeAll(async () => {
  devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
});
afterAll(async () => {
  await devnets?.stop();
});

/** A real transfer on the local devnet paused for approval, then broadcast once by the identical resend. */
describe.concurrent.each(testDatabaseKinds)('a transfer gated by an approval case (%s)', (kind) => {
  describe.sequential(`${kind}: one test at a time`, () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(kind, { chains: devnets });
    });
    afterAll(async () => {
      await app?.close();
    });

    it('403 POLICY_REVIEW_REQUIRED with no record and the nonce held by the case (other broadcasts 409), then the approved resend broadcasts one transaction with the nonce, gas and fees frozen at the pause', async () => {
      const p = await approvalsProject(app);
      const finance = await p.member(['finance']);
      const initiator = await p.member([]);
      await devnets.faucet.fund({ type: 'EVM', address: p.wallet.address }, 'native', 10n ** 18n);
      const headers = { 'Idempotency-Key': `transfer-${kind}` };
      const body = { to: DEAD, value: LARGE, chainId: EVM_CHAIN, initiatorUserId: initiator };
      const transfer = () => p.post(`/v1/wallets/${p.wallet.id}/transfer`, body, headers);

      // An initiatorUserId that is no user of the project is refused; a malformed one too.
      expect((await p.post(`/v1/wallets/${p.wallet.id}/transfer`, { ...body, initiatorUserId: crypto.randomUUID() }, { 'Idempotency-Key': `ghost-${kind}` })).status).toBe(400);
      expect((await p.post(`/v1/wallets/${p.wallet.id}/transfer`, { ...body, initiatorUserId: 'me' })).body).toMatchObject({ code: 'INVALID_REQUEST', details: [{ path: 'initiatorUserId' }] });
      const paused = await transfer();
      expect(paused.status, JSON.stringify(paused.body)).toBe(403);
      expect(paused.body).toMatchObject({ code: 'POLICY_REVIEW_REQUIRED', reviewId: expect.any(String) });
      expect(await app.database.prisma.transactionRecord.count({ where: { walletId: p.wallet.id } })).toBe(0);
      const preparation = await app.database.prisma.approvalCasePreparation.findUnique({ where: { caseId: paused.body.caseId } });
      expect(preparation).toMatchObject({ chainId: EVM_CHAIN, nonce: 0, nonceReleasedAt: null });
      const frozen = preparation!.prepared as Record<string, string>;
      expect(frozen).toEqual({ type: 2, gasLimit: expect.any(String), maxFeePerGas: expect.any(String), maxPriorityFeePerGas: expect.any(String) });
      // While the case holds nonce 0, no other broadcast of the wallet on that chain may take it or queue behind it.
      const held = { code: 'APPROVAL_CASE_IN_PROGRESS', caseId: paused.body.caseId, nonce: 0 };
      expect((await p.post(`/v1/wallets/${p.wallet.id}/transfer`, { to: DEAD, value: SMALL, chainId: EVM_CHAIN })).body).toMatchObject(held);
      const explicit = await p.sign(SMALL, {}, { broadcast: true }, 7);
      expect(explicit.status).toBe(409);
      expect(explicit.body).toMatchObject(held);
      // The base fee rises to 90 % of the frozen fee cap while the case waits (still under it, so the
      // frozen transaction can be mined): the approved resend signs with the frozen fees.
      const devnet = createTestClient({ mode: 'anvil', transport: http(devnets.evmRpcUrl) });
      await devnet.setNextBlockBaseFeePerGas({ baseFeePerGas: (BigInt(frozen.maxFeePerGas!) * 9n) / 10n });
      await devnet.mine({ blocks: 1 });
      const view = (await p.getCase(paused.body.caseId)).body;
      expect(view).toMatchObject({ initiatorUserId: initiator, request: { action: 'wallet.sign.transfer', transfer: { value: LARGE, tokenAddress: null } } });
      expect(view.request.transfer.to.toLowerCase()).toBe(DEAD.toLowerCase());

      expect((await decide(app, 'approve', paused.body.caseId, finance)).body.status).toBe('completed');
      const sent = await transfer();
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(sent.body).toMatchObject({ txHash: expect.stringMatching(/^0x/), transactionId: expect.any(String) });
      const signed = parseTransaction(sent.body.signedTransaction);
      expect({ nonce: signed.nonce, gas: signed.gas, maxFeePerGas: signed.maxFeePerGas, maxPriorityFeePerGas: signed.maxPriorityFeePerGas }).toEqual({
        nonce: 0,
        gas: BigInt(frozen.gasLimit!),
        maxFeePerGas: BigInt(frozen.maxFeePerGas!),
        maxPriorityFeePerGas: BigInt(frozen.maxPriorityFeePerGas!),
      });
      // A transfer that needs no approval pays today's fees, with the next nonce.
      const unfrozen = await p.post(`/v1/wallets/${p.wallet.id}/transfer`, { to: DEAD, value: SMALL, chainId: EVM_CHAIN });
      expect(unfrozen.status, JSON.stringify(unfrozen.body)).toBe(200);
      const today = parseTransaction(unfrozen.body.signedTransaction);
      expect(today.nonce).toBe(1);
      expect(today.maxFeePerGas! > BigInt(frozen.maxFeePerGas!)).toBe(true);
      expect((await transfer()).body).toEqual(sent.body);
      expect(await app.database.prisma.transactionRecord.count({ where: { walletId: p.wallet.id } })).toBe(2);
      expect((await p.getCase(paused.body.caseId)).body.status).toBe('consumed');
      // The case keeps the id of the request that consumed it, which its record keeps too (GraphQL Transaction.approvalCase).
      const record = await app.database.prisma.transactionRecord.findUniqueOrThrow({ where: { id: sent.body.transactionId } });
      const consumed = await app.database.prisma.approvalCase.findUniqueOrThrow({ where: { id: paused.body.caseId } });
      expect(record.requestId).toEqual(expect.any(String));
      expect(consumed.consumedRequestId).toBe(record.requestId);
    });

    it('a case that ends unsigned (cancelled, rejected) gives its nonce back: the next transfer takes it', async () => {
      const p = await approvalsProject(app);
      const finance = await p.member(['finance']);
      await devnets.faucet.fund({ type: 'EVM', address: p.wallet.address }, 'native', 10n ** 18n);
      const large = (key: string) => p.post(`/v1/wallets/${p.wallet.id}/transfer`, { to: DEAD, value: LARGE, chainId: EVM_CHAIN }, { 'Idempotency-Key': `${key}-${kind}` });
      const small = () => p.post(`/v1/wallets/${p.wallet.id}/transfer`, { to: DEAD, value: SMALL, chainId: EVM_CHAIN });
      const nonceOf = (response: { body: { signedTransaction: string } }) => parseTransaction(response.body.signedTransaction as `0x${string}`).nonce;

      const first = await large('cancelled');
      expect(first.body).toMatchObject({ code: 'POLICY_REVIEW_REQUIRED' });
      expect((await small()).body).toMatchObject({ code: 'APPROVAL_CASE_IN_PROGRESS', nonce: 0 });
      expect((await p.cancel(first.body.caseId)).body.status).toBe('cancelled');
      const afterCancel = await small();
      expect(afterCancel.status, JSON.stringify(afterCancel.body)).toBe(200);
      expect(nonceOf(afterCancel)).toBe(0);
      expect(await app.database.prisma.approvalCasePreparation.findUnique({ where: { caseId: first.body.caseId } })).toMatchObject({ nonce: 0, nonceReleasedAt: expect.any(Date) });

      const second = await large('rejected');
      expect(second.body).toMatchObject({ code: 'POLICY_REVIEW_REQUIRED' });
      expect((await small()).body).toMatchObject({ code: 'APPROVAL_CASE_IN_PROGRESS', caseId: second.body.caseId, nonce: 1 });
      expect((await decide(app, 'reject', second.body.caseId, finance)).body.status).toBe('rejected');
      const afterReject = await small();
      expect(afterReject.status, JSON.stringify(afterReject.body)).toBe(200);
      expect(nonceOf(afterReject)).toBe(1);
      // The rejected request stays refused under its key and holds nothing.
      expect((await large('rejected')).body).toMatchObject({ code: 'POLICY_DENIED', reason: 'review-rejected' });
      expect(nonceOf(await small())).toBe(2);
    });
  });
});
