import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compilePolicy, type CompiledPolicy } from './compile.ts';
import { parsePolicyDocument, type PolicyDocument } from './document.ts';
import { applyingPolicies, evaluatePolicies, meterBounds, meterChargesOf, permissionsOn, type EvaluationContext } from './evaluate.ts';
import { meterKeyId, type RequestFacts } from './evaluation-types.ts';

const examples = new URL('../../../../../shared/spec/policy-examples/', import.meta.url);
const example = (name: string) => document(JSON.parse(readFileSync(new URL(name, examples), 'utf8')));

function document(input: unknown): PolicyDocument {
  const parsed = parsePolicyDocument(input);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.document;
}

const compile = (doc: PolicyDocument, version = 1) => compilePolicy(doc.id, version, doc);

const WALLET = '6f1c1d2e-0000-4000-8000-000000000001';
const KEY = '6f1c1d2e-0000-4000-8000-00000000000a';
const DEAD = '0x000000000000000000000000000000000000dEaD';
const OTHER = '0x1111111111111111111111111111111111111111';
const USDC = '0x036cbd53842c5426634e7929541ec2318f3dcf7e';
const context: EvaluationContext = { projectId: 'p1', environment: 'development', now: new Date('2026-11-24T15:30:00Z') };

function evmTransfer(overrides: Partial<RequestFacts> = {}): RequestFacts {
  return {
    walletType: 'EVM',
    walletId: WALLET,
    apiKeyId: KEY,
    action: 'transfer',
    network: '84532',
    facts: { 'request.chainId': '84532', 'request.value.baseUnits': '500000000000000' },
    legs: [{ to: DEAD.toLowerCase(), asset: 'native', amount: 500_000_000_000_000n }],
    undecoded: null,
    ...overrides,
  };
}

/** Evaluates with every charged meter at `spent` (as the meter store would pass them). */
function run(policies: CompiledPolicy[], facts: RequestFacts, spent = 0n, trace = false) {
  const applying = applyingPolicies(policies, facts, context.now);
  const charges = meterChargesOf(applying, facts, context);
  const values = new Map<string, bigint>(charges.map((c) => [meterKeyId(c.key), spent]));
  return { charges, ...evaluatePolicies(applying, facts, values, context, { permissionsAreOn: permissionsOn(policies, context.now), trace }) };
}

describe('evaluation of evm-guardrails.json (the fixed example)', () => {
  const guardrails = [compile(example('evm-guardrails.json'))];

  it('allows a listed recipient under both caps, and charges the daily native meter with the amount', () => {
    const result = run(guardrails, evmTransfer());
    expect(result.allowed).toBe(true);
    expect(result.charges).toHaveLength(1);
    expect(result.charges[0]).toMatchObject({ amount: 500_000_000_000_000n, key: { asset: 'native', network: '84532', windowMs: 86_400_000 } });
    expect(result.charges[0]!.key.windowStart.toISOString()).toBe('2026-11-24T00:00:00.000Z');
  });

  it('denies an unlisted recipient, compares addresses case-insensitively', () => {
    expect(run(guardrails, evmTransfer({ legs: [{ to: DEAD.toUpperCase().replace('0X', '0x'), asset: 'native', amount: 1n }] })).allowed).toBe(true);
    const denied = run(guardrails, evmTransfer({ legs: [{ to: OTHER, asset: 'native', amount: 1n }] }));
    expect(denied.deniedBy).toEqual([{ reason: 'rule-matched', policyId: 'evm-guardrails', policyVersion: '1', ruleId: 'recipients' }]);
  });

  it('lists every deciding rule: per-transfer cap and daily meter together', () => {
    const big = 2_000_000_000_000_000n;
    const denied = run(guardrails, evmTransfer({ facts: { 'request.value.baseUnits': big.toString() }, legs: [{ to: DEAD, asset: 'native', amount: big }] }), 1_500_000_000_000_000n);
    expect(denied.deniedBy.map((d) => [d.ruleId, d.reason])).toEqual([
      ['per-transfer', 'rule-matched'],
      ['daily', 'spend-limit-exceeded'],
    ]);
  });

  it('the daily rule compares the meter after this request: exactly at the limit passes, one wei over does not', () => {
    const amount = 500_000_000_000_000n;
    expect(run(guardrails, evmTransfer(), 3_000_000_000_000_000n - amount).allowed).toBe(true);
    expect(run(guardrails, evmTransfer(), 3_000_000_000_000_000n - amount + 1n).deniedBy.map((d) => d.ruleId)).toEqual(['daily']);
  });

  it('applies only on its chain: another chain id or a message without network is not selected', () => {
    expect(applyingPolicies(guardrails, evmTransfer({ network: '1' }), context.now)).toEqual([]);
    expect(applyingPolicies(guardrails, evmTransfer({ action: 'sign_message', network: null, legs: [] }), context.now)).toEqual([]);
    expect(applyingPolicies(guardrails, evmTransfer({ action: 'raw_signature', network: null, legs: [] }), context.now)).toEqual([]);
  });

  it('a transaction whose network is not proven is judged by the policies of every network (fail closed)', () => {
    const unproven = evmTransfer({ action: 'sign_transaction', network: null, facts: { 'request.value.baseUnits': '2000000000000000' } });
    expect(applyingPolicies(guardrails, unproven, context.now)).toHaveLength(1);
    // The cap applies; the daily meter cannot be read without a network, so it denies too.
    expect(run(guardrails, unproven).deniedBy.map((d) => [d.ruleId, d.reason])).toEqual([
      ['per-transfer', 'rule-matched'],
      ['daily', 'condition-undecidable'],
    ]);
  });

  it('"all" covers the actions that carry the facts a rule reads: typed data is not judged on recipients', () => {
    const typed = evmTransfer({ action: 'sign_typed_data', legs: [], facts: { 'request.chainId': '84532', 'request.typedData.primaryType': 'Permit' } });
    const result = run(guardrails, typed, 0n, true);
    expect(result.allowed).toBe(true);
    expect(result.trace[0]!.rules.map((r) => r.outcome)).toEqual(['not-covered', 'not-covered', 'not-covered']);
  });

  it('traces the facts each rule saw and the meter before and after', () => {
    const result = run(guardrails, evmTransfer(), 100n, true);
    const [recipients, perTransfer, daily] = result.trace[0]!.rules;
    expect(recipients).toMatchObject({ outcome: 'not-matched', facts: [{ 'request.to': DEAD.toLowerCase() }] });
    expect(perTransfer).toMatchObject({ outcome: 'not-matched', facts: [{ 'request.value.baseUnits': '500000000000000' }] });
    expect(daily!.meters).toEqual([
      expect.objectContaining({ meter: 'spend.native', asset: 'native', before: '100', after: '500000000000100', limit: '3000000000000000', windowEnd: '2026-11-25T00:00:00.000Z' }),
    ]);
  });
});

describe('undecidable facts fail closed', () => {
  const tokenOnly = compile(
    document({
      id: 'usdc-only', schemaVersion: 'permissions.policy.v1', version: '1',
      selector: { walletType: 'EVM' }, metadata: { productMode: 'guardrail' },
      rules: [{ id: 'only-usdc', effect: 'deny', actions: ['transfer', 'sign_transaction'], condition: { fact: 'request.token.address', op: 'nin', value: [USDC] } }],
    }),
  );

  it('a native leg has no token by nature: "not USDC" matches', () => {
    expect(run([tokenOnly], evmTransfer()).deniedBy[0]).toMatchObject({ reason: 'rule-matched', ruleId: 'only-usdc' });
  });

  it('a USDC leg passes; a request the decoder could not read is undecidable and denied', () => {
    expect(run([tokenOnly], evmTransfer({ legs: [{ to: OTHER, asset: USDC, amount: 5n }] })).allowed).toBe(true);
    const opaque = evmTransfer({ action: 'sign_transaction', legs: [], facts: { 'request.chainId': '84532' }, undecoded: 'calldata is not an ERC-20 transfer' });
    expect(run([tokenOnly], opaque).deniedBy).toEqual([{ reason: 'condition-undecidable', policyId: 'usdc-only', policyVersion: '1', ruleId: 'only-usdc' }]);
  });

  it('a request without network cannot read a meter: the aggregate rule denies', () => {
    const cap = compile(
      document({
        id: 'cosmos-cap', schemaVersion: 'permissions.policy.v1', version: '1', selector: { walletType: 'COSMOS' }, metadata: { productMode: 'guardrail' },
        rules: [
          { id: 'raw-ok', effect: 'allow', actions: ['raw_signature'] },
          { id: 'daily', effect: 'deny', actions: ['raw_signature'], condition: { aggregate: { meter: 'spend.token', window: '1d' }, op: 'gt', value: '10' } },
        ],
      }),
    );
    const raw: RequestFacts = { walletType: 'COSMOS', walletId: WALLET, apiKeyId: KEY, action: 'raw_signature', network: null, facts: {}, legs: [{ to: 'x', asset: 'uatom', amount: 5n }], undecoded: null };
    expect(run([cap], raw).deniedBy).toEqual([{ reason: 'condition-undecidable', policyId: 'cosmos-cap', policyVersion: '1', ruleId: 'daily' }]);
  });
});

describe('raw signatures', () => {
  const solanaRaw = compile(example('solana-raw.json'));
  const raw = (walletType: RequestFacts['walletType']): RequestFacts => ({ walletType, walletId: WALLET, apiKeyId: KEY, action: 'raw_signature', network: null, facts: {}, legs: [], undecoded: null });

  it('are allowed while permissions are off, denied once any policy is active, unless a rule allows raw_signature', () => {
    expect(run([], raw('SOLANA')).allowed).toBe(true);
    const guardrails = compile(example('evm-guardrails.json'));
    expect(run([guardrails], raw('SOLANA')).deniedBy).toEqual([{ reason: 'raw-signature-not-allowed' }]);
    expect(run([guardrails], raw('EVM')).deniedBy).toEqual([{ reason: 'raw-signature-not-allowed' }]);
    expect(run([guardrails, solanaRaw], raw('SOLANA')).allowed).toBe(true);
    expect(run([guardrails, solanaRaw], raw('SUI')).deniedBy).toEqual([{ reason: 'raw-signature-not-allowed' }]);
  });

  it('a policy outside its effective window neither turns permissions on nor allows', () => {
    const later = compile(document({ ...JSON.parse(readFileSync(new URL('solana-raw.json', examples), 'utf8')), effectiveFrom: '2027-01-01T00:00:00Z' }));
    expect(permissionsOn([later], context.now)).toBe(false);
    expect(run([later], raw('SOLANA')).allowed).toBe(true);
  });
});

describe('legs, totals and selectors', () => {
  const perRequestCap = compile(
    document({
      id: 'cap', schemaVersion: 'permissions.policy.v1', version: '3', selector: { walletType: 'SOLANA', walletId: [WALLET] }, metadata: { productMode: 'guardrail' },
      rules: [
        { id: 'cap', effect: 'deny', actions: 'all', condition: { fact: 'request.value.baseUnits', op: 'gt', value: '100' } },
        { id: 'tokens', effect: 'deny', actions: 'all', condition: { aggregate: { meter: 'spend.token', window: '12h' }, op: 'gt', value: '1000' } },
      ],
    }),
    3,
  );
  const solana = (legs: RequestFacts['legs']): RequestFacts => ({ walletType: 'SOLANA', walletId: WALLET, apiKeyId: KEY, action: 'transfer', network: 'solana:devnet', facts: { 'request.chainId': 'solana:devnet' }, legs, undecoded: null });
  const MINT_A = 'So11111111111111111111111111111111111111112';
  const MINT_B = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v';

  it('splitting a payment into legs does not get under a per-request cap', () => {
    const legs = [60n, 60n].map((amount, i) => ({ to: `dest${i}`, asset: 'native', amount }));
    expect(run([perRequestCap], solana(legs)).deniedBy.map((d) => d.ruleId)).toEqual(['cap']);
  });

  it('charges one token meter per asset moved, with the asset total; windows align to 12h UTC buckets', () => {
    const result = run([perRequestCap], solana([{ to: 'a', asset: MINT_A, amount: 400n }, { to: 'b', asset: MINT_A, amount: 500n }, { to: 'c', asset: MINT_B, amount: 7n }]));
    expect(result.allowed).toBe(true);
    expect(result.charges.map((c) => [c.key.asset, c.amount, c.key.windowStart.toISOString()])).toEqual([
      [MINT_A, 900n, '2026-11-24T12:00:00.000Z'],
      [MINT_B, 7n, '2026-11-24T12:00:00.000Z'],
    ]);
    expect(run([perRequestCap], solana([{ to: 'a', asset: MINT_A, amount: 900n }]), 101n).deniedBy.map((d) => [d.ruleId, d.reason])).toEqual([['tokens', 'spend-limit-exceeded']]);
  });

  it('walletId and apiKeyId selectors narrow the policy', () => {
    expect(applyingPolicies([perRequestCap], { ...solana([]), walletId: '6f1c1d2e-0000-4000-8000-000000000002' }, context.now)).toEqual([]);
    expect(applyingPolicies([perRequestCap], solana([]), context.now)).toHaveLength(1);
  });
});

describe('meter bounds: where a decision taken on meter values still holds', () => {
  // Limits on both sides of one meter, through not/any, so every op and both directions are cut.
  const policy = compile(
    document({
      id: 'bands', schemaVersion: 'permissions.policy.v1', version: '1', selector: { walletType: 'EVM' }, metadata: { productMode: 'guardrail' },
      rules: [
        { id: 'over', effect: 'deny', actions: ['transfer'], condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: '100' } },
        { id: 'band', effect: 'deny', actions: ['transfer'], condition: { any: [
          { all: [{ aggregate: { meter: 'spend.native', window: '1d' }, op: 'gte', value: '40' }, { aggregate: { meter: 'spend.native', window: '1d' }, op: 'lt', value: '50' }] },
          { not: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'lte', value: '20' } },
        ] } },
      ],
    }),
  );
  const facts = evmTransfer({ facts: { 'request.chainId': '84532', 'request.value.baseUnits': '5' }, legs: [{ to: DEAD, asset: 'native', amount: 5n }] });
  const decide = (total: bigint) => {
    const charges = meterChargesOf([policy], facts, context);
    const values = new Map<string, bigint>(charges.map((c) => [meterKeyId(c.key), total]));
    const decision = evaluatePolicies([policy], facts, values, context, { permissionsAreOn: true });
    return { ids: decision.deniedBy.map((d) => d.ruleId).join(','), bound: meterBounds([policy], facts, values, context).get(meterKeyId(charges[0]!.key))! };
  };

  it('cuts at each limit minus this request\'s charge, on the side the total is on', () => {
    // after = total + 5: "lte 20" flips at total 16, "gte 40" at 35, "lt 50" at 45, "gt 100" at 96.
    expect(decide(0n).bound).toEqual({ min: null, max: 15n });
    expect(decide(16n).bound).toEqual({ min: 16n, max: 34n });
    expect(decide(40n).bound).toEqual({ min: 35n, max: 44n });
    expect(decide(200n).bound).toEqual({ min: 96n, max: null });
  });

  it('every total inside the bounds gets the same decision as the total they were computed at', () => {
    for (let at = 0n; at <= 120n; at++) {
      const { ids, bound } = decide(at);
      for (let t = bound.min ?? 0n; t <= (bound.max ?? 130n); t++) expect([at, t, decide(t).ids]).toEqual([at, t, ids]);
    }
  });
});

describe('require_approval rules (evm-approvals.json)', () => {
  const approvals = [compile(example('evm-approvals.json'))];
  const large = evmTransfer({ facts: { 'request.chainId': '84532', 'request.value.baseUnits': '2000000000000000' }, legs: [{ to: DEAD, asset: 'native', amount: 2_000_000_000_000_000n }] });
  const evaluate = (policies: CompiledPolicy[], facts: RequestFacts, mode: 'deny' | 'review') =>
    evaluatePolicies(applyingPolicies(policies, facts, context.now), facts, new Map(), context, { permissionsAreOn: true, approvals: mode });
  const requirement = { policyId: 'evm-approvals', policyVersion: '1', ruleId: 'large', requirementId: 'finance-approval' };

  it('returns a matching rule apart from denials when approvals are available, with its stages and the 1 h default expiry', () => {
    expect(evaluate(approvals, large, 'review')).toEqual({
      allowed: true,
      deniedBy: [],
      approvals: [{ ...requirement, stages: [{ id: 'finance', roles: ['finance'], attributes: {}, requiredApprovals: 1 }], expiresInMs: 3_600_000 }],
      trace: [],
    });
    expect(evaluate(approvals, evmTransfer(), 'review')).toMatchObject({ allowed: true, approvals: [] });
  });

  it('denies with approval-not-available when they are not, as before', () => {
    expect(evaluate(approvals, large, 'deny')).toMatchObject({ allowed: false, approvals: [], deniedBy: [{ reason: 'approval-not-available', policyId: 'evm-approvals', ruleId: 'large' }] });
  });

  it('an undecidable condition needs approval (fail closed); a deny still wins', () => {
    const undecided = evmTransfer({ facts: { 'request.chainId': '84532' }, legs: [{ to: DEAD, asset: 'native', amount: null }], undecoded: 'calldata' });
    expect(evaluate(approvals, undecided, 'review').approvals).toEqual([expect.objectContaining(requirement)]);
    const both = [...approvals, compile(example('evm-guardrails.json'))];
    const result = evaluate(both, evmTransfer({ ...large, legs: [{ to: OTHER, asset: 'native', amount: 2_000_000_000_000_000n }] }), 'review');
    expect(result.allowed).toBe(false);
    expect(result.approvals).toEqual([]);
    expect(result.deniedBy.map((d) => d.reason)).not.toContain('approval-not-available');
  });

  it('a require_approval rule without approvalRequirement is a partner review: returned in either mode, no stages, 5 minutes', () => {
    const doc = example('evm-approvals.json');
    const partner = compile({ ...doc, id: 'partner', rules: doc.rules.map(({ approvalRequirement: _, ...rule }) => rule) });
    const review = { policyId: 'partner', policyVersion: '1', ruleId: 'large', requirementId: 'partner-review', stages: [], expiresInMs: 300_000 };
    for (const mode of ['deny', 'review'] as const) expect(evaluate([partner], large, mode)).toMatchObject({ allowed: true, deniedBy: [], approvals: [review] });
    expect(evaluate([partner], evmTransfer(), 'deny').approvals).toEqual([]);
    // With a conditional approval too: both in review mode; with the extension off the conditional one still denies.
    expect(evaluate([...approvals, partner], large, 'review').approvals).toEqual([expect.objectContaining(requirement), review]);
    expect(evaluate([...approvals, partner], large, 'deny')).toMatchObject({ allowed: false, approvals: [], deniedBy: [{ reason: 'approval-not-available' }] });
  });
});
