/**
 * Why the EntryPoint refuses an operation (handleOps reverts with FailedOp / FailedOpWithRevert):
 * the ERC-4337 code (`AA25 invalid account nonce`, `AA34 signature error`, …) out of a viem error.
 */
import { BaseError, decodeErrorResult, type Hex } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';

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

function revertData(err: unknown): Hex | undefined {
  if (!(err instanceof BaseError)) return undefined;
  let found: Hex | undefined;
  err.walk((e) => {
    const data = (e as { data?: unknown }).data;
    if (typeof data === 'string' && /^0x[0-9a-fA-F]{8,}$/.test(data)) found = data as Hex;
    else if (data && typeof data === 'object' && typeof (data as { data?: unknown }).data === 'string') found = (data as { data: Hex }).data;
    return false;
  });
  return found;
}

/** The EntryPoint's refusal inside `err`, or undefined when `err` is something else (transport, node). */
export function entryPointRejection(err: unknown): UserOperationRejectedError | undefined {
  const data = revertData(err);
  if (!data) return undefined;
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
