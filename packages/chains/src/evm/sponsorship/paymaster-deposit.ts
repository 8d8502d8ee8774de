import type { Address } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { readClient } from './client.ts';

/** The paymaster's deposit at the EntryPoint (wei): what every sponsored operation's actualGasCost is taken from. */
export function paymasterDeposit(rpcUrl: string, entryPoint: Address, paymaster: Address): Promise<bigint> {
  return readClient(rpcUrl).readContract({ address: entryPoint, abi: entryPoint08Abi, functionName: 'balanceOf', args: [paymaster] });
}
