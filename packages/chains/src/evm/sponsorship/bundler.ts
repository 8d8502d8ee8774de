/**
 * A sponsored operation through an ERC-4337 bundler (the standard JSON-RPC methods, plus Pimlico's
 * gas price method that alto and Pimlico-compatible bundlers serve), instead of our own relayer.
 * The op travels raw (viem's formatUserOperationRequest: v0.8 unpacked fields, `eip7702Auth` for a
 * first op that carries its delegation), so a stored op resent after a crash keeps its userOpHash.
 * viem's bundler client is not used: its sendUserOperation re-prepares an op given an account
 * (new estimate, new paymaster data, new hash), and its errors hide the JSON-RPC code we map.
 */
import { concat, getAddress, isHex, type Address, type Hex } from 'viem';
import { formatUserOperationRequest } from 'viem/account-abstraction';
import { bundlerRequest, type BundlerCallOptions } from './bundler-rpc.ts';
import type { SponsoredGasLimits } from './constants.ts';
import { sponsorshipPrefix } from './sponsorship-hash.ts';
import type { ReceiptLog } from './user-operation-outcome.ts';
import { toViemUserOperation, type SponsoredUserOperation } from './user-operation.ts';

/**
 * 65 bytes that recover to some address without reverting (OpenZeppelin ECDSA in Simple7702Account,
 * solady in the paymaster): the owner's and the sponsor's signature while estimating. viem's stub
 * for Simple7702Account.
 */
export const DUMMY_SIGNATURE: Hex =
  '0xfffffffffffffffffffffffffffffff0000000000000000000000000000000007aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1c';

/** paymasterData while estimating: as long as the real one (mode ‖ window ‖ 65 bytes), so the calldata part of preVerificationGas fits. */
export const STUB_PAYMASTER_DATA: Hex = concat([sponsorshipPrefix({ validUntil: 2 ** 48 - 1, validAfter: 0 }), DUMMY_SIGNATURE]);

export interface BundlerUserOperationReceipt {
  userOpHash: Hex;
  sender: Address;
  nonce: bigint;
  /** The op's call succeeded; false: included and charged, but its call reverted. */
  success: boolean;
  /** Wei the paymaster's deposit paid. */
  actualGasCost: bigint;
  actualGasUsed: bigint;
  transactionHash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  /** Every log of the bundle transaction (not only this op's): what `userOperationOutcome` reads. */
  logs: ReceiptLog[];
}

export interface BundlerFees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

function malformed(method: string, what: string): never {
  throw new TypeError(`malformed bundler answer to ${method}: ${what}`);
}

function quantity(method: string, value: unknown, field: string): bigint {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]+$/.test(value)) malformed(method, `${field} is not a hex quantity`);
  return BigInt(value);
}

function hash32(method: string, value: unknown, field: string): Hex {
  if (typeof value !== 'string' || !isHex(value) || value.length !== 66) malformed(method, `${field} is not a 32-byte hash`);
  return value.toLowerCase() as Hex;
}

/**
 * eth_estimateUserOperationGas with the stub paymaster data and dummy signature where the op has
 * none yet. The limits are the bundler's (alto adds its margins); sign the sponsorship over an op
 * built with them. An op whose call reverts throws UserOperationRevertedError (nothing is sent).
 */
export async function estimateUserOperationGas(
  bundlerUrl: string,
  op: SponsoredUserOperation,
  entryPoint: Address,
  options?: BundlerCallOptions,
): Promise<SponsoredGasLimits> {
  const method = 'eth_estimateUserOperationGas';
  const stub = {
    ...op,
    paymasterData: op.paymasterData === '0x' ? STUB_PAYMASTER_DATA : op.paymasterData,
    signature: op.signature === '0x' ? DUMMY_SIGNATURE : op.signature,
  };
  const r = await bundlerRequest<Record<string, unknown> | null>(bundlerUrl, method, [formatUserOperationRequest(toViemUserOperation(stub)), getAddress(entryPoint)], options);
  if (!r || typeof r !== 'object') malformed(method, 'no object');
  return {
    verificationGasLimit: quantity(method, r.verificationGasLimit, 'verificationGasLimit'),
    callGasLimit: quantity(method, r.callGasLimit, 'callGasLimit'),
    preVerificationGas: quantity(method, r.preVerificationGas, 'preVerificationGas'),
    paymasterVerificationGasLimit: quantity(method, r.paymasterVerificationGasLimit, 'paymasterVerificationGasLimit'),
    paymasterPostOpGasLimit: r.paymasterPostOpGasLimit === undefined ? 0n : quantity(method, r.paymasterPostOpGasLimit, 'paymasterPostOpGasLimit'),
  };
}

/**
 * eth_sendUserOperation of the signed op, exactly as given; resolves with the userOpHash the
 * bundler computed (compare it with the one stored before submission). A resend of an op already
 * included is refused (UserOperationRejectedError AA25); BundlerUnreachableError means the outcome
 * is unknown.
 */
export async function sendUserOperation(bundlerUrl: string, op: SponsoredUserOperation, entryPoint: Address, options?: BundlerCallOptions): Promise<Hex> {
  if (op.paymasterData === '0x' || op.signature === '0x') throw new Error('sendUserOperation: the op must be sponsored and signed by its owner first');
  const method = 'eth_sendUserOperation';
  const result = await bundlerRequest<unknown>(bundlerUrl, method, [formatUserOperationRequest(toViemUserOperation(op)), getAddress(entryPoint)], options);
  return hash32(method, result, 'result');
}

/** eth_getUserOperationReceipt: null while the bundler knows no inclusion of that hash. */
export async function getUserOperationReceipt(bundlerUrl: string, userOpHash: Hex, options?: BundlerCallOptions): Promise<BundlerUserOperationReceipt | null> {
  const method = 'eth_getUserOperationReceipt';
  const r = await bundlerRequest<Record<string, unknown> | null>(bundlerUrl, method, [userOpHash], options);
  if (r === null || r === undefined) return null;
  if (typeof r !== 'object') malformed(method, 'no object');
  const tx = r.receipt as Record<string, unknown> | undefined;
  if (!tx || typeof tx !== 'object' || !Array.isArray(tx.logs)) malformed(method, 'receipt.logs missing');
  if (typeof r.success !== 'boolean') malformed(method, 'success is not a boolean');
  if (typeof r.sender !== 'string') malformed(method, 'sender missing');
  const logs = (tx.logs as Record<string, unknown>[]).map((l, i): ReceiptLog => {
    if (typeof l.address !== 'string' || !Array.isArray(l.topics) || typeof l.data !== 'string') malformed(method, `receipt.logs[${i}]`);
    return {
      address: getAddress(l.address),
      topics: l.topics.map((t, j) => hash32(method, t, `receipt.logs[${i}].topics[${j}]`)),
      data: l.data as Hex,
      logIndex: l.logIndex === null || l.logIndex === undefined ? null : Number(quantity(method, l.logIndex, `receipt.logs[${i}].logIndex`)),
    };
  });
  return {
    userOpHash: hash32(method, r.userOpHash, 'userOpHash'),
    sender: getAddress(r.sender),
    nonce: quantity(method, r.nonce, 'nonce'),
    success: r.success,
    actualGasCost: quantity(method, r.actualGasCost, 'actualGasCost'),
    actualGasUsed: quantity(method, r.actualGasUsed, 'actualGasUsed'),
    transactionHash: hash32(method, tx.transactionHash, 'receipt.transactionHash'),
    blockNumber: quantity(method, tx.blockNumber, 'receipt.blockNumber'),
    blockHash: hash32(method, tx.blockHash, 'receipt.blockHash'),
    logs,
  };
}

/**
 * pimlico_getUserOperationGasPrice: the fees the bundler accepts now (alto's v2 API refuses an op
 * below them). Build the op with one of these, not with the node's eth_feeHistory estimate.
 */
export async function bundlerGasPrice(bundlerUrl: string, options?: BundlerCallOptions): Promise<{ slow: BundlerFees; standard: BundlerFees; fast: BundlerFees }> {
  const method = 'pimlico_getUserOperationGasPrice';
  const r = await bundlerRequest<Record<string, Record<string, unknown> | undefined> | null>(bundlerUrl, method, [], options);
  if (!r || typeof r !== 'object') malformed(method, 'no object');
  const tier = (name: 'slow' | 'standard' | 'fast'): BundlerFees => {
    const t = r[name];
    if (!t || typeof t !== 'object') malformed(method, `${name} missing`);
    return { maxFeePerGas: quantity(method, t.maxFeePerGas, `${name}.maxFeePerGas`), maxPriorityFeePerGas: quantity(method, t.maxPriorityFeePerGas, `${name}.maxPriorityFeePerGas`) };
  };
  return { slow: tier('slow'), standard: tier('standard'), fast: tier('fast') };
}
