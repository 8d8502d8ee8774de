import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { encodeExecuteBatch } from '@wallet/domain';
import { describe, expect, it } from 'vitest';
import { AUTHORIZATION_GAS, calldataGas, relayerPreVerificationGas } from './pre-verification-gas.ts';
import { buildSponsoredTransfer } from './user-operation.ts';

const token = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const recipient = '0x2222222222222222222222222222222222222222';
const base = { sender: '0x1234567890123456789012345678901234567890', token, recipient, amount: 7_000_000n, nonce: 3n, paymaster: '0x3333333333333333333333333333333333333333', maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000n } as const;
const authorization = { address: '0xe6Cae83BdE06E4c305530e199D7217f42808555B', chainId: 84532, nonce: 0, r: `0x${'11'.repeat(32)}`, s: `0x${'22'.repeat(32)}`, yParity: 1 } as const;
const batch = (calls: { to: Hex; value: bigint; data: Hex }[]) => buildSponsoredTransfer({ ...base, callData: encodeExecuteBatch(calls), gasLimits: { callGasLimit: 150_000n } });

describe('relayerPreVerificationGas', () => {
  it('counts calldata at 16 gas per non-zero byte and 4 per zero byte, and the EIP-7623 floor at 40 and 10', () => {
    expect(calldataGas('0x')).toEqual({ standard: 0n, floor: 0n });
    expect(calldataGas('0x00ff00ab')).toEqual({ standard: 4n + 16n + 4n + 16n, floor: 10n + 40n + 10n + 40n });
  });

  it('gives a transfer what was measured on anvil (45.7k beyond the EntryPoint) with little headroom, and its authorization more', () => {
    const transfer = buildSponsoredTransfer(base);
    const gas = relayerPreVerificationGas(transfer);
    expect(gas).toBeGreaterThanOrEqual(45_700n);
    expect(gas).toBeLessThan(52_000n);
    // The authorization's own cost, and its initCode marker in the calldata.
    const first = relayerPreVerificationGas({ ...transfer, authorization });
    expect(first).toBeGreaterThan(gas + AUTHORIZATION_GAS);
    expect(first).toBeLessThan(gas + AUTHORIZATION_GAS + 1_000n);
  });

  it('grows with the batch: every byte of calldata a call adds is counted', () => {
    const approve = { to: token as Hex, value: 0n, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [recipient, 1n] }) };
    const one = relayerPreVerificationGas(batch([approve]));
    const two = relayerPreVerificationGas(batch([approve, approve]));
    // A second call adds its tuple (offset, to, value, data offset, length, 68 bytes of data padded to 96).
    expect(two - one).toBeGreaterThanOrEqual(4n * 32n * 4n + 68n * 4n);
    const withData = relayerPreVerificationGas(batch([{ ...approve, data: `0x${'ab'.repeat(1000)}` }]));
    expect(withData - one).toBeGreaterThanOrEqual(16n * (1000n - 68n));
  });

  it('bounds a batch of large calldata by the EIP-7623 floor, which then exceeds the standard count', () => {
    const calls = Array.from({ length: 10 }, () => ({ to: token as Hex, value: 0n, data: `0x${'ab'.repeat(24 * 1024)}` as Hex }));
    const gas = relayerPreVerificationGas(batch(calls));
    const nonZero = 10n * 24n * 1024n;
    expect(gas).toBeGreaterThanOrEqual(21_000n + 40n * nonZero);
    expect(gas).toBeLessThan(21_000n + 40n * nonZero + 200_000n);
  });
});
