import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import { createYieldExecutionSwitch, defaultYieldExecutionMode, yieldDisabled } from './execution.ts';

const outcome = (run: () => void) => {
  try {
    run();
    return 'allowed';
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return `${(error as ApiError).status} ${(error as ApiError).code}`;
  }
};

describe('the yield execution switch', () => {
  it('lets everything start when enabled', () => {
    const on = createYieldExecutionSwitch('enabled');
    expect(outcome(() => on.assertAllowed('deposit'))).toBe('allowed');
    expect(outcome(() => on.assertAllowed('withdraw'))).toBe('allowed');
  });

  it('refuses every new operation with 409 YIELD_DISABLED when disabled', () => {
    const off = createYieldExecutionSwitch('disabled');
    expect(outcome(() => off.assertAllowed('deposit'))).toBe('409 YIELD_DISABLED');
    expect(outcome(() => off.assertAllowed('withdraw'))).toBe('409 YIELD_DISABLED');
    expect(off.allows('withdraw')).toBe(false);
  });

  it('refuses only deposits with withdrawals-only', () => {
    const exitOnly = createYieldExecutionSwitch('withdrawals-only');
    expect(outcome(() => exitOnly.assertAllowed('deposit'))).toBe('409 YIELD_DISABLED');
    expect(outcome(() => exitOnly.assertAllowed('withdraw'))).toBe('allowed');
  });

  it('says in the body that reads stay available', () => {
    expect(yieldDisabled('deposit').toBody()).toEqual({
      code: 'YIELD_DISABLED',
      message: 'New yield execution or deposits are temporarily disabled in this environment (deposits refused); reads, status and cancellation of eligible unsigned work stay available',
    });
  });

  it('defaults to enabled only locally', () => {
    expect(defaultYieldExecutionMode('local')).toBe('enabled');
    expect(defaultYieldExecutionMode('beta')).toBe('disabled');
    expect(defaultYieldExecutionMode('production')).toBe('disabled');
  });
});
