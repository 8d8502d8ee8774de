/**
 * The batch's calldata and its revert: Simple7702Account's `executeBatch((address,uint256,bytes)[])`
 * (ERC-4337 v0.8 BaseAccount) and the `ExecuteError(index, error)` it reverts with when a call of a
 * batch of two or more fails (a batch of one reverts with the call's own data). The failing call's
 * own revert is decoded where its ABI is known: Error(string), Panic(uint256), OpenZeppelin's ERC-20 errors.
 */
import { decodeErrorResult, encodeFunctionData, type Hex } from 'viem';
import type { ChainCall } from './ports.ts';

export const EXECUTE_BATCH_ABI = [
  {
    type: 'function',
    name: 'executeBatch',
    stateMutability: 'nonpayable',
    inputs: [
      {
        name: 'calls',
        type: 'tuple[]',
        components: [
          { name: 'target', type: 'address' },
          { name: 'value', type: 'uint256' },
          { name: 'data', type: 'bytes' },
        ],
      },
    ],
    outputs: [],
  },
] as const;

/** Simple7702Account's single call, `execute(target, value, data)` (the sponsored transfers' user operations run it). */
export const SIMPLE_7702_EXECUTE_ABI = [
  {
    type: 'function',
    name: 'execute',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'target', type: 'address' },
      { name: 'value', type: 'uint256' },
      { name: 'data', type: 'bytes' },
    ],
    outputs: [],
  },
] as const;

const EXECUTE_ERROR_ABI = [{ type: 'error', name: 'ExecuteError', inputs: [{ name: 'index', type: 'uint256' }, { name: 'error', type: 'bytes' }] }] as const;

/** OpenZeppelin 5 IERC20Errors: the reverts of the test USDC and most current tokens. */
const ERC20_ERRORS_ABI = [
  { type: 'error', name: 'ERC20InsufficientBalance', inputs: [{ name: 'sender', type: 'address' }, { name: 'balance', type: 'uint256' }, { name: 'needed', type: 'uint256' }] },
  { type: 'error', name: 'ERC20InvalidSender', inputs: [{ name: 'sender', type: 'address' }] },
  { type: 'error', name: 'ERC20InvalidReceiver', inputs: [{ name: 'receiver', type: 'address' }] },
  { type: 'error', name: 'ERC20InsufficientAllowance', inputs: [{ name: 'spender', type: 'address' }, { name: 'allowance', type: 'uint256' }, { name: 'needed', type: 'uint256' }] },
  { type: 'error', name: 'ERC20InvalidApprover', inputs: [{ name: 'approver', type: 'address' }] },
  { type: 'error', name: 'ERC20InvalidSpender', inputs: [{ name: 'spender', type: 'address' }] },
] as const;

export function encodeExecuteBatch(calls: ChainCall[]): Hex {
  return encodeFunctionData({ abi: EXECUTE_BATCH_ABI, functionName: 'executeBatch', args: [calls.map((c) => ({ target: c.to, value: c.value, data: c.data }))] });
}

/** Why a batch reverted: the failing call (null when the revert names none) and its decoded reason. */
export interface BatchRevert {
  callIndex: number | null;
  /** e.g. `ERC20InsufficientBalance(0xabc…, 0, 5000000)`, `Error("not enough")`, or the undecoded selector. */
  reason: string;
  /** The decoded error's name, when known. */
  errorName: string | null;
  /** The failing call's own revert data (0x-hex; `0x` when it gave none). */
  revertData: Hex;
}

function reasonOf(data: Hex): { reason: string; errorName: string | null } {
  if (data === '0x') return { reason: 'reverted without a reason', errorName: null };
  try {
    // viem knows Error(string) and Panic(uint256) besides the ABI's errors.
    const decoded = decodeErrorResult({ abi: ERC20_ERRORS_ABI, data });
    const name: string = decoded.errorName;
    const args = ((decoded.args ?? []) as readonly unknown[]).map((a) => (name === 'Error' ? JSON.stringify(a) : String(a)));
    return { reason: `${name}(${args.join(', ')})`, errorName: name };
  } catch {
    return { reason: `reverted with undecoded error ${data.slice(0, 10)}`, errorName: null };
  }
}

/** The revert of `executeBatch` over `callCount` calls. */
export function decodeBatchRevert(data: Hex, callCount: number): BatchRevert {
  if (callCount > 1) {
    try {
      const decoded = decodeErrorResult({ abi: EXECUTE_ERROR_ABI, data });
      const [index, inner] = decoded.args as readonly [bigint, Hex];
      return { callIndex: Number(index), ...reasonOf(inner), revertData: inner };
    } catch {
      // Not ExecuteError: the batch itself failed (e.g. out of gas before a call, a delegate that is no Simple7702Account).
      return { callIndex: null, ...reasonOf(data), revertData: data };
    }
  }
  return { callIndex: 0, ...reasonOf(data), revertData: data };
}
