import { describe, expect, it } from 'vitest';
import { autoRetrySwitch, decideAutoRetry } from './auto-retry-policy.ts';

describe('decideAutoRetry', () => {
  const builtIn = { enabled: true, ceiling: '1000' };

  it('uses the built-in default when neither the request nor the project says anything', () => {
    expect(decideAutoRetry(undefined, null, builtIn)).toEqual({ enabled: true, ceiling: '1000' });
    expect(decideAutoRetry(undefined, null, { enabled: false, ceiling: '1000' })).toEqual({ enabled: false, ceiling: null });
  });

  it("applies the project's default when the request names none", () => {
    expect(decideAutoRetry(undefined, { enabled: false, maxFeePerGas: null }, builtIn)).toEqual({ enabled: false, ceiling: null });
    expect(decideAutoRetry(undefined, { enabled: true, maxFeePerGas: '500' }, builtIn)).toEqual({ enabled: true, ceiling: '500' });
    expect(decideAutoRetry(undefined, { enabled: true, maxFeePerGas: null }, builtIn)).toEqual({ enabled: true, ceiling: '1000' });
  });

  it("lets the request's switch win over the project's", () => {
    expect(decideAutoRetry({ enabled: true }, { enabled: false, maxFeePerGas: null }, builtIn)).toEqual({ enabled: true, ceiling: '1000' });
    expect(decideAutoRetry({ enabled: false, maxFeePerGas: '7' }, { enabled: true, maxFeePerGas: '500' }, builtIn)).toEqual({ enabled: false, ceiling: null });
  });

  it("takes the request's ceiling, else the project's, else the built-in one, even when the switch came from elsewhere", () => {
    expect(decideAutoRetry({ enabled: true, maxFeePerGas: '7' }, { enabled: true, maxFeePerGas: '500' }, builtIn)).toEqual({ enabled: true, ceiling: '7' });
    expect(decideAutoRetry({ enabled: true }, { enabled: false, maxFeePerGas: '500' }, builtIn)).toEqual({ enabled: true, ceiling: '500' });
  });
});

describe('autoRetrySwitch', () => {
  it("takes the request's switch, else the project's, else the built-in one", () => {
    expect(autoRetrySwitch(undefined, null, true)).toBe(true);
    expect(autoRetrySwitch(undefined, { enabled: false, maxFeePerGas: null }, true)).toBe(false);
    expect(autoRetrySwitch({ enabled: true }, { enabled: false, maxFeePerGas: null }, true)).toBe(true);
    expect(autoRetrySwitch({ enabled: false }, { enabled: true, maxFeePerGas: '5' }, true)).toBe(false);
  });
});
