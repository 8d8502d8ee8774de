import { describe, expect, it } from 'vitest';
import type { PolicyVersionRecord } from '../policies/ports.ts';
import { parsePolicyDocument } from '../policies/document.ts';
import { applyConfiguration, changesEffective, declarationsOf, effectiveValues, requirementsOf, valueProblems } from './requirements.ts';

const stage = (id: string, requiredApprovals: number, range?: { min: number; max: number }) => ({
  id,
  eligibility: { roles: [id] },
  requiredApprovals,
  ...(range ? { configurable: { requiredApprovals: range } } : {}),
});
const rule = (id: string, requirementId: string, stages: unknown[]) => ({ id, effect: 'require_approval', actions: 'all', approvalRequirement: { id: requirementId, stages } });

function version(rules: unknown[], policyVersion = 1): PolicyVersionRecord {
  const parsed = parsePolicyDocument({ id: 'p', schemaVersion: 'permissions.policy.v1', version: '1', selector: { walletType: 'EVM' }, metadata: { productMode: 'guardrail' }, rules });
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  return { policyId: 'p', version: policyVersion, document: parsed.document } as PolicyVersionRecord;
}

describe('approval requirements and their configuration', () => {
  const two = version([
    { id: 'deny-all', effect: 'deny', actions: 'all' },
    rule('big', 'board', [stage('finance', 2, { min: 1, max: 3 }), stage('cfo', 1)]),
  ]);
  const [board] = requirementsOf([two]);

  it('lists one entry per require_approval rule with its stages and only the declared configurable values', () => {
    expect(requirementsOf([two])).toEqual([
      {
        policyId: 'p',
        policyVersion: '1',
        ruleId: 'big',
        requirementId: 'board',
        stages: [
          { id: 'finance', eligibility: { roles: ['finance'], attributes: {} }, requiredApprovals: 2 },
          { id: 'cfo', eligibility: { roles: ['cfo'], attributes: {} }, requiredApprovals: 1 },
        ],
        configurable: [{ key: 'finance.requiredApprovals', min: 1, max: 3, default: 2 }],
      },
    ]);
  });

  it('applies values over the defaults, stage by stage', () => {
    expect(effectiveValues(board!, null)).toEqual({ 'finance.requiredApprovals': 2 });
    expect(applyConfiguration(board!, { 'finance.requiredApprovals': 3 }).map((s) => s.requiredApprovals)).toEqual([3, 1]);
    expect(applyConfiguration(board!, {}).map((s) => s.requiredApprovals)).toEqual([2, 1]);
  });

  it('sees a change only when a value in force moves', () => {
    const entries = [board!];
    expect(changesEffective(entries, null, { 'finance.requiredApprovals': 2 })).toBe(false);
    expect(changesEffective(entries, null, { 'finance.requiredApprovals': 3 })).toBe(true);
    expect(changesEffective(entries, { 'finance.requiredApprovals': 2 }, {})).toBe(false);
    expect(changesEffective(entries, { 'finance.requiredApprovals': 1 }, {})).toBe(true);
  });

  it('names undeclared keys and values outside the bounds; a shared requirement id must fit every declaration', () => {
    const declarations = declarationsOf([board!]);
    expect(valueProblems({ 'finance.requiredApprovals': 3 }, declarations)).toEqual([]);
    expect(valueProblems({ 'cfo.requiredApprovals': 1, 'finance.requiredApprovals': 2.5 }, declarations)).toEqual([
      { path: 'values.cfo.requiredApprovals', message: 'not a configurable value of this requirement (declared: finance.requiredApprovals)' },
      { path: 'values.finance.requiredApprovals', message: 'expected an integer from 1 to 3' },
    ]);
    const shared = requirementsOf([version([rule('a', 'same', [stage('finance', 2, { min: 1, max: 3 })]), rule('b', 'same', [stage('finance', 2, { min: 2, max: 5 })])])]);
    expect(shared.map((r) => r.ruleId)).toEqual(['a', 'b']);
    expect(valueProblems({ 'finance.requiredApprovals': 1 }, declarationsOf(shared))).toEqual([{ path: 'values.finance.requiredApprovals', message: 'expected an integer from 2 to 3' }]);
  });
});
