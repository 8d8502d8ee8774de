import { getAddress, type Address, type Hex } from 'viem';
import { readClient } from './client.ts';
import { SIMPLE_7702_ACCOUNT_ADDRESS } from './constants.ts';

export interface DelegationState {
  /** The EOA's code is `0xef0100 ‖ delegate`: operations need no authorization. */
  delegated: boolean;
  /** The contract the EOA delegates to (ours or another), null without a delegation. */
  delegatedTo: Address | null;
  /** The address holds ordinary contract code: it is no EOA and cannot be delegated. */
  isContract: boolean;
  /**
   * The EOA's transaction count at the latest block: the nonce of its next EIP-7702 authorization
   * when another account (the relayer) sends the transaction that carries it.
   */
  nonce: number;
}

const DELEGATION_PREFIX = '0xef0100';

/** Whether `eoa` is delegated to `delegate` (Simple7702Account by default), and its nonce. */
export async function readDelegation(rpcUrl: string, eoa: Address, delegate: Address = SIMPLE_7702_ACCOUNT_ADDRESS): Promise<DelegationState> {
  const client = readClient(rpcUrl);
  const [code, nonce] = await Promise.all([
    client.getCode({ address: eoa, blockTag: 'latest' }).then((c): Hex => c ?? '0x'),
    client.getTransactionCount({ address: eoa, blockTag: 'latest' }),
  ]);
  const lower = code.toLowerCase();
  const delegatedTo = lower.startsWith(DELEGATION_PREFIX) && lower.length === 2 + 23 * 2 ? getAddress(`0x${lower.slice(8)}`) : null;
  return {
    delegated: delegatedTo === getAddress(delegate),
    delegatedTo,
    isContract: code !== '0x' && delegatedTo === null,
    nonce,
  };
}
