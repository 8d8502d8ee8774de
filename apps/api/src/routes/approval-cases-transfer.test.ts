import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { approvalsProject, decide, LARGE } from '../testing/approval-fixtures.ts';
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

    it('403 POLICY_REVIEW_REQUIRED with no record and no nonce used, then the approved resend broadcasts one transaction', async () => {
      const p = await approvalsProject(app);
      const finance = await p.member(['finance']);
      const initiator = await p.member([]);
      await devnets.faucet.fund({ type: 'EVM', address: p.wallet.address }, 'native', 10n ** 18n);
      const headers = { 'Idempotency-Key': `transfer-${kind}` };
      const body = { to: DEAD, value: LARGE, chainId: EVM_CHAIN, initiatorUserId: initiator };
      const transfer = () => p.post(`/v1/wallets/${p.wallet.id}/transfer`, body, headers);

      const paused = await transfer();
      expect(paused.status, JSON.stringify(paused.body)).toBe(403);
      expect(paused.body).toMatchObject({ code: 'POLICY_REVIEW_REQUIRED', reviewId: expect.any(String) });
      expect(await app.database.prisma.transactionRecord.count({ where: { walletId: p.wallet.id } })).toBe(0);
      const view = (await p.getCase(paused.body.caseId)).body;
      expect(view).toMatchObject({ initiatorUserId: initiator, request: { action: 'wallet.sign.transfer', transfer: { value: LARGE, tokenAddress: null } } });
      expect(view.request.transfer.to.toLowerCase()).toBe(DEAD.toLowerCase());
      // An initiatorUserId that is no user of the project is refused; a malformed one too.
      expect((await p.post(`/v1/wallets/${p.wallet.id}/transfer`, { ...body, initiatorUserId: crypto.randomUUID() }, { 'Idempotency-Key': `ghost-${kind}` })).status).toBe(400);
      expect((await p.post(`/v1/wallets/${p.wallet.id}/transfer`, { ...body, initiatorUserId: 'me' })).body).toMatchObject({ code: 'INVALID_REQUEST', details: [{ path: 'initiatorUserId' }] });

      expect((await decide(app, 'approve', paused.body.caseId, finance)).body.status).toBe('completed');
      const sent = await transfer();
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(sent.body).toMatchObject({ txHash: expect.stringMatching(/^0x/), transactionId: expect.any(String) });
      expect((await transfer()).body).toEqual(sent.body);
      expect(await app.database.prisma.transactionRecord.count({ where: { walletId: p.wallet.id } })).toBe(1);
      expect((await p.getCase(paused.body.caseId)).body.status).toBe('consumed');
    });
  });
});
