/**
 * Runs `token.transfer(recipient, amount)` as an eth_call from the wallet's address, so a transfer
 * that would revert (e.g. ERC20InsufficientBalance) is refused before anything is sponsored: an
 * included op whose call reverts still costs the sponsor its gas.
 */
import { decodeErrorResult, decodeFunctionResult, encodeFunctionData, getAddress, type Address, type Hex } from 'viem';
import { readClient } from './client.ts';
import { ERC20_TRANSFER_ABI } from './constants.ts';
import { revertDataOf } from './revert-data.ts';

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
    if (!result.data || result.data === '0x') {
      // Tokens without a return value answer 0x, and so does an address without code.
      const code = await readClient(rpcUrl).getCode({ address: getAddress(p.token) });
      return code && code !== '0x' ? { ok: true } : { ok: false, data: '0x', message: `no contract at token address ${getAddress(p.token)}` };
    }
    if (!decodeFunctionResult({ abi: ERC20_TRANSFER_ABI, functionName: 'transfer', data: result.data })) return { ok: false, data: '0x', message: 'transfer returned false' };
    return { ok: true };
  } catch (err) {
    const reverted = revertOf(err);
    if (!reverted) throw err;
    return reverted;
  }
}

function revertOf(err: unknown): Extract<TransferSimulation, { ok: false }> | undefined {
  const data = revertDataOf(err);
  if (data === undefined) return undefined;
  try {
    // Knows the ABI's errors plus Error(string) and Panic(uint256).
    const decoded = decodeErrorResult({ abi: ERC20_TRANSFER_ABI, data });
    const errorArgs = (decoded.args ?? []).map((a) => String(a));
    return { ok: false, data, errorName: decoded.errorName, errorArgs, message: `${decoded.errorName}(${errorArgs.join(', ')})` };
  } catch {
    return { ok: false, data, message: data === '0x' ? 'transfer reverted without data' : `transfer reverted with undecoded data ${data.slice(0, 10)}` };
  }
}
