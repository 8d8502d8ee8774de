import type { Address } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { readClient } from './client.ts';

/**
 * `EntryPoint.getNonce(sender, key)`: the nonce the sender's next operation must carry. Sponsored
 * transfers use key 0, so one wallet's operations are ordered and each costs no new storage slot.
 * It rises by one when an operation of the sender is included, whether its call succeeded or not.
 */
export function entryPointNonce(rpcUrl: string, entryPoint: Address, sender: Address, key = 0n): Promise<bigint> {
  return readClient(rpcUrl).readContract({ address: entryPoint, abi: entryPoint08Abi, functionName: 'getNonce', args: [sender, key] });
}
