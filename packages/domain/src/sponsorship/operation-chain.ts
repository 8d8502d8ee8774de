/**
 * What the sponsored-transfer worker needs from one chain (implemented over '@wallet/chains/sponsorship'
 * by the API's wiring): reads, the user operation's building steps and the evidence searches. An
 * operation travels between them as its serialized form (`serializeUserOperation`), which is also
 * what the record stores: the bytes that are signed are the bytes that are sent, every time.
 */
import type { Hex, TransactionSerializable } from 'viem';

/** The transfer a sponsored operation executes from the wallet's EOA. */
export interface SponsoredTransferFacts {
  sender: Hex;
  token: Hex;
  recipient: Hex;
  /** Token base units, > 0. */
  amount: bigint;
  /**
   * A batch of calls (calls/): the operation runs `executeBatch(calls)` instead of the transfer
   * (`token`, `recipient` and `amount` are then the zero address and 0); delivery is the
   * operation's success, the batch being atomic.
   */
  calls?: { to: Hex; value: bigint; data: Hex }[];
}

/** The EIP-7702 delegation the EOA signs before its first sponsored operation (nonce = the EOA's transaction count). */
export interface AuthorizationToSign {
  chainId: number;
  delegate: Hex;
  nonce: number;
}

/** The wallet's signed delegation, as the signing pipeline's `authorization` operation answers it. */
export interface SignedAuthorizationParts extends AuthorizationToSign {
  r: Hex;
  s: Hex;
  yParity: number;
}

/** The paymaster's validity window of a sponsorship (seconds since the epoch; 0 = no lower bound). */
export interface SponsorshipWindow {
  validUntil: number;
  validAfter: number;
}

/** The operation's UserOperationEvent, found on chain by its hash. */
export interface OperationEventFound {
  transactionHash: Hex;
  blockNumber: bigint;
  blockHash: Hex;
  success: boolean;
  actualGasCost: bigint;
}

export interface SponsoredOperationChain {
  readonly chainId: number;
  readonly entryPoint: Hex;
  readonly paymaster: Hex;
  /** `token.transfer(recipient, amount)` as an eth_call from the wallet; the revert's message when it would fail. */
  simulate(transfer: SponsoredTransferFacts): Promise<{ ok: true } | { ok: false; message: string }>;
  /** The delegation the EOA must sign first; null when it already delegates to the configured delegate. */
  authorizationNeeded(sender: Hex): Promise<AuthorizationToSign | null>;
  /**
   * The unsigned, unsponsored operation (the EntryPoint nonce of key 0 and the node's fees now),
   * serialized, with its EntryPoint nonce and the most it can cost the paymaster (wei).
   */
  draft(transfer: SponsoredTransferFacts, authorization: SignedAuthorizationParts | null): Promise<{ operation: string; nonce: bigint; maxCostWei: bigint }>;
  /** The paymaster's hash of the operation for this window (the sponsor key signs it EIP-191). */
  sponsorshipHash(operation: string, window: SponsorshipWindow): Hex;
  withSponsorSignature(operation: string, window: SponsorshipWindow, signature: Hex): string;
  /** The EntryPoint's hash of the sponsored operation: the wallet signs it raw, and it names the operation on chain. */
  userOperationHash(operation: string): Hex;
  withOwnerSignature(operation: string, signature: Hex): string;
  /** The fees an operation is drafted with now: a bundler's floor with bundler submission, else the node's estimate. */
  operationFeesNow(): Promise<{ maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }>;
  /** The fee fields of a serialized operation. */
  operationFees(operation: string): { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint };
  /**
   * The same operation (sender, EntryPoint nonce, call, gas limits, authorization) with new fees and
   * without signatures, ready to be sponsored and signed again, with the most it can cost the paymaster.
   */
  repriced(operation: string, fees: { maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }): { operation: string; maxCostWei: bigint };
  /** The EntryPoint nonce (key 0) of `sender` now: above the operation's, the operation can no longer run. */
  entryPointNonce(sender: Hex): Promise<bigint>;
  /**
   * The relayer's handleOps transaction carrying the stored operation (gas estimated, which runs the
   * EntryPoint's validation): throws `OperationRejectedError` when the EntryPoint would refuse it.
   */
  relayerTransaction(operation: string, relayer: Hex, fields: { nonce: number; maxFeePerGas: bigint; maxPriorityFeePerGas: bigint }): Promise<TransactionSerializable>;
  /**
   * The most an operation for this transfer can cost the paymaster at today's fees, without
   * signing anything (admission's gas-cap and budget check; the worker checks its draft again).
   */
  maxCostEstimate(transfer: SponsoredTransferFacts): Promise<bigint>;
  /**
   * Bundler submission only (`submission: "bundler"`): `eth_sendUserOperation` of the stored
   * operation, byte for byte. `unknown`: no answer, the submission may have happened; `refused`: the
   * bundler would not take it now (e.g. already in its mempool, fees below its floor); `rejected`:
   * the EntryPoint's refusal (AA code).
   */
  sendToBundler?(operation: string): Promise<BundlerSubmission>;
  /** The operation's event at or after `fromBlock`, or null. */
  findEvent(userOperationHash: Hex, fromBlock: bigint): Promise<OperationEventFound | null>;
  /** Whether the token Transfer(sender → recipient, amount) is in this operation's part of the transaction's receipt. */
  deliveryProven(transactionHash: Hex, userOperationHash: Hex, transfer: SponsoredTransferFacts): Promise<boolean>;
}

export type BundlerSubmission =
  | { kind: 'accepted'; userOperationHash: Hex }
  | { kind: 'unknown'; message: string }
  | { kind: 'refused'; message: string }
  | { kind: 'rejected'; code: string | null; message: string };

/** The EntryPoint refuses the operation (AA codes): sending it would fail; `code` is the AA code when known. */
export class OperationRejectedError extends Error {
  constructor(
    message: string,
    readonly code: string | null,
  ) {
    super(message);
    this.name = 'OperationRejectedError';
  }
}
