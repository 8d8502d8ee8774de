/**
 * Managed automatic retry of EVM `transfer` records: fee replacements (docs/transfers.md, "Managed
 * automatic retry").
 *
 * A record's own transaction (its `hash`, which never changes) is its first attempt. When it has
 * waited `afterBlocks` blocks without a receipt and offered a maxFeePerGas below the chain's current
 * base fee, the monitor run that leases the record signs a replacement: the same nonce, call, value
 * and gas limit, both fee fields raised by at least 10 % (more to reach the node's fee suggestion),
 * never above the record's ceiling, at most `maxAttempts` attempts in all. Each replacement is
 * stored signed (`TransactionAttemptStore.add`, outcome `unknown`, in its signature's own commit with
 * the audit row and `transaction.signed` event) before it is sent, so a crash
 * between the two leaves bytes the next check sends (the rebroadcast of the last attempt), never a
 * second plan for the same nonce. Whichever attempt is included resolves the record.
 *
 * Replacements are made inside the monitor's run while it holds the record's lease (one process per
 * record), through an injected `FeeReplacer` that signs with the signing pipeline: the monitor itself
 * never reaches a key or a policy.
 *
 * Solana `transfer` records are rebuilt instead (monitor-rebuild.ts): when the last attempt's
 * blockhash is proven expired and no attempt has a signature status, the same transfer is built on a
 * fresh blockhash, signed through an injected `SolanaRebuilder`, stored, then sent.
 */
import type { TransactionRecord } from '../ports.ts';
import type { Environment, NewEvent, SignatureWrite } from '../ports.ts';
import type { CrashAt } from '../shared/crash-points.ts';

export type AttemptOutcome = 'unknown' | 'pending' | 'included' | 'lost';

/** A stored replacement (attempt number 2 and later): an EVM fee replacement or a Solana rebuild. */
export interface TransactionAttempt {
  id: string;
  recordId: string;
  number: number;
  /** EVM: the transaction hash; Solana: the signature (base58). */
  hash: string;
  signedTransaction: string;
  /** EVM only (null on Solana). */
  maxFeePerGas: string | null;
  maxPriorityFeePerGas: string | null;
  /** Solana only (null on EVM): the blockhash it was built on and the height after which it can no longer land. */
  recentBlockhash: string | null;
  lastValidBlockHeight: bigint | null;
  /** The chain's latest block (EVM) or finalized block height (Solana) when it was stored; the next wait is counted from it. */
  sentBlock: bigint;
  sentAt: Date;
  outcome: AttemptOutcome;
  /** Why it was made. */
  reason: string;
}

export interface TransactionAttemptStore {
  /** The attempts of these records, oldest first, in one statement. */
  forRecords(recordIds: string[]): Promise<Map<string, TransactionAttempt[]>>;
  /**
   * Stores the attempt and its reason on the record in one statement, only while `owner` leases the
   * record, the record is still `submitted` and no attempt with that number exists; false otherwise.
   * With `signature`, the attempt's signature (audit row, event) is written in the same statement.
   */
  add(owner: string, attempt: TransactionAttempt, signature?: SignatureWrite): Promise<boolean>;
  /**
   * The node took the attempt: `unknown` → `pending`, with its `events` (its `send.broadcasted`)
   * written in the same statement only when this call moved it (one statement).
   */
  markSent(recordId: string, hash: string, at: Date, events?: NewEvent[]): Promise<void>;
  /** Resolved records: the winning attempt `included`, every other `lost` (one statement for all). */
  settle(resolved: { recordId: string; winningHash: string | null }[]): Promise<void>;
  /** Why no replacement is made now, while `owner` leases the record (one statement for all). */
  setReasons(owner: string, reasons: { recordId: string; reason: string }[]): Promise<void>;
  /** The environment of an API key (legacy records name their key, not the environment). */
  environmentOf(apiKeyId: string): Promise<Environment | null>;
}

/** What a replacement signs: the original's call with new fees. */
export interface ReplacementTransaction {
  to: string;
  value: string;
  data: string | null;
  nonce: number;
  gasLimit: string;
  maxFeePerGas: string;
  maxPriorityFeePerGas: string;
}

/**
 * Signs a replacement through the signing pipeline as the record's project, API key and environment,
 * with the original's intent (policies decide again; spend is not charged again). Throws as the
 * pipeline does (e.g. 403 POLICY_DENIED).
 */
export interface FeeReplacer {
  /**
   * `store` writes the signed attempt with its signature in one commit (false: nothing stored, and
   * then neither is the signature); answers the signed transaction once stored, null otherwise.
   */
  sign(record: TransactionRecord, transaction: ReplacementTransaction, store: (signedTransaction: string, signature: SignatureWrite) => Promise<boolean>): Promise<string | null>;
}

/** What a Solana rebuild signs: the record's transfer on a fresh blockhash. */
export interface SolanaRebuild {
  recentBlockhash: string;
}

/**
 * Builds the record's transfer again on a fresh blockhash and signs it through the signing pipeline
 * as the record's project, API key and environment, with the original's intent (policies decide
 * again; spend is not charged again). Answers the signed transaction (base64 wire) and its
 * signature. Throws as the pipeline does (e.g. 403 POLICY_DENIED).
 */
export interface SolanaRebuilder {
  /** As `FeeReplacer.sign`: `store` writes the signed attempt with its signature in one commit. */
  sign(
    record: TransactionRecord,
    rebuild: SolanaRebuild,
    store: (signed: { signedTransaction: string; signature: string }, signature: SignatureWrite) => Promise<boolean>,
  ): Promise<{ signedTransaction: string; signature: string } | null>;
}

export interface AutoRetryOptions {
  attempts: TransactionAttemptStore;
  replacer: FeeReplacer;
  /** Rebuilds expired Solana transfers; absent: an expired Solana transfer fails as without managed retry. */
  rebuilder?: SolanaRebuilder;
  /** Blocks an attempt waits without a receipt before it is replaced (default 3). */
  afterBlocks?: number;
  /** Attempts in all, the original included (default 5). */
  maxAttempts?: number;
  /** Fault injection in tests (CRASH_AT `replacement-stored`): kills the process between storing and sending a replacement. */
  crashAt?: CrashAt;
}

export const DEFAULT_AUTO_RETRY_AFTER_BLOCKS = 3;
export const DEFAULT_AUTO_RETRY_MAX_ATTEMPTS = 5;
/** The ceiling of a transfer that names none: this many times its first maxFeePerGas. */
export const DEFAULT_CEILING_MULTIPLIER = 10n;
/** The node's replacement minimum: each fee field at least this many percent of the last attempt's. */
export const REPLACEMENT_MIN_PERCENT = 110n;

export interface AttemptFees {
  maxFeePerGas: bigint;
  maxPriorityFeePerGas: bigint;
}

const atLeastPercent = (value: bigint, percent: bigint) => (value * percent + 99n) / 100n;
const max = (a: bigint, b: bigint) => (a > b ? a : b);

/**
 * The fees of the next attempt, or why there is none: the last attempt's raised by 10 % (rounded
 * up), or the node's suggestion where that is higher; the priority fee never above the fee cap;
 * refused when the fee cap would pass the ceiling.
 */
export function nextAttemptFees(last: AttemptFees, suggestion: AttemptFees, ceiling: bigint): { fees: AttemptFees } | { reason: string } {
  const maxFeePerGas = max(atLeastPercent(last.maxFeePerGas, REPLACEMENT_MIN_PERCENT), suggestion.maxFeePerGas);
  let maxPriorityFeePerGas = max(atLeastPercent(last.maxPriorityFeePerGas, REPLACEMENT_MIN_PERCENT), suggestion.maxPriorityFeePerGas);
  if (maxFeePerGas > ceiling) {
    return { reason: `ceiling reached: a replacement needs maxFeePerGas ${maxFeePerGas}, above the ceiling ${ceiling}; waiting for fees to fall` };
  }
  if (maxPriorityFeePerGas > maxFeePerGas) maxPriorityFeePerGas = maxFeePerGas;
  return { fees: { maxFeePerGas, maxPriorityFeePerGas } };
}

/** An attempt as the record's `autoRetry.attempts` lists it. */
export interface AttemptView {
  hash: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  recentBlockhash?: string;
  sentAt: string;
  outcome: string;
}

/**
 * The record's `autoRetry` (transfer records with the switch set): the original first (`original`:
 * its fees on EVM, its blockhash on Solana), then the stored replacements or rebuilds.
 */
export function autoRetryView(
  record: TransactionRecord,
  attempts: TransactionAttempt[],
  original: { maxFeePerGas?: string; maxPriorityFeePerGas?: string; recentBlockhash?: string },
): { enabled: boolean; maxFeePerGas: string | null; attempts: AttemptView[]; reason?: string } {
  const winner = record.monitoring?.winningHash ?? null;
  const resolvedOnChain = record.status === 'confirmed' || record.status === 'reverted';
  const outcomeOf = (hash: string, stored: AttemptOutcome | null): string => {
    if (resolvedOnChain) return hash === (winner ?? record.hash) ? 'included' : 'lost';
    if (record.status === 'failed') return 'lost';
    if (stored) return stored;
    return record.status === 'submitted' ? 'pending' : 'unknown';
  };
  const sentAt = (record.submittedAt ?? record.createdAt).toISOString();
  return {
    enabled: record.autoRetry === true,
    maxFeePerGas: record.autoRetryMaxFeePerGas ?? null,
    attempts: [
      { hash: record.hash!, ...original, sentAt, outcome: outcomeOf(record.hash!, null) },
      ...attempts.map((a) => ({
        hash: a.hash,
        ...(a.maxFeePerGas !== null ? { maxFeePerGas: a.maxFeePerGas } : {}),
        ...(a.maxPriorityFeePerGas !== null ? { maxPriorityFeePerGas: a.maxPriorityFeePerGas } : {}),
        ...(a.recentBlockhash !== null ? { recentBlockhash: a.recentBlockhash } : {}),
        sentAt: a.sentAt.toISOString(),
        outcome: outcomeOf(a.hash, a.outcome),
      })),
    ],
    ...(record.autoRetryReason ? { reason: record.autoRetryReason } : {}),
  };
}
