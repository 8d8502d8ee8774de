import { describe, expect, it } from 'vitest';
import { distinctRequirements, valueProblem } from './approval-configurations.ts';

const key = { key: 'finance.requiredApprovals', min: 1, max: 3, default: 1 };

describe('valueProblem', () => {
  it('accepts integers within the bounds, bounds included', () => {
    for (const typed of ['1', '2', ' 3 ']) expect(valueProblem(typed, key)).toBeNull();
  });

  it('names the bounds or asks for a whole number', () => {
    expect(valueProblem('0', key)).toBe('between 1 and 3');
    expect(valueProblem('4', key)).toBe('between 1 and 3');
    expect(valueProblem('-1', key)).toBe('between 1 and 3');
    for (const typed of ['', '2.5', '1e1', 'two']) expect(valueProblem(typed, key)).toBe('a whole number');
  });
});

describe('distinctRequirements', () => {
  it('keeps the first entry of a requirement carried by several rules, in order', () => {
    const r = (requirementId: string, ruleId: string, policyVersion = '1') => ({ policyId: 'p', policyVersion, requirementId, ruleId });
    expect(distinctRequirements([r('a', 'x'), r('b', 'x'), r('a', 'y'), r('a', 'z', '2')])).toEqual([r('a', 'x'), r('b', 'x'), r('a', 'z', '2')]);
  });
});
