import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { approvalsProject, decide, LARGE, partnerReviewPolicy, reviewPath, SMALL, type ApprovalsProject } from '../testing/approval-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { DEAD, EVM_CHAIN } from '../testing/policy-fixtures.ts';

const otherRequest = { code: 'CONFLICT', message: 'Idempotency-Key was already used with a different request' };

/** The idempotency record of `key` as a mismatched request must leave it: same request hash, no answer stored. */
async function recordOf(app: TestApp, p: ApprovalsProject, key: string) {
  const record = await app.database.prisma.idempotencyRecord.findUnique({ where: { projectId_key: { projectId: p.projectId, key } } });
  return record && { requestHash: record.requestHash, state: record.state, responseStatus: record.responseStatus };
}

/**
 * A request paused for approval keeps its Idempotency-Key while its case is open: another request
 * under that key is refused and changes nothing, so the approved resend of the first one signs.
 */
describe.concurrent.each(testDatabaseKinds)('an Idempotency-Key paused for approval (%s)', (kind) => {
  describe.sequential(`${kind}: one test at a time`, () => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(kind);
    });
    afterAll(async () => {
      await app?.close();
    });

    it('sign-transaction: other bodies under the key get 409 and take nothing over; the approved resend signs once', async () => {
      const p = await approvalsProject(app, { policy: partnerReviewPolicy(), enable: false, bind: false });
      const key = `rebind-${kind}`;
      const opened = await p.sign(LARGE, { 'Idempotency-Key': key });
      expect(opened.status, JSON.stringify(opened.body)).toBe(403);
      expect(opened.body.code).toBe('POLICY_REVIEW_REQUIRED');
      const before = await recordOf(app, p, key);

      // A body that needs no review (it would sign), and one that needs its own review.
      for (const [value, nonce] of [[SMALL, 0], [LARGE, 1]] as const) {
        const other = await p.sign(value, { 'Idempotency-Key': key }, {}, nonce);
        expect(other.status, JSON.stringify(other.body)).toBe(409);
        expect(other.body).toMatchObject(otherRequest);
        expect(await recordOf(app, p, key)).toEqual(before);
      }
      expect(await p.signatures()).toBe(0);

      expect((await p.post(`${reviewPath(opened.body.reviewId)}/approve`, undefined)).body.caseStatus).toBe('completed');
      const signed = await p.sign(LARGE, { 'Idempotency-Key': key });
      expect(signed.status, JSON.stringify(signed.body)).toBe(200);
      expect(await p.sign(LARGE, { 'Idempotency-Key': key })).toMatchObject({ status: 200, body: signed.body });
      expect(await p.signatures()).toBe(1);
      expect((await p.getCase(opened.body.caseId)).body.status).toBe('consumed');
    });
  });
});

describe('an Idempotency-Key of a transfer paused for approval', () => {
  let devnets: LocalDevnets;
  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
  });
  afterAll(async () => {
    await devnets?.stop();
  });

  describe.concurrent.each(testDatabaseKinds)('%s', (kind) => {
    let app: TestApp;
    beforeAll(async () => {
      app = await startTestApp(kind, { chains: devnets });
    });
    afterAll(async () => {
      await app?.close();
    });

    it('another transfer under the key gets 409 and stores nothing there; the approved resend broadcasts once', async () => {
      const p = await approvalsProject(app);
      const finance = await p.member(['finance']);
      await devnets.faucet.fund({ type: 'EVM', address: p.wallet.address }, 'native', 10n ** 18n);
      const key = `transfer-rebind-${kind}`;
      const transfer = (value: string) => p.post(`/v1/wallets/${p.wallet.id}/transfer`, { to: DEAD, value, chainId: EVM_CHAIN }, { 'Idempotency-Key': key });

      const paused = await transfer(LARGE);
      expect(paused.status, JSON.stringify(paused.body)).toBe(403);
      expect(paused.body.code).toBe('POLICY_REVIEW_REQUIRED');
      const before = await recordOf(app, p, key);
      // Under its own key the small transfer would be refused for the nonce the case holds; under this one, for the key.
      const other = await transfer(SMALL);
      expect(other.status, JSON.stringify(other.body)).toBe(409);
      expect(other.body).toMatchObject(otherRequest);
      expect(await recordOf(app, p, key)).toEqual(before);

      expect((await decide(app, 'approve', paused.body.caseId, finance)).body.status).toBe('completed');
      const sent = await transfer(LARGE);
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(sent.body).toMatchObject({ txHash: expect.stringMatching(/^0x/), transactionId: expect.any(String) });
      expect((await transfer(LARGE)).body).toEqual(sent.body);
      expect(await app.database.prisma.transactionRecord.count({ where: { walletId: p.wallet.id } })).toBe(1);
    });
  });
});
