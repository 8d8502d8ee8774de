/**
 * The batch calls' chain reads (calls/ports.ts in the domain) over plain JSON-RPC: the wallet's
 * EIP-7702 delegation and the batch's simulation. A wallet not delegated yet is simulated with the
 * delegate's runtime code set on its address (a state override of eth_call and eth_estimateGas),
 * which runs `executeBatch` exactly as the delegation will: same code, same address(this), same storage.
 *
 * Errors: unreachable RPC → ChainUnavailableError; a revert → `{ok: false, revertData}`; the node's
 * refusal for another reason (insufficient funds for gas, ...) → BroadcastRejectedError.
 */
import { BroadcastRejectedError, ChainUnavailableError } from '@wallet/domain/transactions/gateways.ts';
import type { BatchCallChain, BatchSimulation } from '@wallet/domain/calls/ports.ts';
import { getAddress, type Hex } from 'viem';
import { JsonRpcClient, isUnavailableError, type JsonRpcError, type RpcOutcome } from '../../gateways/json-rpc.ts';
import { classifyEvmRejection } from '../../gateways/evm-gateway.ts';

const DELEGATION_PREFIX = '0xef0100';
const HEX_DATA = /^0x([0-9a-fA-F]{2})*$/;

export interface BatchCallChainOptions {
  chainId: number;
  rpcUrl: string;
  /** Simple7702Account (the chain's sponsorship delegate, else its canonical address). */
  delegate: Hex;
  timeoutMs?: number;
}

/** The revert data of a JSON-RPC error from eth_call / eth_estimateGas (code 3, or a revert message), else undefined. */
function revertOf(error: JsonRpcError): Hex | undefined {
  const data = typeof error.data === 'string' ? error.data : (error.data as { data?: unknown } | undefined)?.data;
  if (typeof data === 'string' && HEX_DATA.test(data)) return data as Hex;
  return error.code === 3 || /revert/i.test(error.message) ? '0x' : undefined;
}

export function createBatchCallChain({ chainId, rpcUrl, delegate, timeoutMs = 10_000 }: BatchCallChainOptions): BatchCallChain {
  const label = `evm:${chainId}`;
  const rpc = new JsonRpcClient({ url: rpcUrl, timeoutMs, label });
  const checksummed = getAddress(delegate);
  // The delegate's code never changes once deployed: read once.
  let delegateCode: Hex | null = null;

  async function codeOfDelegate(): Promise<Hex | null> {
    if (delegateCode) return delegateCode;
    const code = await rpc.read<string>('eth_getCode', [checksummed, 'latest']);
    if (typeof code === 'string' && code !== '0x' && HEX_DATA.test(code)) delegateCode = code as Hex;
    return delegateCode;
  }

  function failed(method: string, o: Extract<RpcOutcome, { ok: false }>): BatchSimulation {
    const e = o.error;
    if (isUnavailableError(e)) throw new ChainUnavailableError(`${label} RPC unavailable: ${method} failed (${e.code}: ${e.message})`);
    const revertData = revertOf(e);
    if (revertData !== undefined) return { ok: false, revertData, message: e.message };
    throw new BroadcastRejectedError(classifyEvmRejection(e.message, 'INVALID_TRANSACTION'), `${method} of the batch failed: ${e.message}`);
  }

  return {
    chainId,
    delegate: checksummed,

    async delegation(wallet) {
      const [code, delegateDeployed] = await Promise.all([rpc.read<string>('eth_getCode', [wallet, 'latest']), codeOfDelegate().then((c) => c !== null)]);
      const lower = String(code).toLowerCase();
      const delegatedTo = lower.startsWith(DELEGATION_PREFIX) && lower.length === 2 + 23 * 2 ? getAddress(`0x${lower.slice(8)}`) : null;
      return { delegated: delegatedTo === checksummed, delegateDeployed };
    },

    async simulate(wallet, data, delegated) {
      const call = { from: wallet, to: wallet, data };
      const overrides: unknown[] = [];
      if (!delegated) {
        const code = await codeOfDelegate();
        if (!code) throw new BroadcastRejectedError('INVALID_TRANSACTION', `no delegate code at ${checksummed}`);
        overrides.push({ [wallet]: { code } });
      }
      const ran = await rpc.request('eth_call', [call, 'latest', ...overrides]);
      if (!ran.ok) return failed('eth_call', ran);
      const estimated = await rpc.request('eth_estimateGas', [call, 'latest', ...overrides]);
      if (!estimated.ok) return failed('eth_estimateGas', estimated);
      if (typeof estimated.result !== 'string' || !/^0x[0-9a-fA-F]+$/.test(estimated.result)) throw new ChainUnavailableError(`${label} eth_estimateGas answered ${JSON.stringify(estimated.result)}`);
      return { ok: true, gas: BigInt(estimated.result) };
    },
  };
}
