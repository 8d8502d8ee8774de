import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { DEAD, EVM_CHAIN, EVM_FEES, MILLI_ETH, OTHER, examplePolicy, guardrail, policyProject, traces, type PolicyProject } from '../testing/policy-fixtures.ts';

/**
 * The dry run answers what real signing answers: a table of requests, each first dry-run and then
 * sent to its real route on the same state, must agree on allow/deny and on every deciding rule.
 */
describe.each(testDatabaseKinds)('POST /v1/permissions-v2/evaluate (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let p: PolicyProject;
  let evm: { id: string; address: string };
  let sol: { id: string; address: string };
  let solRecipient: string;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    app = await startTestApp(kind, { chains: devnets });
    p = await policyProject(app);
    await p.apply(examplePolicy('evm-guardrails.json'));
    await p.apply(examplePolicy('solana-raw.json'));
    await p.apply(
      guardrail('sol-cap', 'SOLANA', [{ id: 'per-transfer', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.value.baseUnits', op: 'gt', value: '5000000' } }]),
    );
    evm = await p.wallet('EVM');
    sol = await p.wallet('SOLANA');
    solRecipient = (await p.wallet('SOLANA')).address;
    await devnets.faucet.fund({ type: 'EVM', address: evm.address }, 'native', 10n ** 18n);
    await devnets.faucet.fund({ type: 'SOLANA', address: sol.address }, 'native', 10n ** 9n);
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  const evmTx = (to: string, value: bigint, nonce: number) => ({ transaction: { to, value: value.toString(), chainId: EVM_CHAIN, nonce, ...EVM_FEES } });
  const cases: { name: string; wallet: () => { id: string }; route: string; body: () => Record<string, unknown>; expected: 'allow' | 'deny' }[] = [
    { name: 'EVM sign-transaction to a listed recipient', wallet: () => evm, route: 'sign-transaction', body: () => evmTx(DEAD, MILLI_ETH / 2n, 0), expected: 'allow' },
    { name: 'EVM sign-transaction to an unlisted recipient', wallet: () => evm, route: 'sign-transaction', body: () => evmTx(OTHER, 1n, 0), expected: 'deny' },
    { name: 'EVM sign-transaction over the per-transfer cap', wallet: () => evm, route: 'sign-transaction', body: () => evmTx(DEAD, 2n * MILLI_ETH, 0), expected: 'deny' },
    { name: 'EVM transfer under both caps', wallet: () => evm, route: 'transfer', body: () => ({ to: DEAD, value: String(MILLI_ETH), chainId: EVM_CHAIN }), expected: 'allow' },
    { name: 'EVM transfer to an unlisted recipient', wallet: () => evm, route: 'transfer', body: () => ({ to: OTHER, value: '1', chainId: EVM_CHAIN }), expected: 'deny' },
    { name: 'EVM transfer still within the daily meter', wallet: () => evm, route: 'transfer', body: () => ({ to: DEAD, value: String(MILLI_ETH), chainId: EVM_CHAIN }), expected: 'allow' },
    { name: 'EVM transfer once the day is spent', wallet: () => evm, route: 'transfer', body: () => ({ to: DEAD, value: String(MILLI_ETH), chainId: EVM_CHAIN }), expected: 'deny' },
    { name: 'EVM sign-raw while permissions are on', wallet: () => evm, route: 'sign-raw', body: () => ({ data: `0x${'11'.repeat(32)}` }), expected: 'deny' },
    { name: 'EVM sign-message (not raw on EVM)', wallet: () => evm, route: 'sign-message', body: () => ({ message: 'hi' }), expected: 'allow' },
    { name: 'Solana sign-raw allowed by solana-raw.json', wallet: () => sol, route: 'sign-raw', body: () => ({ data: 'deadbeef' }), expected: 'allow' },
    { name: 'Solana sign-message (raw) allowed by solana-raw.json', wallet: () => sol, route: 'sign-message', body: () => ({ message: 'hi' }), expected: 'allow' },
    { name: 'SOL transfer under the cap', wallet: () => sol, route: 'transfer', body: () => ({ to: solRecipient, value: '4000000', network: 'SOLANA_DEVNET' }), expected: 'allow' },
    { name: 'SOL transfer over the cap', wallet: () => sol, route: 'transfer', body: () => ({ to: solRecipient, value: '6000000', network: 'SOLANA_DEVNET' }), expected: 'deny' },
  ];

  it('agrees with the real routes on every case, and the dry run itself reserves, signs and records nothing', async () => {
    for (const c of cases) {
      const wallet = c.wallet();
      const before = await traces(app, wallet.id);
      const dry = await p.post('/v1/permissions-v2/evaluate', { walletId: wallet.id, route: c.route, body: c.body() });
      expect(dry.status, `${c.name}: ${JSON.stringify(dry.body)}`).toBe(200);
      expect(await traces(app, wallet.id), c.name).toEqual(before);
      const real = await p.post(`/v1/wallets/${wallet.id}/${c.route}`, c.body());
      expect(dry.body.decision, c.name).toBe(c.expected);
      if (c.expected === 'allow') expect(real.status, `${c.name}: ${JSON.stringify(real.body)}`).toBe(200);
      else {
        expect(real.status, c.name).toBe(403);
        expect(real.body.deniedBy, c.name).toEqual(dry.body.deniedBy);
        expect(real.body.reason, c.name).toBe(dry.body.reason);
      }
    }
  });

  it('traces every applying rule with the facts it saw and the meter before and after', async () => {
    const w = await p.wallet('EVM');
    const dry = await p.post('/v1/permissions-v2/evaluate', { walletId: w.id, route: 'sign-transaction', body: evmTx(DEAD, 7n, 0) });
    expect(dry.body).toMatchObject({
      decision: 'allow',
      reason: null,
      deniedBy: [],
      request: { walletType: 'EVM', action: 'sign_transaction', network: String(EVM_CHAIN), legs: [{ to: DEAD.toLowerCase(), asset: 'native', amount: '7' }] },
    });
    const guardrails = dry.body.policies.find((x: { policyId: string }) => x.policyId === 'evm-guardrails');
    expect(guardrails.rules.map((r: { ruleId: string; outcome: string }) => [r.ruleId, r.outcome])).toEqual([
      ['recipients', 'not-matched'],
      ['per-transfer', 'not-matched'],
      ['daily', 'not-matched'],
    ]);
    expect(guardrails.rules[2].meters).toEqual([expect.objectContaining({ meter: 'spend.native', before: '0', after: '7', limit: '3000000000000000' })]);
    // Policies of other wallet types do not apply.
    expect(dry.body.policies.map((x: { policyId: string }) => x.policyId)).toEqual(['evm-guardrails']);
  });

  it('validates like the routes: unknown route, another partner\'s wallet, a bad body', async () => {
    const stranger = await policyProject(app);
    expect((await p.post('/v1/permissions-v2/evaluate', { walletId: evm.id, route: 'sign-everything', body: {} })).status).toBe(400);
    expect((await stranger.post('/v1/permissions-v2/evaluate', { walletId: evm.id, route: 'sign-message', body: { message: 'x' } })).status).toBe(404);
    expect((await p.post('/v1/permissions-v2/evaluate', { walletId: evm.id, route: 'sign-transaction', body: { transaction: 'nope' } })).status).toBe(400);
  });
});
