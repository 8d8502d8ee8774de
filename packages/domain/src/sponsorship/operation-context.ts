/**
 * What a sponsored record carries for its worker beside the record's columns, kept in the record's
 * monitor-internal `monitoring.sponsored` (never shown in responses): who asked (the policies and
 * the audit of every later signature act for that caller), where the chain search starts, and the
 * relayer's transaction once one was signed.
 */
import { createHash } from 'node:crypto';
import { encodeFunctionData, zeroAddress, type Hex } from 'viem';
import type { EncryptedShare } from '../custody/types.ts';
import type { Environment, TransactionRecord, WalletRecord } from '../ports.ts';
import { parseSigningInput, type SigningIntent } from '../signing/pipeline.ts';
import { TRANSFER_ACTION } from '../transactions/context.ts';
import { CALLS_ACTION } from '../calls/actions.ts';
import type { Caller } from '../shared/caller.ts';
import { ERC20_TRANSFER_ABI } from '../shared/erc20-transfer-abi.ts';
import type { MonitoringInfo } from '../transactions/records.ts';
import type { SponsoredTransferFacts } from './operation-chain.ts';

export interface SponsoredContext {
  environment: Environment;
  /** The transfer request's `initiatorUserId` (never an approver of a case this operation opens). */
  initiatorUserId: string | null;
  /** The EntryPoint nonce of the signed operation (decimal). */
  operationNonce?: string;
  /** The log search for the operation's event starts here (the head when it was signed, decimal). */
  fromBlock?: string;
  /** The relayer's handleOps transaction: its nonce (the record's `signedTransaction` holds the bytes). */
  relayerNonce?: number;
  /** Every submission of the stored operation (the record's `autoRetry.attempts`). */
  attempts?: SubmissionAttempt[];
  /** Why the last submission was made, or why no replacement is made now (the record's `autoRetry.reason`). */
  reason?: string;
  /** The block the last operation's wait for a replacement counts from (decimal; `fromBlock` before any replacement). */
  retryFrom?: string;
}

/**
 * One submission: the relayer's transaction (its hash and fees), or a hand-over to the bundler (no
 * hash of ours until a bundle includes it). `outcome`: `unknown` (no answer yet), `pending` (taken),
 * `refused` (the node or bundler would not take it), `included` (the winner), `lost` (another attempt won).
 */
export interface SubmissionAttempt {
  hash: string | null;
  /** The user operation it carried (a replacement operation has its own hash). */
  userOperationHash?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  sentAt: string;
  outcome: 'unknown' | 'pending' | 'refused' | 'included' | 'lost';
}

/** The attempts with `attempt` recorded: a resend of the same relayer transaction updates its entry. */
export function withAttempt(attempts: readonly SubmissionAttempt[] | undefined, attempt: SubmissionAttempt): SubmissionAttempt[] {
  const list = [...(attempts ?? [])];
  const at = attempt.hash === null ? -1 : list.findIndex((a) => a.hash === attempt.hash);
  if (at >= 0) list[at] = { ...list[at]!, ...attempt };
  else list.push(attempt);
  return list;
}

/** The last attempt's outcome changed (a bundler hand-over has no hash to match). */
export function withLastOutcome(attempts: readonly SubmissionAttempt[] | undefined, outcome: SubmissionAttempt['outcome']): SubmissionAttempt[] {
  const list = [...(attempts ?? [])];
  if (list.length > 0) list[list.length - 1] = { ...list[list.length - 1]!, outcome };
  return list;
}

/**
 * The attempts once the bundle transaction `winningHash` included the operation `winningOperation`:
 * that attempt (or a bundler's last hand-over of that operation) `included`, the others `lost`.
 */
export function resolvedAttempts(attempts: readonly SubmissionAttempt[] | undefined, winningHash: string, winningOperation?: string): SubmissionAttempt[] {
  const list = [...(attempts ?? [])];
  const same = (a: string | null | undefined, b: string | undefined) => a != null && b !== undefined && a.toLowerCase() === b.toLowerCase();
  let winner = list.findIndex((a) => same(a.hash, winningHash));
  if (winner < 0) winner = list.findLastIndex((a) => a.hash === null && (winningOperation === undefined || a.userOperationHash === undefined || same(a.userOperationHash, winningOperation)));
  return list.map((a, i) => (i === winner ? { ...a, hash: a.hash ?? winningHash, outcome: 'included' } : { ...a, outcome: a.outcome === 'refused' ? 'refused' : 'lost' }));
}

/** Every user operation the record signed, oldest first (a replacement adds one; only one can execute). */
export function operationHashes(record: TransactionRecord): Hex[] {
  const hashes = (sponsoredContext(record).attempts ?? []).map((a) => a.userOperationHash).filter((h): h is string => h !== undefined);
  if (record.userOperationHash) hashes.push(record.userOperationHash);
  return [...new Set(hashes.map((h) => h.toLowerCase()))] as Hex[];
}

/** Sponsored monitoring: the public fields plus the worker's context. */
export type SponsoredMonitoring = MonitoringInfo & { sponsored: SponsoredContext };

export function sponsoredContext(record: TransactionRecord): SponsoredContext {
  const context = (record.monitoring as SponsoredMonitoring | null)?.sponsored;
  if (!context) throw new Error(`sponsored record ${record.id} has no worker context`);
  return context;
}

/** The record's monitoring with its context changed. */
export function withContext(record: TransactionRecord, change: Partial<SponsoredContext>, publicFields: Partial<MonitoringInfo> = {}): SponsoredMonitoring {
  const monitoring = (record.monitoring ?? {}) as SponsoredMonitoring;
  return { ...monitoring, ...publicFields, sponsored: { ...sponsoredContext(record), ...change } };
}

/** The signatures of an operation, each of which may open its own approval case. */
export type SponsoredStep = 'authorization' | 'operation';

/**
 * The caller every signature of the operation acts as: the request's project, key and environment.
 * Each step binds its approval case to the record and the step (a stable key and request hash), so
 * a resumed step finds the case it opened, and a later step opens its own.
 */
export function operationCaller(record: TransactionRecord, step: SponsoredStep): Caller {
  const context = sponsoredContext(record);
  const name = `sponsored/${record.id}/${step}`;
  return {
    partnerId: record.partnerId,
    projectId: record.projectId,
    apiKeyId: record.apiKeyId ?? '',
    environment: context.environment,
    // Signing reads neither the plan nor rate limits; the caller type requires one.
    plan: 'free',
    requestId: record.requestId,
    idempotencyKey: name,
    requestHash: createHash('sha256').update(name).digest('hex'),
    initiatorUserId: context.initiatorUserId,
  };
}

/** The transfer (or, on a `calls` record, the batch) the record's operation executes. */
export function transferFacts(record: TransactionRecord): SponsoredTransferFacts {
  if (record.intentKind === 'calls') {
    const calls = (record.calls ?? []).map((c) => ({ to: c.to as Hex, value: BigInt(c.value), data: c.data as Hex }));
    return { sender: record.fromAddress as Hex, token: zeroAddress, recipient: zeroAddress, amount: 0n, calls };
  }
  return { sender: record.fromAddress as Hex, token: record.tokenAddress as Hex, recipient: record.to as Hex, amount: BigInt(record.value!) };
}

/** The ERC-20 call the operation makes from the wallet (what policies judge the owner signature by). */
export function executedCall(record: TransactionRecord) {
  const facts = transferFacts(record);
  return {
    to: facts.token,
    value: '0',
    data: encodeFunctionData({ abi: ERC20_TRANSFER_ABI, functionName: 'transfer', args: [facts.recipient, facts.amount] }),
    chainId: Number(record.chainId),
  };
}

/**
 * The owner's signature of a user operation hash, as the pipeline takes it: a raw signature judged
 * by policies as the ERC-20 transfer the operation executes.
 */
export function ownerSignatureIntent(record: TransactionRecord, wallet: WalletRecord, shares: EncryptedShare[], userOperationHash: Hex): SigningIntent {
  return {
    caller: operationCaller(record, 'operation'),
    wallet,
    shares,
    operation: 'raw',
    chain: { walletType: 'EVM', chainId: record.chainId, network: null },
    input: parseSigningInput('EVM', 'raw', { data: userOperationHash }),
    // A batch is judged call by call (policies/batch.ts), as the self-paid batch is.
    ...(record.intentKind === 'calls'
      ? { action: CALLS_ACTION, transfer: null, calls: record.calls ?? [] }
      : { action: TRANSFER_ACTION, transfer: { to: record.to!, value: record.value!, tokenAddress: record.tokenAddress }, executes: executedCall(record) }),
  };
}
