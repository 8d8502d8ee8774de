import type { Hex } from 'viem';
import { readClient } from './client.ts';
import { PAYMASTER_GET_HASH_ABI } from './constants.ts';
import { withSponsorshipPrefix, type SponsorshipWindow } from './sponsorship-hash.ts';
import { packUserOperation, type SponsoredUserOperation } from './user-operation.ts';

/** The paymaster's own `getHash(0, op)` (an eth_call), equal to `sponsorshipHash` on its chain. */
export function readSponsorshipHash(rpcUrl: string, op: SponsoredUserOperation, window: SponsorshipWindow): Promise<Hex> {
  const packed = packUserOperation({ ...withSponsorshipPrefix(op, window), signature: '0x' });
  return readClient(rpcUrl).readContract({ address: op.paymaster, abi: PAYMASTER_GET_HASH_ABI, functionName: 'getHash', args: [0, packed] });
}
