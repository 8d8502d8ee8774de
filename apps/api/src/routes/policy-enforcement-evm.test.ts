import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { BEEF, DEAD, EVM_CHAIN, EVM_FEES, MILLI_ETH, OTHER, examplePolicy, guardrail, policyProject, traces, type PolicyProject } from '../testing/policy-fixtures.ts';

/**
 * Guardrails on the EVM signing routes over real HTTP, with the real engine, the stored policies
 * and spend meters, and anvil for transfers.
 */
describe.each(testDatabaseKinds)('policy enforcement on EVM wallets (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let usdc: string;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    app = await startTestApp(kind, { chains: devnets });
    usdc = devnets.directory.list()[0]!.usdc!.address;
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  const funded = async (project: PolicyProject, usdcUnits = 0n) => {
    const w = await project.wallet('EVM');
    await devnets.faucet.fund({ type: 'EVM', address: w.address }, 'native', 10n ** 18n);
    if (usdcUnits > 0n) await devnets.faucet.fund({ type: 'EVM', address: w.address }, 'usdc', usdcUnits);
    return w;
  };
  const tx = (to: string, value: bigint, nonce = 0, extra: Record<string, unknown> = {}) => ({ transaction: { to, value: value.toString(), chainId: EVM_CHAIN, nonce, ...EVM_FEES, ...extra } });

  it('evm-guardrails.json as written: recipients, per-transfer cap and the daily native meter on sign-transaction', async () => {
    const p = await policyProject(app);
    await p.apply(examplePolicy('evm-guardrails.json'));
    const w = await p.wallet('EVM');
    const sign = (to: string, value: bigint, nonce = 0) => p.post(`/v1/wallets/${w.id}/sign-transaction`, tx(to, value, nonce));

    const ok = await sign(DEAD, MILLI_ETH / 2n);
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    const before = await traces(app, w.id);

    const unlisted = await sign(OTHER, 1n);
    expect(unlisted.status).toBe(403);
    expect(unlisted.body).toEqual({
      code: 'POLICY_DENIED',
      message: expect.stringContaining('recipients'),
      reason: 'rule-matched',
      deniedBy: [{ reason: 'rule-matched', policyId: 'evm-guardrails', policyVersion: '1', ruleId: 'recipients' }],
    });
    // Every deciding rule is listed: unlisted, over the per-transfer cap and over the day at once.
    const everything = await sign(OTHER, 4n * MILLI_ETH);
    expect(everything.body.deniedBy).toEqual([
      { reason: 'rule-matched', policyId: 'evm-guardrails', policyVersion: '1', ruleId: 'recipients' },
      { reason: 'rule-matched', policyId: 'evm-guardrails', policyVersion: '1', ruleId: 'per-transfer' },
      { reason: 'spend-limit-exceeded', policyId: 'evm-guardrails', policyVersion: '1', ruleId: 'daily' },
    ]);
    expect((await sign(BEEF, 2n * MILLI_ETH)).body.deniedBy.map((d: { ruleId: string }) => d.ruleId)).toEqual(['per-transfer']);
    // Denials leave nothing: no signature audit row, no record, no reservation.
    expect(await traces(app, w.id)).toEqual(before);

    // 0.0005 signed; five more of 0.0005 reach the 0.003 limit exactly; the next one is over it.
    for (let i = 1; i <= 5; i++) expect((await sign(BEEF, MILLI_ETH / 2n, i)).status).toBe(200);
    const over = await sign(DEAD, 1n, 6);
    expect(over.body.deniedBy).toEqual([{ reason: 'spend-limit-exceeded', policyId: 'evm-guardrails', policyVersion: '1', ruleId: 'daily' }]);
    const usage = await p.get(`/v1/permissions-v2/wallets/${w.id}/policies/evm-guardrails/usage?chainId=${EVM_CHAIN}`);
    expect(usage.status, JSON.stringify(usage.body)).toBe(200);
    expect(usage.body.meters).toEqual([
      expect.objectContaining({ ruleId: 'daily', meter: 'spend.native', asset: 'native', window: '1d', limit: '3000000000000000', spent: '3000000000000000', reserved: '0', remaining: '0' }),
    ]);
    const start = new Date(usage.body.meters[0].windowStart);
    expect(start.getUTCHours() + start.getUTCMinutes() + start.getUTCSeconds()).toBe(0);
  });

  it('transfer route: native and ERC-20 legs, token allowlist and per-asset daily cap; the record is only written when allowed', async () => {
    const p = await policyProject(app);
    await p.apply(
      guardrail('usdc-only', 'EVM', [
        { id: 'token', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.token.address', op: 'nin', value: [usdc] } },
        { id: 'cap', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.token.value.baseUnits', op: 'gt', value: '1000000' } },
        { id: 'daily', effect: 'deny', actions: ['transfer'], condition: { aggregate: { meter: 'spend.token', asset: usdc, window: '1d' }, op: 'gt', value: '1500000' } },
      ], { chainId: [String(EVM_CHAIN)] }),
    );
    const w = await funded(p, 10_000_000n);
    const transfer = (body: Record<string, unknown>) => p.post(`/v1/wallets/${w.id}/transfer`, { to: DEAD, chainId: EVM_CHAIN, ...body });

    const native = await transfer({ value: '1000' });
    expect(native.body.deniedBy).toEqual([{ reason: 'rule-matched', policyId: 'usdc-only', policyVersion: '1', ruleId: 'token' }]);
    expect((await transfer({ value: '2000000', tokenAddress: usdc })).body.deniedBy.map((d: { ruleId: string }) => d.ruleId)).toEqual(['cap', 'daily']);
    const sent = await transfer({ value: '1000000', tokenAddress: usdc });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const before = await traces(app, w.id);
    expect(before.records).toBe(1);
    const overDaily = await transfer({ value: '600000', tokenAddress: usdc.toLowerCase() });
    expect(overDaily.status, JSON.stringify(overDaily.body)).toBe(403);
    expect(overDaily.body.deniedBy).toEqual([{ reason: 'spend-limit-exceeded', policyId: 'usdc-only', policyVersion: '1', ruleId: 'daily' }]);
    expect(await traces(app, w.id)).toEqual(before);
    const usage = await p.get(`/v1/permissions-v2/wallets/${w.id}/policies/usdc-only/usage?chainId=${EVM_CHAIN}`);
    expect(usage.body.meters).toEqual([expect.objectContaining({ ruleId: 'daily', asset: usdc.toLowerCase(), spent: '1000000', remaining: '500000' })]);
  });

  it('typed data, authorization, contract calls and raw signatures', async () => {
    const p = await policyProject(app);
    await p.apply(
      guardrail('evm-misc', 'EVM', [
        { id: 'permit-contracts', effect: 'deny', actions: ['sign_typed_data'], condition: { fact: 'request.typedData.domain.verifyingContract', op: 'nin', value: [usdc] } },
        { id: 'no-delegation', effect: 'deny', actions: ['sign_authorization'], condition: { fact: 'request.authorization.address', op: 'eq', value: OTHER } },
        { id: 'no-approve', effect: 'deny', actions: ['sign_transaction'], condition: { fact: 'request.function.selector', op: 'eq', value: '0x095ea7b3' } },
      ]),
    );
    const w = await p.wallet('EVM');
    const typedData = (verifyingContract: string) => ({
      typedData: { domain: { name: 'USDC', version: '2', chainId: EVM_CHAIN, verifyingContract }, types: { M: [{ name: 'a', type: 'uint256' }] }, primaryType: 'M', message: { a: 1 } },
    });
    expect((await p.post(`/v1/wallets/${w.id}/sign-typed-data`, typedData(usdc))).status).toBe(200);
    expect((await p.post(`/v1/wallets/${w.id}/sign-typed-data`, typedData(OTHER))).body.deniedBy[0]).toMatchObject({ ruleId: 'permit-contracts' });
    expect((await p.post(`/v1/wallets/${w.id}/sign-authorization`, { authorization: { address: DEAD, chainId: EVM_CHAIN, nonce: 0 } })).status).toBe(200);
    expect((await p.post(`/v1/wallets/${w.id}/sign-authorization`, { authorization: { address: OTHER, chainId: EVM_CHAIN, nonce: 0 } })).body.deniedBy[0]).toMatchObject({ ruleId: 'no-delegation' });
    const approve = `0x095ea7b3${DEAD.slice(2).padStart(64, '0')}${'f'.repeat(64)}`;
    expect((await p.post(`/v1/wallets/${w.id}/sign-transaction`, tx(usdc, 0n, 0, { data: approve }))).body.deniedBy[0]).toMatchObject({ ruleId: 'no-approve' });
    // sign-message is not raw on EVM; sign-raw is, and permissions are on.
    expect((await p.post(`/v1/wallets/${w.id}/sign-message`, { message: 'hello' })).status).toBe(200);
    const raw = await p.post(`/v1/wallets/${w.id}/sign-raw`, { data: `0x${'11'.repeat(32)}` });
    expect(raw.status).toBe(403);
    expect(raw.body).toMatchObject({ code: 'POLICY_DENIED', reason: 'raw-signature-not-allowed', deniedBy: [{ reason: 'raw-signature-not-allowed' }] });
  });

  it('versions, deactivation and effective windows decide which rules apply', async () => {
    const p = await policyProject(app);
    const w = await p.wallet('EVM');
    const raw = () => p.post(`/v1/wallets/${w.id}/sign-raw`, { data: `0x${'22'.repeat(32)}` });
    const deny = (id: string) => guardrail('cap', 'EVM', [{ id, effect: 'deny', actions: ['sign_transaction'], condition: { fact: 'request.value.baseUnits', op: 'gt', value: '10' } }]);
    expect((await raw()).status).toBe(200); // permissions off: no active policy
    await p.apply(deny('v1-rule'));
    expect((await p.post(`/v1/wallets/${w.id}/sign-transaction`, tx(DEAD, 11n))).body.deniedBy).toEqual([{ reason: 'rule-matched', policyId: 'cap', policyVersion: '1', ruleId: 'v1-rule' }]);
    await p.apply(deny('v2-rule'));
    expect((await p.post(`/v1/wallets/${w.id}/sign-transaction`, tx(DEAD, 11n))).body.deniedBy).toEqual([{ reason: 'rule-matched', policyId: 'cap', policyVersion: '2', ruleId: 'v2-rule' }]);
    expect((await raw()).status).toBe(403);
    await p.deactivate('cap');
    expect((await p.post(`/v1/wallets/${w.id}/sign-transaction`, tx(DEAD, 11n))).status).toBe(200);
    expect((await raw()).status).toBe(200);
    await p.apply({ ...deny('later'), effectiveFrom: '2099-01-01T00:00:00Z' });
    expect((await p.post(`/v1/wallets/${w.id}/sign-transaction`, tx(DEAD, 11n))).status).toBe(200);
    await p.apply({ ...deny('ended'), effectiveFrom: '2020-01-01T00:00:00Z', effectiveUntil: '2021-01-01T00:00:00Z' });
    expect((await raw()).status).toBe(200);
  });

  it('development and production keys, and other partners, never share policies', async () => {
    const dev = await policyProject(app);
    const prod = await policyProject(app, { partner: dev.partner, environment: 'production' });
    const stranger = await policyProject(app);
    await prod.apply(guardrail('prod-only', 'EVM', [{ id: 'all-tx', effect: 'deny', actions: ['sign_transaction'] }]));
    const devWallet = await dev.wallet('EVM');
    const prodWallet = await prod.wallet('EVM');
    expect((await dev.post(`/v1/wallets/${devWallet.id}/sign-transaction`, tx(DEAD, 1n))).status).toBe(200);
    expect((await prod.post(`/v1/wallets/${prodWallet.id}/sign-transaction`, tx(DEAD, 1n))).body.deniedBy[0]).toMatchObject({ policyId: 'prod-only' });
    expect((await dev.get('/v1/permissions-v2/policies')).body).toEqual({ policies: [] });
    expect((await stranger.get('/v1/permissions-v2/policies/prod-only')).status).toBe(404);
    expect((await stranger.get(`/v1/permissions-v2/wallets/${prodWallet.id}/policies/prod-only/usage?chainId=${EVM_CHAIN}`)).status).toBe(404);
  });
});
