import { describe, expect, it } from 'vitest';
import { parsePolicyDocument, type PolicyDocument } from '../policies/document.ts';
import { applyingPolicies, evaluatePolicies, meterChargesOf, type EvaluationContext } from '../policies/evaluate.ts';
import { meterKeyId, type RequestFacts } from '../policies/evaluation-types.ts';
import type { PolicyVersionRecord } from '../policies/ports.ts';
import { delegationPoliciesFor } from './enforcement.ts';
import type { ConsentRecord } from './ports.ts';

const WALLET = '6f1c1d2e-0000-4000-8000-000000000001';
const USER = '6f1c1d2e-0000-4000-8000-0000000000aa';
const context: EvaluationContext = { projectId: 'p1', environment: 'development', now: new Date('2026-11-24T15:30:00Z') };

function document(max = '100000'): PolicyDocument {
  const parsed = parsePolicyDocument({
    id: 'user-limits',
    schemaVersion: 'permissions.policy.v1',
    version: '1',
    selector: { walletType: 'EVM' },
    metadata: { productMode: 'delegation' },
    rules: [
      { id: 'per-transfer', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.value.baseUnits', op: 'gt', value: '1000', parameter: { id: 'cap', label: 'Cap', min: '10', max } } },
      { id: 'daily', effect: 'deny', actions: ['transfer'], condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: '5000', parameter: { id: 'daily', label: 'Per day' } } },
    ],
  });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return parsed.document;
}

const record = (doc: PolicyDocument, version = 1) => ({ policyId: doc.id, version, walletType: 'EVM', document: doc }) as PolicyVersionRecord;
const consent = (over: Partial<ConsentRecord> = {}): ConsentRecord => ({
  userId: USER, walletId: WALLET, policyId: 'user-limits', policyVersion: 1, status: 'standing', consentedAt: context.now, revokedAt: null, updatedAt: context.now, ...over,
});
const transfer = (amount: bigint): RequestFacts => ({
  walletType: 'EVM', walletId: WALLET, apiKeyId: 'k', action: 'transfer', network: '84532',
  facts: { 'request.chainId': '84532', 'request.value.baseUnits': amount.toString() },
  legs: [{ to: '0x000000000000000000000000000000000000dead', asset: 'native', amount }], undecoded: null,
});

/** Evaluates the delegation policies for a transfer with the daily meter at `spent`. */
function decide(policies: PolicyVersionRecord[], consents: ConsentRecord[], values: Record<string, string>, amount: bigint, spent = 0n, claimedByUserId: string | null = USER) {
  const { apply, denials } = delegationPoliciesFor({ policies, wallet: { id: WALLET, type: 'EVM', claimedByUserId }, consents, values: new Map([['user-limits', values]]) });
  const facts = transfer(amount);
  const applying = applyingPolicies(apply, facts, context.now);
  const totals = new Map(meterChargesOf(applying, facts, context).map((c) => [meterKeyId(c.key), spent]));
  const result = evaluatePolicies(applying, facts, totals, context, { permissionsAreOn: true });
  return { denials, allowed: result.allowed, deniedBy: result.deniedBy.map((d) => d.ruleId) };
}

describe('delegation policies on a user-owned wallet', () => {
  it('deny with consent-required without a standing consent to the active version', () => {
    const denied = [{ reason: 'consent-required', policyId: 'user-limits', policyVersion: '2' }];
    expect(decide([record(document(), 2)], [], {}, 1n).denials).toEqual(denied);
    expect(decide([record(document(), 2)], [consent()], {}, 1n).denials).toEqual(denied);
    expect(decide([record(document(), 2)], [consent({ policyVersion: 2, status: 'revoked', revokedAt: context.now })], {}, 1n).denials).toEqual(denied);
    expect(decide([record(document(), 2)], [consent({ policyVersion: 2, userId: WALLET })], {}, 1n).denials).toEqual(denied);
    expect(decide([record(document(), 2)], [consent({ policyVersion: 2 })], {}, 1n)).toEqual({ denials: [], allowed: true, deniedBy: [] });
  });

  it('compare limits against the user value, else the default; a value outside new bounds falls back to the default', () => {
    const policies = [record(document())];
    expect(decide(policies, [consent()], {}, 2000n)).toMatchObject({ allowed: false, deniedBy: ['per-transfer'] });
    expect(decide(policies, [consent()], { cap: '50000' }, 2000n)).toMatchObject({ allowed: true });
    expect(decide(policies, [consent()], { cap: '50000' }, 50001n)).toMatchObject({ allowed: false, deniedBy: ['per-transfer', 'daily'] });
    expect(decide([record(document('20000'))], [consent()], { cap: '50000' }, 2000n)).toMatchObject({ allowed: false, deniedBy: ['per-transfer'] });
    // The daily meter: 4500 spent + 1000 > 5000 by default, within a saved 6000.
    expect(decide(policies, [consent()], {}, 1000n, 4500n)).toMatchObject({ allowed: false, deniedBy: ['daily'] });
    expect(decide(policies, [consent()], { daily: '6000' }, 1000n, 4500n)).toMatchObject({ allowed: true });
  });

  it('leave app-owned wallets to the guardrails', () => {
    expect(delegationPoliciesFor({ policies: [record(document())], wallet: { id: WALLET, type: 'EVM', claimedByUserId: null }, consents: [], values: new Map() })).toEqual({ apply: [], denials: [] });
  });
});
