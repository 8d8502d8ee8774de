import { encodeErrorResult } from 'viem';
import { describe, expect, it } from 'vitest';
import { minSharesFor, revertReason } from './calls.ts';

describe('yield calls', () => {
  it('bounds the vault deposit at a share price at most 0.03 % above the preview, rounding the minimum up', () => {
    expect(minSharesFor(10_003n)).toBe(10_000n);
    expect(minSharesFor(10_004n)).toBe(10_001n);
    expect(minSharesFor(1_000_000_000_000_000_000n)).toBe(999_700_089_973_008_098n);
    for (const preview of [1n, 999n, 10n ** 24n + 7n]) {
      const min = minSharesFor(preview);
      // The price the bound allows (assets per share) is at most 1.0003 times the preview's.
      expect(min * 10_003n).toBeGreaterThanOrEqual(preview * 10_000n);
      expect((min - 1n) * 10_003n).toBeLessThan(preview * 10_000n);
    }
  });

  it("reads a revert's reason: Error(string), Panic with its code, or none", () => {
    const errorAbi = [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }] as const;
    const panicAbi = [{ type: 'error', name: 'Panic', inputs: [{ name: 'code', type: 'uint256' }] }] as const;
    expect(revertReason({ ok: false, revertData: encodeErrorResult({ abi: errorAbi, errorName: 'Error', args: ['51'] }), message: 'reverted' })).toBe('51');
    expect(revertReason({ ok: false, revertData: encodeErrorResult({ abi: panicAbi, errorName: 'Panic', args: [0x11n] }), message: 'reverted' })).toBe('Panic(0x11)');
    expect(revertReason({ ok: false, revertData: null, message: 'reverted' })).toBeNull();
    expect(revertReason({ ok: false, revertData: '0x', message: 'reverted' })).toBeNull();
  });
});
