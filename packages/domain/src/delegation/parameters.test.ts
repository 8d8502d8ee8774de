import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { parsePolicyDocument, type PolicyDocument } from '../policies/document.ts';
import { checkParameterValue, parameterDeclarations } from './parameters.ts';

type Doc = Record<string, unknown>;
const cap = (parameter: Doc, extra: Doc = {}) => ({ fact: 'request.value.baseUnits', op: 'gt', value: '1000', parameter, ...extra });
const daily = (parameter: Doc) => ({ aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: '5000', parameter });
const delegation = (...conditions: Doc[]): Doc => ({
  id: 'user-limits',
  schemaVersion: 'permissions.policy.v1',
  version: '1',
  selector: { walletType: 'EVM' },
  metadata: { productMode: 'delegation', description: 'limits the user may adjust' },
  rules: conditions.map((condition, i) => ({ id: `r${i}`, effect: 'deny', actions: ['transfer'], condition })),
});

function problems(input: Doc) {
  const result = parsePolicyDocument(input);
  return result.ok ? [] : result.problems;
}

describe('delegation policies and parameters', () => {
  it('accepts a delegation policy with compare and aggregate parameters as written, and lists their declarations', () => {
    const input = delegation(cap({ id: 'per-transfer', label: 'Per transfer', min: '10', max: '100000' }), { all: [daily({ id: 'daily', label: 'Per day' })] });
    const result = parsePolicyDocument(input);
    expect(result.ok && result.document).toEqual(input);
    expect(parameterDeclarations(input as PolicyDocument)).toEqual([
      { id: 'per-transfer', label: 'Per transfer', default: '1000', min: '10', max: '100000', ruleId: 'r0', limit: { kind: 'compare', fact: 'request.value.baseUnits', op: 'gt' } },
      { id: 'daily', label: 'Per day', default: '5000', min: null, max: null, ruleId: 'r1', limit: { kind: 'aggregate', meter: 'spend.native', window: '1d', asset: null, op: 'gt' } },
    ]);
  });

  it.each([
    ['a default below min', delegation(cap({ id: 'p', label: 'P', min: '2000' })), 'rules.0.condition.value', /within the parameter's min..max \(2000..unbounded\)/],
    ['a default above max', delegation(cap({ id: 'p', label: 'P', max: '999' })), 'rules.0.condition.value', /0..999/],
    ['min above max', delegation(cap({ id: 'p', label: 'P', min: '5000', max: '10' })), 'rules.0.condition.parameter', /min 5000 is above max 10/],
    ['a duplicate parameter id', delegation(cap({ id: 'p', label: 'P' }), daily({ id: 'p', label: 'Q' })), 'rules.1.condition.parameter.id', /duplicate parameter id "p"/],
    ['a parameter on a non-amount fact', delegation({ fact: 'request.to', op: 'eq', value: '0x000000000000000000000000000000000000dEaD', parameter: { id: 'p', label: 'P' } }), 'rules.0.condition.parameter', /fact must be request.value.baseUnits or request.token.value.baseUnits/],
    ['a parameter on eq', delegation(cap({ id: 'p', label: 'P' }, { op: 'eq' })), 'rules.0.condition.op', /op must be lt, lte, gt or gte/],
    ['a decimal min', delegation(cap({ id: 'p', label: 'P', min: '1.5' })), 'rules.0.condition.parameter.min', /base units/],
    ['an empty label', delegation(cap({ id: 'p', label: ' ' })), 'rules.0.condition.parameter.label', /1-100/],
    ['an unknown parameter key', delegation(cap({ id: 'p', label: 'P', step: '1' })), 'rules.0.condition.parameter.step', /unknown key/],
    ['a parameter in a guardrail policy', { ...delegation(daily({ id: 'p', label: 'P' })), metadata: { productMode: 'guardrail' } }, 'rules.0.condition.parameter', /only for delegation policies/],
    ['another product mode', { ...delegation(cap({ id: 'p', label: 'P' })), metadata: { productMode: 'request' } }, 'metadata.productMode', /"guardrail" .* or "delegation"/],
  ])('refuses %s at its path', (_name, input, path, message) => {
    const found = problems(input);
    expect(found.map((p) => p.path)).toContain(path);
    expect(found.find((p) => p.path === path)!.message).toMatch(message);
  });

  it('checks saved values against min and max, canonicalising them', () => {
    const [declaration] = parameterDeclarations(delegation(cap({ id: 'p', label: 'P', min: '10', max: '100' })) as PolicyDocument);
    expect(checkParameterValue(declaration!, '10')).toBe('10');
    expect(checkParameterValue(declaration!, '100')).toBe('100');
    for (const [value, message] of [['9', /below the minimum 10/], ['101', /above the maximum 100/], ['1e3', /base units/], ['-1', /base units/], ['010', /base units/]] as const) {
      const error = (() => {
        try {
          checkParameterValue(declaration!, value);
        } catch (e) {
          return e;
        }
      })();
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(400);
      expect((error as ApiError).message).toMatch(message);
    }
  });
});
