import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_EVM_CHAIN_ID, startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { consolePartner, restWallet } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { trpcFailure } from '../testing/staff-client.ts';

/**
 * The wallet page's stranded-wallet banner and its "Send gap filler" button, over tRPC: what a
 * browser cannot show (another partner's wallet, support's refused fill, the audit row). The e2e
 * spec 50-stranded covers the page itself.
 */
const FORBIDDEN = { status: 403, body: { code: 'FORBIDDEN', message: 'Support staff have read-only access' } };
const WALLET_NOT_FOUND = { status: 404, body: { code: 'NOT_FOUND', message: 'Wallet not found' } };
const CHAIN = String(LOCAL_EVM_CHAIN_ID);
const FEES = { maxFeePerGas: '20000000000', maxPriorityFeePerGas: '1000000000', gasLimit: '21000' };

type Partner = Awaited<ReturnType<typeof consolePartner>>;

let devnets: LocalDevnets;
beforeAll(async () => {
  devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100 });
});
afterAll(async () => {
  await devnets?.stop();
});

describe.each(testDatabaseKinds)('a stranded wallet in the console over tRPC on %s', (kind) => {
  let app: TestApp;
  let a: Partner;
  let b: Partner;
  let walletId = '';

  beforeAll(async () => {
    app = await startTestApp(kind, { chains: devnets });
    [a, b] = await Promise.all([consolePartner(app), consolePartner(app)]);
    const wallet = await restWallet(app, a.key.apiKey);
    walletId = wallet.id;
    const funded = await app.request('POST', '/v1/local/faucet', { key: a.key.apiKey, body: { walletId, amount: '1', token: 'native' } });
    expect(funded.status, JSON.stringify(funded.body)).toBe(200);
    // Nonce 0 is never used: the node queues this one behind it.
    const queued = await app.request('POST', `/v1/wallets/${walletId}/sign-transaction`, {
      key: a.key.apiKey,
      body: { transaction: { to: wallet.address, value: '0', chainId: LOCAL_EVM_CHAIN_ID, nonce: 1, ...FEES }, broadcast: true },
    });
    expect(queued.status, JSON.stringify(queued.body)).toBe(200);
  });
  afterAll(async () => {
    await app?.close();
  });

  const stranded = [{ chainId: CHAIN, chainNonce: 0, lowestUnresolved: 1, missing: [0], waiting: 1 }];

  it("shows the stranded chain to every role; another partner's wallet is the 404 of a missing one; support may not fill", async () => {
    expect(await a.support.wallets.nonceGaps.query({ walletId })).toEqual(stranded);
    for (const foreign of [walletId, randomUUID(), 'not-a-uuid']) {
      expect(await trpcFailure(b.owner.wallets.nonceGaps.query({ walletId: foreign }))).toEqual(WALLET_NOT_FOUND);
      expect(await trpcFailure(b.owner.wallets.fillNonceGaps.mutate({ walletId: foreign }))).toEqual(WALLET_NOT_FOUND);
    }
    expect(await trpcFailure(a.support.wallets.fillNonceGaps.mutate({ walletId }))).toEqual(FORBIDDEN);
    expect(await trpcFailure(a.owner.wallets.nonceGaps.query({ walletId, chainId: CHAIN } as never))).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    expect(await a.owner.wallets.nonceGaps.query({ walletId: (await restWallet(app, a.key.apiKey, { type: 'SOLANA' })).id })).toEqual([]);
    // Nothing of the above filled anything.
    expect(await a.owner.wallets.nonceGaps.query({ walletId })).toEqual(stranded);
  });

  it('a developer fills the gap: the filler is recorded as one, audited with the staff member, and the wallet is no longer stranded', async () => {
    const fill = await a.developer.wallets.fillNonceGaps.mutate({ walletId });
    expect(fill).toEqual({ walletId, stranded, filled: [{ chainId: CHAIN, nonce: 0, transactionId: expect.any(String), hash: expect.stringMatching(/^0x[0-9a-f]{64}$/) }] });
    const [filler] = fill.filled;
    expect(await a.support.transactions.get.query({ transactionId: filler!.transactionId })).toMatchObject({ walletId, nonce: 0, value: '0', serviceInitiated: 'nonce_gap_filler', hash: filler!.hash });
    expect(await a.support.wallets.nonceGaps.query({ walletId })).toEqual([]);

    // Again: nothing left to fill, and no second audit row.
    expect(await a.owner.wallets.fillNonceGaps.mutate({ walletId })).toEqual({ walletId, stranded: [], filled: [] });
    const audit = await app.database.prisma.auditLog.findMany({ where: { action: 'wallet.nonce_gap.fill', walletId } });
    const developer = (await a.developer.auth.me.query())!.staffId;
    expect(audit.map((row) => [row.projectId, row.apiKeyId, row.details])).toEqual([[a.key.projectId, null, { filled: fill.filled, actor: { staffId: developer } }]]);
  });
});
