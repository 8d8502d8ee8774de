/**
 * What a handleOps receipt says about one operation: its UserOperationEvent (success, gas charged)
 * and whether the expected token Transfer happened inside that operation. A bundle runs every op's
 * validation, emits BeforeExecution, then executes op after op, each closed by its
 * UserOperationEvent; this op's logs are those after the previous op's event (or BeforeExecution)
 * and before its own, so a Transfer made by another op of the bundle does not count.
 */
import { decodeEventLog, getAddress, pad, toEventSelector, type Address, type Hex } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { ENTRY_POINT_V08_ADDRESS, ERC20_TRANSFER_ABI } from './constants.ts';

export interface ReceiptLog {
  address: Address;
  topics: readonly Hex[];
  data: Hex;
  logIndex: number | null;
}

export interface UserOperationOutcome {
  success: boolean;
  /** Wei taken from the paymaster's deposit, as a decimal string. */
  actualGasCost: string;
  actualGasUsed: string;
  nonce: string;
  /** A Transfer(from, to, amount) of the token was emitted within this operation's execution. */
  transferProven: boolean;
  /** The call's revert data (UserOperationRevertReason) when it reverted with data. */
  revertReason?: Hex;
}

export interface OutcomeExpectation {
  userOpHash: Hex;
  token: Address;
  from: Address;
  to: Address;
  amount: bigint;
  entryPoint?: Address;
}

const USER_OPERATION_EVENT = toEventSelector('UserOperationEvent(bytes32,address,address,uint256,bool,uint256,uint256)');
const BEFORE_EXECUTION = toEventSelector('BeforeExecution()');
const REVERT_REASON = toEventSelector('UserOperationRevertReason(bytes32,address,uint256,bytes)');
const TRANSFER = toEventSelector('Transfer(address,address,uint256)');

const same = (a: string, b: string) => a.toLowerCase() === b.toLowerCase();

/** The outcome of the op in this receipt, or undefined when the receipt holds no event for it. */
export function userOperationOutcome(receipt: { logs: readonly ReceiptLog[] }, e: OutcomeExpectation): UserOperationOutcome | undefined {
  const entryPoint = e.entryPoint ?? ENTRY_POINT_V08_ADDRESS;
  const logs = [...receipt.logs].sort((a, b) => (a.logIndex ?? 0) - (b.logIndex ?? 0));
  const fromEntryPoint = (l: ReceiptLog, topic: Hex) => same(l.address, entryPoint) && l.topics[0] !== undefined && same(l.topics[0], topic);
  const at = logs.findIndex((l) => fromEntryPoint(l, USER_OPERATION_EVENT) && l.topics[1] !== undefined && same(l.topics[1], e.userOpHash));
  const event = logs[at];
  if (!event) return undefined;
  let start = at - 1;
  while (start >= 0 && !fromEntryPoint(logs[start]!, USER_OPERATION_EVENT) && !fromEntryPoint(logs[start]!, BEFORE_EXECUTION)) start--;
  const own = logs.slice(start + 1, at);

  const decoded = decodeEventLog({ abi: entryPoint08Abi, eventName: 'UserOperationEvent', topics: event.topics as [Hex, ...Hex[]], data: event.data });
  const [fromTopic, toTopic] = [pad(getAddress(e.from)), pad(getAddress(e.to))];
  const transferProven = own.some((l) => {
    if (!same(l.address, e.token) || l.topics.length !== 3 || !same(l.topics[0]!, TRANSFER) || !same(l.topics[1]!, fromTopic) || !same(l.topics[2]!, toTopic)) return false;
    try {
      return decodeEventLog({ abi: ERC20_TRANSFER_ABI, eventName: 'Transfer', topics: l.topics as [Hex, ...Hex[]], data: l.data }).args.value === e.amount;
    } catch {
      return false;
    }
  });
  const revertLog = own.find((l) => fromEntryPoint(l, REVERT_REASON) && l.topics[1] !== undefined && same(l.topics[1], e.userOpHash));
  const revertReason = revertLog
    ? decodeEventLog({ abi: entryPoint08Abi, eventName: 'UserOperationRevertReason', topics: revertLog.topics as [Hex, ...Hex[]], data: revertLog.data }).args.revertReason
    : undefined;
  return {
    success: decoded.args.success,
    actualGasCost: decoded.args.actualGasCost.toString(10),
    actualGasUsed: decoded.args.actualGasUsed.toString(10),
    nonce: decoded.args.nonce.toString(10),
    transferProven: decoded.args.success && transferProven,
    ...(revertReason ? { revertReason } : {}),
  };
}
