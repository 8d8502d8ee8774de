import { describe, expect, it } from 'vitest';
import { checkGasCap } from './gas-cap.ts';
import { DEFAULT_GAS_CAP_WEI } from './settings.ts';

describe('checkGasCap', () => {
  it('admits a maximum cost up to the cap, the cap included', () => {
    expect(checkGasCap({ gasCapWei: '1000' }, 0n)).toEqual({ ok: true });
    expect(checkGasCap({ gasCapWei: '1000' }, 1000n)).toEqual({ ok: true });
    expect(checkGasCap({ gasCapWei: DEFAULT_GAS_CAP_WEI.toString() }, 10n ** 15n)).toEqual({ ok: true });
  });

  it('refuses one wei above, with both amounts', () => {
    expect(checkGasCap({ gasCapWei: '1000' }, 1001n)).toEqual({
      ok: false,
      code: 'SPONSORSHIP_GAS_CAP_EXCEEDED',
      message: 'The operation may cost up to 1001 wei of gas, above the sponsorship gas cap of 1000 wei per operation',
      gasCapWei: '1000',
      maxCostWei: '1001',
    });
    const max = (1n << 256n) - 1n;
    expect(checkGasCap({ gasCapWei: (max - 1n).toString() }, max)).toMatchObject({ ok: false, maxCostWei: max.toString() });
  });

  it('never takes a negative cost', () => {
    expect(() => checkGasCap({ gasCapWei: '1000' }, -1n)).toThrow(RangeError);
  });
});
