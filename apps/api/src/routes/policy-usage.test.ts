import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { EVM_CHAIN, guardrail, policyProject, type PolicyProject } from '../testing/policy-fixtures.ts';

const USDC = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';

/** Two meters: native per day, and a per-asset token meter (the token comes from the query). */
const metered = guardrail('metered', 'EVM', [
  { id: 'native-daily', effect: 'deny', actions: ['transfer'], condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: '1000' } },
  { id: 'token-hourly', effect: 'deny', actions: ['transfer'], condition: { aggregate: { meter: 'spend.token', window: '1h' }, op: 'gte', value: '500' } },
]);

describe.each(testDatabaseKinds)('policy usage routes over HTTP on %s', (kind) => {
  let app: TestApp;
  let p: PolicyProject;
  let wallet: { id: string };

  beforeAll(async () => {
    app = await startTestApp(kind);
    p = await policyProject(app);
    await p.apply(metered);
    wallet = await p.wallet('EVM');
  });
  afterAll(async () => {
    await app?.close();
  });

  const usagePath = (walletId: string, query: string) => `/v1/permissions-v2/wallets/${walletId}/policies/metered/usage${query}`;

  it('answers one meter per aggregate condition; the per-asset token meter only with tokenAddress', async () => {
    const native = await p.get(usagePath(wallet.id, `?chainId=${EVM_CHAIN}`));
    expect(native.status, JSON.stringify(native.body)).toBe(200);
    expect(native.body.meters).toEqual([
      expect.objectContaining({ ruleId: 'native-daily', meter: 'spend.native', asset: 'native', window: '1d', op: 'gt', limit: '1000', spent: '0', reserved: '0', remaining: '1000' }),
    ]);
    const both = await p.get(usagePath(wallet.id, `?chainId=${EVM_CHAIN}&tokenAddress=${USDC}`));
    expect(both.status).toBe(200);
    // The token is lower-cased as meters store it; gte leaves one unit less room than gt.
    expect(both.body.meters.map((m: { ruleId: string; asset: string; remaining: string }) => [m.ruleId, m.asset, m.remaining])).toEqual([
      ['native-daily', 'native', '1000'],
      ['token-hourly', USDC.toLowerCase(), '499'],
    ]);
    const hourly = both.body.meters[1] as { windowStart: string; windowEnd: string };
    expect(new Date(hourly.windowEnd).getTime() - new Date(hourly.windowStart).getTime()).toBe(3_600_000);
    expect(new Date(hourly.windowStart).getTime() % 3_600_000).toBe(0);
  });

  it('refuses a missing or malformed chainId, a bad tokenAddress, unknown query keys and a wallet of another type with 400', async () => {
    const cases: [string, RegExp][] = [
      ['', /chainId/],
      ['?chainId=solana:devnet', /chainId/],
      ['?chainId=not-a-chain', /chainId/],
      [`?chainId=${EVM_CHAIN}&tokenAddress=0x1234`, /tokenAddress/],
      [`?chainId=${EVM_CHAIN}&walletId=${'0'.repeat(8)}-0000-4000-8000-000000000000`, /walletId/],
      [`?chainId=${EVM_CHAIN}&extra=1`, /extra/],
    ];
    for (const [query, message] of cases) {
      const response = await p.get(usagePath(wallet.id, query));
      expect([query, response.status, response.body.code]).toEqual([query, 400, 'INVALID_REQUEST']);
      expect(response.body.message).toMatch(message);
    }
    const solana = await p.wallet('SOLANA');
    const other = await p.get(usagePath(solana.id, '?chainId=solana:devnet'));
    expect([other.status, other.body.code]).toEqual([400, 'INVALID_REQUEST']);
    expect(other.body.message).toMatch(/selects EVM wallets/);
  });

  it('answers 404 for an unknown policy, a missing wallet and another partner\'s wallet alike', async () => {
    const unknownPolicy = await p.get(`/v1/permissions-v2/wallets/${wallet.id}/policies/nope/usage?chainId=${EVM_CHAIN}`);
    expect([unknownPolicy.status, unknownPolicy.body.code]).toEqual([404, 'NOT_FOUND']);
    const stranger = await policyProject(app);
    const theirs = await stranger.get(usagePath(wallet.id, `?chainId=${EVM_CHAIN}`));
    const missing = await stranger.get(usagePath('00000000-0000-4000-8000-000000000000', `?chainId=${EVM_CHAIN}`));
    expect(theirs.status).toBe(404);
    expect(theirs.body).toEqual({ ...missing.body, requestId: theirs.body.requestId });
  });

  it('the users/{userId} form reads the meters of that user\'s claimed wallet, named in the query; any other wallet is 404', async () => {
    const email = `usage-${Math.random().toString(36).slice(2)}@example.com`;
    const created = await p.post('/v1/wallets', { type: 'EVM', userIdentifier: email, userIdentifierType: 'EMAIL' });
    expect(created.status).toBe(201);
    const { userId, claimedWalletIds } = await app.services.users.signUp({ projectId: p.projectId, identifier: email, identifierType: 'EMAIL' });
    expect(claimedWalletIds).toEqual([created.body.id]);
    const userPath = (query: string) => `/v1/permissions-v2/users/${userId}/policies/metered/usage${query}`;

    const own = await p.get(userPath(`?chainId=${EVM_CHAIN}&walletId=${created.body.id}`));
    expect(own.status, JSON.stringify(own.body)).toBe(200);
    expect(own.body.meters.map((m: { ruleId: string }) => m.ruleId)).toEqual(['native-daily']);
    // The wallet is required in this form; an unclaimed wallet is not this user's.
    const noWallet = await p.get(userPath(`?chainId=${EVM_CHAIN}`));
    expect([noWallet.status, noWallet.body.code]).toEqual([400, 'INVALID_REQUEST']);
    expect((await p.get(userPath(`?chainId=${EVM_CHAIN}&walletId=${wallet.id}`))).status).toBe(404);
    const otherUser = await p.get(`/v1/permissions-v2/users/00000000-0000-4000-8000-000000000000/policies/metered/usage?chainId=${EVM_CHAIN}&walletId=${created.body.id}`);
    expect(otherUser.status).toBe(404);
  });
});
