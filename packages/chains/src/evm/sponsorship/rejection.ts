/**
 * Why the EntryPoint refuses an operation (handleOps reverts with FailedOp / FailedOpWithRevert):
 * the ERC-4337 code (`AA25 invalid account nonce`, `AA34 signature error`, …) out of a viem error.
 */
import { decodeErrorResult, type Hex } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { revertDataOf } from './revert-data.ts';

export class UserOperationRejectedError extends Error {
  override readonly name = 'UserOperationRejectedError';
  constructor(
    /** The ERC-4337 code, e.g. `AA25` (AA2x: account, AA3x: paymaster, AA9x: handleOps itself). */
    readonly code: string,
    /** The EntryPoint's reason text, e.g. `AA25 invalid account nonce`. */
    readonly reason: string,
    /** The account's or paymaster's own revert data (FailedOpWithRevert), else undefined. */
    readonly inner?: Hex,
  ) {
    super(`the EntryPoint refused the user operation: ${reason}`);
  }
}

/** The EntryPoint's refusal inside `err`, or undefined when `err` is something else (transport, node). */
export function entryPointRejection(err: unknown): UserOperationRejectedError | undefined {
  const data = revertDataOf(err);
  if (!data || data === '0x') return undefined;
  try {
    const decoded = decodeErrorResult({ abi: entryPoint08Abi, data });
    if (decoded.errorName !== 'FailedOp' && decoded.errorName !== 'FailedOpWithRevert') return undefined;
    const reason = decoded.args[1];
    const inner = decoded.errorName === 'FailedOpWithRevert' ? decoded.args[2] : undefined;
    return new UserOperationRejectedError(/^AA\d\d/.exec(reason)?.[0] ?? 'AA??', reason, inner);
  } catch {
    return undefined;
  }
}
