import { decodeFunctionData, encodeAbiParameters, encodeErrorResult, encodeFunctionData, erc20Abi, parseAbi, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { decodeBatchRevert, encodeExecuteBatch, EXECUTE_BATCH_ABI } from './encoding.ts';

const TOKEN = '0x036CbD53842c5426634e7929541eC2318f3dCF7e';
const POOL = '0x8bAB6d1b75f19e9eD9fCe8b9BD338844fF79aE27';
const executeError = (index: bigint, inner: Hex) =>
  encodeErrorResult({ abi: parseAbi(['error ExecuteError(uint256 index, bytes inner)']), errorName: 'ExecuteError', args: [index, inner] });
const errorString = (text: string) => `0x08c379a0${encodeAbiParameters([{ type: 'string' }], [text]).slice(2)}` as Hex;

describe('the batch calldata and its revert', () => {
  it('encodes executeBatch as Simple7702Account takes it', () => {
    const approve = encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [POOL, 5n] });
    const data = encodeExecuteBatch([{ to: TOKEN, value: 0n, data: approve }, { to: POOL, value: 7n, data: '0x' }]);
    expect(data.slice(0, 10)).toBe('0x34fcd5be');
    const decoded = decodeFunctionData({ abi: EXECUTE_BATCH_ABI, data });
    expect(decoded.args[0]).toEqual([
      { target: TOKEN, value: 0n, data: approve },
      { target: POOL, value: 7n, data: '0x' },
    ]);
  });

  it('names the failing call of a batch and decodes its reason', () => {
    const insufficient = encodeErrorResult({
      abi: parseAbi(['error ERC20InsufficientAllowance(address spender, uint256 allowance, uint256 needed)']),
      errorName: 'ERC20InsufficientAllowance',
      args: [POOL, 1n, 5n],
    });
    expect(decodeBatchRevert(executeError(1n, insufficient), 2)).toEqual({
      callIndex: 1,
      reason: `ERC20InsufficientAllowance(${POOL}, 1, 5)`,
      errorName: 'ERC20InsufficientAllowance',
      revertData: insufficient,
    });
    expect(decodeBatchRevert(executeError(0n, errorString('51')), 3)).toMatchObject({ callIndex: 0, reason: 'Error("51")', errorName: 'Error' });
    expect(decodeBatchRevert(executeError(2n, '0x'), 3)).toMatchObject({ callIndex: 2, reason: 'reverted without a reason', errorName: null });
    expect(decodeBatchRevert(executeError(1n, '0xdeadbeef'), 2)).toMatchObject({ callIndex: 1, reason: 'reverted with undecoded error 0xdeadbeef' });
  });

  it('reads a one-call batch as that call, and a revert without ExecuteError as the batch\'s own', () => {
    expect(decodeBatchRevert(errorString('no'), 1)).toMatchObject({ callIndex: 0, reason: 'Error("no")' });
    expect(decodeBatchRevert('0x', 2)).toMatchObject({ callIndex: null, reason: 'reverted without a reason' });
  });
});
