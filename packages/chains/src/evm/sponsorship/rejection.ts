/**
 * Why the EntryPoint refuses an operation (handleOps reverts with FailedOp / FailedOpWithRevert):
 * the ERC-4337 code (`AA25 invalid account nonce`, `AA34 signature error`, …) out of a viem error.
 */
import { decodeErrorResult, type Hex } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { revertDataOf } from './revert-data.ts';

/** A bundler's JSON-RPC refusal that carried the EntryPoint's reason: which method, its error code and message. */
export interface BundlerRefusal {
  method: string;
  /** ERC-7769 code, e.g. -32500 (validation, AAxx), -32521 (the op's call reverted). */
  rpcCode: number;
  rpcMessage: string;
}

export class UserOperationRejectedError extends Error {
  override readonly name: string = 'UserOperationRejectedError';
  constructor(
    /**
     * The ERC-4337 code, e.g. `AA25` (AA2x: account, AA3x: paymaster, AA9x: handleOps itself);
     * `REVERTED` for a UserOperationRevertedError.
     */
    readonly code: string,
    /** The EntryPoint's reason text, e.g. `AA25 invalid account nonce`. */
    readonly reason: string,
    /** The account's or paymaster's own revert data (FailedOpWithRevert), else undefined. */
    readonly inner?: Hex,
    /** Set when a bundler refused the operation (not a relayer's own simulation). */
    readonly bundler?: BundlerRefusal,
  ) {
    super(`the EntryPoint refused the user operation: ${reason}`);
  }
}

/**
 * The operation's own call (the token transfer) reverts: a bundler simulates it while estimating
 * and refuses it. Sponsored anyway with limits of its own, it would land with success=false and
 * still cost the sponsor: refuse the sponsorship.
 */
export class UserOperationRevertedError extends UserOperationRejectedError {
  override readonly name = 'UserOperationRevertedError';
  constructor(
    /** The call's revert data (e.g. OpenZeppelin ERC20InsufficientBalance, 0xe450d38c…); `0x` when it had none. */
    readonly revertReason: Hex,
    bundler?: BundlerRefusal,
  ) {
    super('REVERTED', `the operation's call reverts: ${revertReason === '0x' ? 'no revert data' : revertReason}`, revertReason, bundler);
    this.message = this.reason;
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
