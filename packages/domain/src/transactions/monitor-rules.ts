/**
 * The monitor's rules, pure functions of a record, the time and what the chain showed: when to
 * check next (`nextCheckDelay`, `monitoringWindow`) and what a check decides (`evaluateEvm`,
 * `evaluateSolana`). No I/O; the scheduling, leasing and batched chain reads live in monitor.ts and
 * monitor-evidence.ts.
 */
import type { MonitoringInfo, TransactionRecord } from '../ports.ts';
import { exponentialBackoffMs } from '../shared/backoff.ts';
import type { EvmReceipt, SolanaSignatureStatus } from './gateways.ts';

export interface MonitorCadence {
  /** The active monitoring window (spec: 30 minutes); afterwards the record stays `submitted`, state `extended`. */
  activeWindowMs: number;
  /** Unresolved this long after creation: state `escalated` (spec: 24 hours). */
  escalateAfterMs: number;
  /** Between checks inside the active window, with or without evidence. */
  activeIntervalMs: number;
  /**
   * A record this young without evidence is checked again after `freshIntervalMs`: its first check
   * often comes before the block that holds it, and waiting a whole active interval then costs
   * seconds on every transaction (and every yield step).
   */
  freshWindowMs: number;
  freshIntervalMs: number;
  /** Upper bound between checks once a receipt or signature status was seen (spec: 60 s). */
  evidenceIntervalMs: number;
  /** Between healthy checks without evidence after the active window, until escalation (spec: at most 5 min). */
  healthyIntervalMs: number;
  /** Between checks of an escalated record (spec: possibly one hour). */
  escalatedIntervalMs: number;
  /** First delay after an RPC error; doubles with every consecutive error. */
  errorBaseMs: number;
  /** Cap of the error backoff (spec: at most one hour). */
  maxBackoffMs: number;
}

export const DEFAULT_MONITOR_CADENCE: MonitorCadence = {
  activeWindowMs: 30 * 60_000,
  escalateAfterMs: 24 * 60 * 60_000,
  activeIntervalMs: 5_000,
  freshWindowMs: 30_000,
  freshIntervalMs: 1_000,
  evidenceIntervalMs: 60_000,
  healthyIntervalMs: 5 * 60_000,
  escalatedIntervalMs: 60 * 60_000,
  errorBaseMs: 5_000,
  maxBackoffMs: 60 * 60_000,
};

/** How the last check went: no evidence yet, evidence (receipt / signature status) but unresolved, or the RPC failed. */
export type CheckOutcome = 'healthy' | 'evidence' | 'error';

export type MonitoringWindow = 'active' | 'extended' | 'escalated';

/** Where the record stands in its monitoring life, from its creation time. */
export function monitoringWindow(record: Pick<TransactionRecord, 'createdAt'>, now: Date, cadence: MonitorCadence = DEFAULT_MONITOR_CADENCE): MonitoringWindow {
  const age = now.getTime() - record.createdAt.getTime();
  if (age < cadence.activeWindowMs) return 'active';
  if (age < cadence.escalateAfterMs) return 'extended';
  return 'escalated';
}

/**
 * Milliseconds until the next check of an unresolved record after a check with `outcome`.
 * - RPC error: `errorBaseMs * 2^(n-1)` for the n-th consecutive error (n = record.consecutiveErrors + 1), capped at `maxBackoffMs`.
 * - Fresh (younger than `freshWindowMs`) without evidence: `freshIntervalMs` (at most the active interval).
 * - Active window: `activeIntervalMs`.
 * - After it and before escalation: `healthyIntervalMs`, or at most `evidenceIntervalMs` once there is evidence.
 * - Escalated: `escalatedIntervalMs`.
 */
export function nextCheckDelay(
  record: Pick<TransactionRecord, 'createdAt' | 'evidenceAt' | 'consecutiveErrors'>,
  now: Date,
  outcome: CheckOutcome,
  cadence: MonitorCadence = DEFAULT_MONITOR_CADENCE,
): number {
  if (outcome === 'error') return exponentialBackoffMs(record.consecutiveErrors + 1, cadence.errorBaseMs, cadence.maxBackoffMs);
  const window = monitoringWindow(record, now, cadence);
  if (window === 'escalated') return cadence.escalatedIntervalMs;
  const base = window === 'active' ? cadence.activeIntervalMs : cadence.healthyIntervalMs;
  const evidence = outcome === 'evidence' || record.evidenceAt !== null;
  if (evidence) return Math.min(base, cadence.evidenceIntervalMs);
  const fresh = now.getTime() - record.createdAt.getTime() < cadence.freshWindowMs;
  return fresh ? Math.min(base, cadence.freshIntervalMs) : base;
}

/** The fields a resolving check sets. */
export interface Resolution {
  status: 'confirmed' | 'reverted' | 'failed';
  blockNumber: bigint | null;
  blockHash: string | null;
  failureStage: TransactionRecord['failureStage'];
  failureCode: string | null;
  failureMessage: string | null;
  monitoring: MonitoringInfo;
  /** The record's own transaction reached the chain (it was broadcast, whatever its saved status). */
  landed: boolean;
}

export type Verdict =
  | { kind: 'resolve'; resolution: Resolution }
  /**
   * Unresolved. `evidence`: the record's own transaction was seen on-chain (receipt or signature
   * status); `position`: where (EVM block, Solana slot), when the record waits for it to become final.
   */
  | { kind: 'wait'; evidence: boolean; expiredSince?: string | null; receipt?: MonitoringInfo['receipt']; position?: bigint }
  | { kind: 'error'; message: string };

export interface EvmHeads {
  latest: bigint;
  finalized: bigint;
}

export interface EvmEvidence {
  heads: EvmHeads;
  receipt: EvmReceipt | null;
  /** The canonical block hash at the receipt's height (null when unknown or beyond the head). */
  canonicalHash: string | null;
  /** The sender's nonce at the finalized block; fetched only for records without a receipt. */
  finalizedNonce?: number;
  /** The other records of this wallet and chain with the same nonce, with their receipts; looked up only when the nonce was consumed. */
  siblings?: { record: Pick<TransactionRecord, 'id' | 'hash' | 'cancellationOf'>; receipt: EvmReceipt | null; canonicalHash: string | null }[];
}

/** A verdict for a transaction that reached the chain: confirmed, or reverted there (no failureStage, rule 3). */
const landedOnChain = (status: 'confirmed' | 'reverted', blockNumber: bigint, blockHash: string | null, failureMessage: string | null): Verdict => ({
  kind: 'resolve',
  resolution: { status, blockNumber, blockHash, failureStage: null, failureCode: null, failureMessage, monitoring: { state: 'resolved' }, landed: true },
});

/** A verdict for a transaction proven never to land: failed at stage `broadcast`. */
const neverLanded = (failureCode: string, failureMessage: string, monitoring: MonitoringInfo): Verdict => ({
  kind: 'resolve',
  resolution: { status: 'failed', blockNumber: null, blockHash: null, failureStage: 'broadcast', failureCode, failureMessage, monitoring, landed: false },
});

/**
 * Rule 1: a receipt counts only when its block is canonical (the chain's hash at that height is
 * the receipt's block hash), has at least two confirmations and is at or below the finalized head.
 */
export function isVerifiedReceipt(receipt: EvmReceipt, canonicalHash: string | null, heads: EvmHeads): boolean {
  if (!canonicalHash || canonicalHash.toLowerCase() !== receipt.blockHash.toLowerCase()) return false;
  if (heads.latest - receipt.blockNumber + 1n < 2n) return false;
  return receipt.blockNumber <= heads.finalized;
}

/**
 * The highest block that is at or below the finalized head and has two confirmations: a canonical
 * receipt at or below it satisfies rule 1.
 */
export function evmCoveredUpTo(heads: EvmHeads): bigint {
  return heads.finalized < heads.latest - 1n ? heads.finalized : heads.latest - 1n;
}

export function evaluateEvm(record: Pick<TransactionRecord, 'id' | 'nonce' | 'hash'>, ev: EvmEvidence): Verdict {
  if (ev.receipt) {
    if (!isVerifiedReceipt(ev.receipt, ev.canonicalHash, ev.heads)) return { kind: 'wait', evidence: true };
    const reverted = ev.receipt.status === 'reverted';
    // Rule 3: a revert reached the chain; failureStage stays absent.
    return landedOnChain(reverted ? 'reverted' : 'confirmed', ev.receipt.blockNumber, ev.receipt.blockHash, reverted ? 'execution reverted' : null);
  }
  // Same nonce: the nonce is spent at a finalized block and this hash has no receipt.
  if (record.nonce === null || ev.finalizedNonce === undefined || ev.finalizedNonce <= record.nonce) return { kind: 'wait', evidence: false };
  if (ev.siblings === undefined) return { kind: 'wait', evidence: false };
  const winner = ev.siblings.find((s) => s.record.id !== record.id && s.receipt && isVerifiedReceipt(s.receipt, s.canonicalHash, ev.heads));
  if (winner) {
    const cancelled = winner.record.cancellationOf === record.id;
    const winningStatus = winner.receipt!.status === 'success' ? 'confirmed' : 'reverted';
    return neverLanded(
      cancelled ? 'CANCELLED' : 'REPLACED',
      cancelled
        ? `Cancelled: the cancellation ${winner.record.hash} used nonce ${record.nonce} (${winningStatus}); this transaction can no longer execute`
        : `Replaced: transaction ${winner.record.hash} with the same nonce ${record.nonce} was included (${winningStatus}); this transaction can no longer execute`,
      { state: 'resolved', chainOutcome: cancelled ? 'cancelled' : 'replaced_by_same_nonce', winningHash: winner.record.hash, winningStatus },
    );
  }
  // A sibling was seen on-chain but cannot be verified yet (not final, or not canonical): wait for it.
  if (ev.siblings.some((s) => s.record.id !== record.id && s.receipt)) return { kind: 'wait', evidence: false };
  return neverLanded(
    'REPLACED',
    `Nonce ${record.nonce} was consumed in a finalized block by a transaction this service did not send; this transaction can no longer execute`,
    { state: 'resolved', chainOutcome: 'nonce_consumed_elsewhere', winningHash: null, winningStatus: null },
  );
}

export interface SolanaEvidence {
  /** The signature's status (after the re-check when expiry was being proven); null when the node does not know it. */
  status: SolanaSignatureStatus | null;
  /** Finalized block height, read before `status` (records with a last valid block height and no status). */
  finalizedHeight?: bigint;
  /** isBlockhashValid(recentBlockhash), read after a null status (partner transactions without a last valid block height). */
  blockhashValid?: boolean;
  /** The durable nonce now stored in the record's nonce account; null when the account is gone or no longer a nonce account. */
  durableNonce?: string | null;
}

const jsonText = (value: unknown) => JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));

export function evaluateSolana(
  record: Pick<TransactionRecord, 'recentBlockhash' | 'lastValidBlockHeight' | 'nonceAccount' | 'monitoring'>,
  ev: SolanaEvidence,
  now: Date,
): Verdict {
  const status = ev.status;
  if (status) {
    // Rule 2: only `finalized` resolves.
    if (status.confirmationStatus !== 'finalized') return { kind: 'wait', evidence: true, expiredSince: null };
    const failed = status.err !== null && status.err !== undefined;
    return landedOnChain(failed ? 'reverted' : 'confirmed', status.slot, null, failed ? `transaction failed: ${jsonText(status.err)}`.slice(0, 500) : null);
  }
  const expired = neverLanded(
    'TRANSACTION_EXPIRED',
    record.nonceAccount
      ? 'The durable nonce of this transaction was advanced without it landing; it can no longer execute'
      : 'The blockhash of this transaction expired without it landing; it can no longer execute',
    { state: 'resolved', chainOutcome: 'expired', winningHash: null, winningStatus: null },
  );
  // Rule 6: expiry only when proven.
  if (record.nonceAccount) {
    if (ev.durableNonce !== undefined && ev.durableNonce !== record.recentBlockhash) return expired;
    return { kind: 'wait', evidence: false };
  }
  if (record.lastValidBlockHeight !== null) {
    if (ev.finalizedHeight !== undefined && ev.finalizedHeight > record.lastValidBlockHeight) return expired;
    return { kind: 'wait', evidence: false };
  }
  if (ev.blockhashValid === false) {
    // Seen expired on an earlier check, and still no status now: nothing can have landed in between.
    if (record.monitoring?.expiredSince) return expired;
    return { kind: 'wait', evidence: false, expiredSince: now.toISOString() };
  }
  return { kind: 'wait', evidence: false, expiredSince: null };
}
