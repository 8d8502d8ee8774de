import { BaseError, ExecutionRevertedError, type Hex } from 'viem';

/**
 * The revert data carried by a viem error from eth_call / eth_estimateGas (JSON-RPC error code 3
 * with `data`), `0x` for a revert without data, or undefined when `err` is no revert at all
 * (transport failure, node error): those are rethrown by the callers.
 */
export function revertDataOf(err: unknown): Hex | undefined {
  if (!(err instanceof BaseError)) return undefined;
  let data: Hex | undefined;
  let reverted = false;
  err.walk((e) => {
    if (e instanceof ExecutionRevertedError) reverted = true;
    const candidate = (e as { data?: unknown }).data;
    if (typeof candidate === 'string' && /^0x([0-9a-fA-F]{2})*$/.test(candidate)) data ??= candidate as Hex;
    return false;
  });
  return data ?? (reverted ? '0x' : undefined);
}
