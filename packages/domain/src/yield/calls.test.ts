import { encodeErrorResult, encodeFunctionData, erc20Abi, maxUint256, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { AAVE_POOL_ABI, BUNDLER_V2_ABI, ERC20_ABI, ERC4626_VAULT_ABI } from './abis.ts';
import { minSharesFor, revertReason, YIELD_SIGNING_ACTIONS, yieldSigningActionOf } from './calls.ts';

describe('yield calls', () => {
  it("names a step's signing action from its calldata (a fee replacement signs the same call again)", () => {
    const a = '0x00000000000000000000000000000000000000a1' as Hex;
    expect(yieldSigningActionOf(encodeFunctionData({ abi: ERC20_ABI, functionName: 'approve', args: [a, 1n] }))).toBe(YIELD_SIGNING_ACTIONS.approve);
    expect(yieldSigningActionOf(encodeFunctionData({ abi: AAVE_POOL_ABI, functionName: 'supply', args: [a, 1n, a, 0] }))).toBe(YIELD_SIGNING_ACTIONS.supply);
    expect(yieldSigningActionOf(encodeFunctionData({ abi: AAVE_POOL_ABI, functionName: 'withdraw', args: [a, maxUint256, a] }))).toBe(YIELD_SIGNING_ACTIONS.withdraw);
    expect(yieldSigningActionOf(encodeFunctionData({ abi: ERC4626_VAULT_ABI, functionName: 'withdraw', args: [1n, a, a] }))).toBe(YIELD_SIGNING_ACTIONS.withdraw);
    expect(yieldSigningActionOf(encodeFunctionData({ abi: ERC4626_VAULT_ABI, functionName: 'redeem', args: [1n, a, a] }))).toBe(YIELD_SIGNING_ACTIONS.redeem);
    expect(yieldSigningActionOf(encodeFunctionData({ abi: BUNDLER_V2_ABI, functionName: 'multicall', args: [[]] }))).toBe(YIELD_SIGNING_ACTIONS.vaultBundlesV1Deposit);
    // A transfer, or no call at all, is no yield step.
    expect(yieldSigningActionOf(encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [a, 1n] }))).toBeNull();
    expect(yieldSigningActionOf(null)).toBeNull();
  });

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
