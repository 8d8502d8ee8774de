import { describe, expect, it } from 'vitest';
import { callsInput, MAX_CALLS } from './schemas.ts';

const TOKEN = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const issues = (body: unknown) => {
  const parsed = callsInput.safeParse(body);
  return parsed.success ? [] : parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
};

describe('the calls body', () => {
  it('takes 1 to MAX_CALLS calls with optional value and data, chainId as a number or a string', () => {
    expect(callsInput.parse({ chainId: '84532', calls: [{ to: TOKEN }] })).toEqual({ chainId: 84532, calls: [{ to: TOKEN }] });
    expect(issues({ chainId: 84532, calls: Array.from({ length: MAX_CALLS }, () => ({ to: TOKEN, value: '1', data: '0x' })) })).toEqual([]);
    expect(issues({ chainId: 84532, calls: [] })).toEqual(['calls: must hold at least one call']);
    expect(issues({ chainId: 84532, calls: Array.from({ length: MAX_CALLS + 1 }, () => ({ to: TOKEN })) })).toEqual([`calls: must hold at most ${MAX_CALLS} calls`]);
  });

  it('names each bad field', () => {
    expect(issues({ chainId: 84532, calls: [{ to: '0x12' }] })).toEqual(['calls.0.to: must be a 0x-prefixed 20-byte EVM address']);
    expect(issues({ chainId: 84532, calls: [{ to: TOKEN, data: '0x123' }] })).toEqual(['calls.0.data: must be 0x-prefixed hex with an even number of digits']);
    expect(issues({ chainId: 84532, calls: [{ to: TOKEN, value: '1.5' }] })[0]).toMatch(/^calls\.0\.value: expected a non-negative integer in wei/);
    expect(issues({ chainId: 84532, calls: [{ to: TOKEN, gas: 1 }] })[0]).toMatch(/^calls\.0: /);
    expect(issues({ chainId: 84532, calls: [{ to: TOKEN }], maxFeePerGas: '1', maxPriorityFeePerGas: '2' })).toEqual(['maxPriorityFeePerGas: must not exceed maxFeePerGas']);
    expect(issues({ chainId: 84532, calls: [{ to: TOKEN }], maxFeePerGas: '5', autoRetry: { enabled: true } })[0]).toMatch(/^maxFeePerGas: pins/);
    expect(issues({ chainId: 84532, calls: [{ to: TOKEN }], sponsored: true, gasLimit: '1' })[0]).toMatch(/^gasLimit: not for a sponsored batch/);
  });
});
