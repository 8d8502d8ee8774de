/**
 * The user operation of one sponsored ERC-20 transfer (EntryPoint v0.8): the wallet's EOA is the
 * sender (delegated to Simple7702Account), the paymaster pays. Built without keys; the paymaster
 * data and both signatures are added by `withSponsorSignature` and `withOwnerSignature`.
 */
import { encodeFunctionData, getAddress, type Address, type Hex, type SignedAuthorization } from 'viem';
import { toPackedUserOperation, type PackedUserOperation, type UserOperation } from 'viem/account-abstraction';
import { DEFAULT_SPONSORED_GAS_LIMITS, EIP7702_INIT_CODE_MARKER, ERC20_TRANSFER_ABI, SIMPLE_7702_EXECUTE_ABI, type SponsoredGasLimits } from './constants.ts';

export interface SponsoredUserOperation extends SponsoredGasLimits {
  /** The wallet's EOA. */
  sender: Address;
  /** `EntryPoint.getNonce(sender, 0)` when built. */
  nonce: bigint;
  /** Simple7702Account `execute(token, 0, transfer(recipient, amount))`. */
  callData: Hex;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  paymaster: Address;
  /** `0x` until sponsored; then mode ‖ validUntil ‖ validAfter ‖ the sponsor's 65-byte signature. */
  paymasterData: Hex;
  /** `0x` until the owner signs. */
  signature: Hex;
  /**
   * The wallet's signed EIP-7702 delegation, carried by the op that first uses the delegate (its
   * initCode is then the 0x7702 marker) and sent in the relayer transaction's authorizationList.
   */
  authorization?: SignedAuthorization;
}

export interface BuildSponsoredTransferParams {
  sender: Address;
  token: Address;
  recipient: Address;
  /** Token base units, > 0. */
  amount: bigint;
  /** `entryPointNonce(rpcUrl, entryPoint, sender)`. */
  nonce: bigint;
  paymaster: Address;
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
  /** Overrides of `DEFAULT_SPONSORED_GAS_LIMITS`. */
  gasLimits?: Partial<SponsoredGasLimits>;
  /** Present when the EOA is not yet delegated to the delegate (see `readDelegation`). */
  authorization?: SignedAuthorization;
  /** A batch's `executeBatch(calls)` calldata, run instead of the transfer (then `amount` is not checked). */
  callData?: Hex;
}

const MAX_UINT128 = (1n << 128n) - 1n;

function uint(name: string, value: bigint, max = MAX_UINT128, min = 0n): bigint {
  if (typeof value !== 'bigint' || value < min || value > max) throw new RangeError(`${name} must be an integer in [${min}, ${max}], got ${String(value)}`);
  return value;
}

/** The unsigned, unsponsored operation. Throws RangeError on an invalid amount, nonce, fee or gas limit. */
export function buildSponsoredTransfer(p: BuildSponsoredTransferParams): SponsoredUserOperation {
  if (p.callData === undefined) uint('amount', p.amount, (1n << 256n) - 1n, 1n);
  const limits = { ...DEFAULT_SPONSORED_GAS_LIMITS, ...p.gasLimits };
  for (const [name, value] of Object.entries(limits)) uint(name, value);
  uint('maxFeePerGas', p.maxFeePerGas);
  uint('maxPriorityFeePerGas', p.maxPriorityFeePerGas, p.maxFeePerGas);
  const transfer = encodeFunctionData({ abi: ERC20_TRANSFER_ABI, functionName: 'transfer', args: [getAddress(p.recipient), p.amount] });
  const sender = getAddress(p.sender);
  if (p.authorization && getAddress(p.authorization.address) === sender) throw new RangeError('the authorization must delegate to the account contract, not to the sender');
  return {
    sender,
    nonce: uint('nonce', p.nonce, (1n << 256n) - 1n),
    callData: p.callData ?? encodeFunctionData({ abi: SIMPLE_7702_EXECUTE_ABI, functionName: 'execute', args: [getAddress(p.token), 0n, transfer] }),
    ...limits,
    maxFeePerGas: p.maxFeePerGas,
    maxPriorityFeePerGas: p.maxPriorityFeePerGas,
    paymaster: getAddress(p.paymaster),
    paymasterData: '0x',
    signature: '0x',
    ...(p.authorization ? { authorization: p.authorization } : {}),
  };
}

/**
 * The most the operation can cost the paymaster (wei): every gas limit × maxFeePerGas. This is
 * what a per-operation gas cap is compared with; the actual charge (`actualGasCost`) is lower.
 */
export function maxOperationCostWei(op: SponsoredGasLimits & { maxFeePerGas: bigint }): bigint {
  const gas = op.callGasLimit + op.verificationGasLimit + op.preVerificationGas + op.paymasterVerificationGasLimit + op.paymasterPostOpGasLimit;
  return gas * op.maxFeePerGas;
}

/** The op in viem's shape (for its hashing and packing helpers). */
export function toViemUserOperation(op: SponsoredUserOperation): UserOperation<'0.8'> {
  const { authorization, ...rest } = op;
  return authorization ? { ...rest, factory: EIP7702_INIT_CODE_MARKER, factoryData: '0x', authorization } : rest;
}

/** The op as `EntryPoint.handleOps` takes it. */
export function packUserOperation(op: SponsoredUserOperation): PackedUserOperation {
  return toPackedUserOperation(toViemUserOperation(op));
}
