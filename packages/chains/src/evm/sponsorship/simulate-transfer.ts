/**
 * Runs `token.transfer(recipient, amount)` as an eth_call from the wallet's address, so a transfer
 * that would revert (e.g. ERC20InsufficientBalance) is refused before anything is sponsored: an
 * included op whose call reverts still costs the sponsor its gas.
 */
import { BaseError, ContractFunctionRevertedError, decodeFunctionResult, encodeFunctionData, getAddress, type Address, type Hex } from 'viem';
import { readClient } from './client.ts';
import { ERC20_TRANSFER_ABI } from './constants.ts';

export type TransferSimulation =
  | { ok: true }
  | {
      ok: false;
      /** Decoded error name (`ERC20InsufficientBalance`, `Error`, `Panic`) when the ABI knows it. */
      errorName?: string;
      /** Decoded arguments, bigints as decimal strings. */
      errorArgs?: string[];
      /** The raw revert data (`0x` for a revert without data, or a `transfer` that returned false). */
      data: Hex;
      message: string;
    };

export interface SimulateTransferParams {
  token: Address;
  from: Address;
  to: Address;
  amount: bigint;
}

/** Transport and node failures throw; only the call's own revert (or a false return) answers `ok: false`. */
export async function simulateTokenTransfer(rpcUrl: string, p: SimulateTransferParams): Promise<TransferSimulation> {
  const data = encodeFunctionData({ abi: ERC20_TRANSFER_ABI, functionName: 'transfer', args: [getAddress(p.to), p.amount] });
  try {
    const result = await readClient(rpcUrl).call({ account: getAddress(p.from), to: getAddress(p.token), data });
    // Tokens without a return value answer 0x; one that answers false did not transfer.
    if (result.data && result.data !== '0x' && !decodeFunctionResult({ abi: ERC20_TRANSFER_ABI, functionName: 'transfer', data: result.data })) {
      return { ok: false, data: '0x', message: 'transfer returned false' };
    }
    return { ok: true };
  } catch (err) {
    const reverted = revertOf(err);
    if (!reverted) throw err;
    return reverted;
  }
}

function revertOf(err: unknown): Extract<TransferSimulation, { ok: false }> | undefined {
  if (!(err instanceof BaseError)) return undefined;
  const raw = err.walk((e) => typeof (e as { data?: unknown }).data === 'string' || e instanceof ContractFunctionRevertedError) as
    | (BaseError & { data?: Hex })
    | null;
  const revert = err.walk((e) => e instanceof ContractFunctionRevertedError) as ContractFunctionRevertedError | null;
  if (!raw && !/revert/i.test(err.message)) return undefined;
  const data = (revert?.raw ?? (typeof raw?.data === 'string' ? raw.data : undefined) ?? '0x') as Hex;
  const decoded = decodeRevert(data);
  return { ok: false, data, ...decoded, message: decoded.errorName ? `${decoded.errorName}(${decoded.errorArgs?.join(', ')})` : err.shortMessage };
}

function decodeRevert(data: Hex): { errorName?: string; errorArgs?: string[] } {
  if (data === '0x') return {};
  try {
    const e = new ContractFunctionRevertedError({ abi: ERC20_TRANSFER_ABI, data, functionName: 'transfer' });
    if (!e.data) return {};
    return { errorName: e.data.errorName, errorArgs: (e.data.args ?? []).map((a) => String(a)) };
  } catch {
    return {};
  }
}
