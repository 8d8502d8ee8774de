/**
 * Where an operation landed, found on chain by its userOpHash (the EntryPoint indexes
 * UserOperationEvent by it): for a submission whose outcome is unknown (the process died after
 * broadcasting, a receipt was never read). No event means it is not included (yet).
 */
import { getAbiItem, getAddress, type Address, type Hex } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { readClient } from './client.ts';

export interface UserOperationEventFound {
  txHash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  logIndex: number;
  sender: Address;
  paymaster: Address;
  nonce: bigint;
  /** The op's call succeeded; false: included, its gas charged, the call reverted. */
  success: boolean;
  /** Wei taken from the paymaster's deposit. */
  actualGasCost: bigint;
  actualGasUsed: bigint;
}

const USER_OPERATION_EVENT = getAbiItem({ abi: entryPoint08Abi, name: 'UserOperationEvent' });

/** eth_getLogs over [fromBlock, latest] with topics [UserOperationEvent, userOpHash]; the first live match. */
export async function findUserOperationEvent(
  rpcUrl: string,
  entryPoint: Address,
  userOpHash: Hex,
  fromBlock: bigint,
): Promise<UserOperationEventFound | undefined> {
  const logs = await readClient(rpcUrl).getLogs({
    address: getAddress(entryPoint),
    event: USER_OPERATION_EVENT,
    args: { userOpHash },
    fromBlock,
    toBlock: 'latest',
    strict: true,
  });
  const log = logs.find((l) => !l.removed && l.blockHash && l.transactionHash && l.blockNumber !== null);
  if (!log?.blockHash || !log.transactionHash || log.blockNumber === null || log.logIndex === null) return undefined;
  return {
    txHash: log.transactionHash,
    blockNumber: log.blockNumber,
    blockHash: log.blockHash,
    logIndex: log.logIndex,
    sender: getAddress(log.args.sender),
    paymaster: getAddress(log.args.paymaster),
    nonce: log.args.nonce,
    success: log.args.success,
    actualGasCost: log.args.actualGasCost,
    actualGasUsed: log.args.actualGasUsed,
  };
}
