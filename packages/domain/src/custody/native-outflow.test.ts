import { encodeFunctionData, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { encodeExecuteBatch, SIMPLE_7702_EXECUTE_ABI } from '../calls/encoding.ts';
import { nativeOutflow } from './native-outflow.ts';
import type { VaultWallet } from './vault.ts';

const wallet: VaultWallet = { id: 'w1', type: 'EVM', scheme: 'DKLS', address: '0x1111111111111111111111111111111111111111', publicKey: null } as unknown as VaultWallet;
const other = '0x2222222222222222222222222222222222222222' as Hex;
const tx = (to: string, value: bigint, data?: Hex) => ({
  transaction: { to, value: value.toString(), chainId: 84532, type: 2, nonce: 0, gasLimit: '100000', maxFeePerGas: '2', maxPriorityFeePerGas: '1', ...(data ? { data } : {}) },
});
const execute = (value: bigint) =>
  encodeFunctionData({
    abi: SIMPLE_7702_EXECUTE_ABI,
    functionName: 'execute',
    args: [other, value, '0x'],
  });

describe("the signer's reading of the native value an EVM transaction sends", () => {
  it("counts the transaction's value", () => {
    expect(nativeOutflow(wallet, 'transaction', tx(other, 5n))).toEqual({ chain: 'EVM', value: 5n });
  });

  it('counts the calls a transaction of the wallet to itself runs through its delegation (executeBatch, execute)', () => {
    const batch = encodeExecuteBatch([
      { to: other, value: 3n, data: '0x' },
      { to: other, value: 4n, data: '0xabcdef01' },
    ]);
    expect(nativeOutflow(wallet, 'transaction', tx(wallet.address.toUpperCase().replace('0X', '0x'), 0n, batch))).toEqual({ chain: 'EVM', value: 7n });
    expect(nativeOutflow(wallet, 'transaction', tx(wallet.address, 1n, execute(9n)))).toEqual({ chain: 'EVM', value: 10n });
    // The same calldata to another contract is that contract's business: only the transaction's value leaves.
    expect(nativeOutflow(wallet, 'transaction', tx(other, 0n, batch))).toEqual({ chain: 'EVM', value: 0n });
  });

  it('reads other calldata to the wallet itself as an amount it cannot decode; a plain self-transfer moves nothing', () => {
    expect(nativeOutflow(wallet, 'transaction', tx(wallet.address, 0n, '0xdeadbeef'))).toEqual({ chain: 'EVM', value: null });
    expect(nativeOutflow(wallet, 'transaction', tx(wallet.address, 0n))).toEqual({ chain: 'EVM', value: 0n });
  });
});
