/** Broadcast transaction records, their monitor checks and EVM nonce reservations: what the transaction stores implement. */
import type { NewEvent, SignatureWrite } from '../ports.ts';
import type { KeysetPosition } from '../shared/cursor.ts';
export type TransactionStatus = 'pending' | 'submitted' | 'confirmed' | 'reverted' | 'failed';
export type IntentKind = 'transfer' | 'sign_transaction' | 'yield' | 'calls';

/** One call of a `calls` record's batch, as the request gave it (value in wei, decimal; data `0x` when none). */
export interface BatchCall {
  to: string;
  value: string;
  data: string;
}
export type FailureStage = 'mpc_sign' | 'signature_apply' | 'signer_verify' | 'broadcast' | 'monitor_timeout';

/** What the monitor reports beside the status: how the same-nonce race ended, its own state. */
export interface MonitoringInfo {
  chainOutcome?: string | null;
  winningHash?: string | null;
  winningStatus?: string | null;
  /** e.g. `active`, `extended` (past the 30-minute window), `escalated` (past 24 h), `finality_unavailable`. */
  state?: string;
  lastError?: string | null;
  /**
   * Monitor-internal (not shown in responses): when a Solana record without a last valid block
   * height was first seen with no signature status and an invalid blockhash; expiry is proven
   * only by a later check that still finds no status.
   */
  expiredSince?: string | null;
  /**
   * Monitor-internal (not shown in responses): the EVM receipt seen before the block was final.
   * Later checks only need the heads until the finalized head reaches that block; it resolves when
   * the canonical hash at that height still equals `blockHash` (a block hash commits to its receipts).
   */
  receipt?: { blockNumber: string; blockHash: string; status: 'success' | 'reverted'; /** a fee replacement's hash, when it is not the record's own */ hash?: string } | null;
  /** Monitor-internal (not shown in responses): how often the stored bytes were sent again (monitor-rebroadcast.ts), and last when. */
  rebroadcasts?: number;
  lastRebroadcastAt?: string;
  /** Monitor-internal (not shown in responses): the latest block when a managed-retry record was first checked; its first attempt's wait counts from it. */
  retryFrom?: string;
}

/** How a record reaches its chain: the wallet's own transaction, or a sponsored ERC-4337 user operation. */
export type ExecutionMode = 'legacy' | 'sponsored';

/** Why the service itself broadcast a record: `nonce_gap_filler` fills a nonce no record could fill. */
export type ServiceInitiated = 'nonce_gap_filler';

export interface TransactionRecord {
  id: string;
  projectId: string;
  partnerId: string;
  walletId: string;
  walletType: 'EVM' | 'SOLANA';
  intentKind: IntentKind;
  status: TransactionStatus;
  chainId: string | null;
  network: string | null;
  fromAddress: string;
  to: string | null;
  value: string | null;
  tokenAddress: string | null;
  nonce: number | null;
  hash: string | null;
  recentBlockhash: string | null;
  lastValidBlockHeight: bigint | null;
  nonceAccount: string | null;
  blockNumber: bigint | null;
  blockHash: string | null;
  failureStage: FailureStage | null;
  failureCode: string | null;
  failureMessage: string | null;
  monitoring: MonitoringInfo | null;
  cancellationOf: string | null;
  /** A record the service initiated itself (transactions/nonce-gaps.ts); null for partner requests. */
  serviceInitiated: ServiceInitiated | null;
  requestId: string | null;
  apiKeyId: string | null;
  /** The Idempotency-Key of the request that broadcast it (a retry after a crash finds the record). */
  idempotencyKey: string | null;
  /** The signed transaction as broadcast: replays answer with it, re-sends use it. */
  signedTransaction: string | null;
  executionMode: ExecutionMode;
  /** Sponsored records only (null on legacy ones): the operation's stage, review, hash, cost and stored signed operation. */
  stage: string | null;
  reviewId: string | null;
  userOperationHash: string | null;
  /** Wei as a decimal string, from the operation's UserOperationEvent. */
  actualGasCost: string | null;
  /** The signed user operation as stored before submission (never exposed). */
  userOperation: string | null;
  /** `calls` records: the batch its transaction executes through the wallet's delegation, in order. */
  calls?: BatchCall[] | null;
  /** Managed automatic retry (EVM `transfer` only; null where it does not apply): see attempts.ts. */
  autoRetry?: boolean | null;
  /** The maxFeePerGas no replacement goes above (wei per gas). */
  autoRetryMaxFeePerGas?: string | null;
  /** Why the last replacement was made, or why none is made now. */
  autoRetryReason?: string | null;
  submittedAt: Date | null;
  resolvedAt: Date | null;
  evidenceAt: Date | null;
  /** Where the record's own transaction was seen while not yet final (EVM block, Solana slot); see `EvidenceCoverage`. */
  evidenceBlock: bigint | null;
  nextCheckAt: Date | null;
  checkCount: number;
  consecutiveErrors: number;
  createdAt: Date;
  updatedAt: Date;
}

export type NewTransactionRecord = Omit<
  TransactionRecord,
  | 'createdAt'
  | 'updatedAt'
  | 'checkCount'
  | 'consecutiveErrors'
  | 'evidenceAt'
  | 'evidenceBlock'
  | 'resolvedAt'
  | 'blockNumber'
  | 'blockHash'
  | 'idempotencyKey'
  | 'signedTransaction'
  | 'serviceInitiated'
  | 'executionMode'
  | 'stage'
  | 'reviewId'
  | 'userOperationHash'
  | 'actualGasCost'
  | 'userOperation'
> & {
  createdAt?: Date;
  idempotencyKey?: string | null;
  signedTransaction?: string | null;
  serviceInitiated?: ServiceInitiated | null;
} & Partial<Pick<TransactionRecord, 'executionMode' | 'stage' | 'reviewId' | 'userOperationHash' | 'actualGasCost' | 'userOperation'>>;

/** Fields a broadcast step or a monitor check may change. */
export type TransactionPatch = Partial<
  Pick<
    TransactionRecord,
    | 'status'
    | 'hash'
    | 'blockNumber'
    | 'blockHash'
    | 'failureStage'
    | 'failureCode'
    | 'failureMessage'
    | 'monitoring'
    | 'submittedAt'
    | 'resolvedAt'
    | 'evidenceAt'
    | 'evidenceBlock'
    | 'nextCheckAt'
    | 'checkCount'
    | 'consecutiveErrors'
  >
>;

export interface TransactionListFilter {
  projectId: string;
  walletId: string;
  status?: TransactionStatus;
  intentKind?: IntentKind;
  after?: KeysetPosition;
  limit: number;
}

/** A monitor check that changed nothing but the schedule. */
export interface TransactionReschedule {
  id: string;
  nextCheckAt: Date;
  consecutiveErrors: number;
  evidenceAt: Date | null;
  evidenceBlock: bigint | null;
  monitoring: MonitoringInfo | null;
}

/**
 * A monitor check that changes the record's outcome (a resolution, or `pending` → `submitted`):
 * every listed field is written as given, except `submittedAt`, which only fills an empty one.
 */
export interface TransactionCompletion {
  id: string;
  status: TransactionStatus;
  blockNumber: bigint | null;
  blockHash: string | null;
  failureStage: FailureStage | null;
  failureCode: string | null;
  failureMessage: string | null;
  monitoring: MonitoringInfo | null;
  submittedAt: Date | null;
  resolvedAt: Date | null;
  evidenceAt: Date | null;
  evidenceBlock: bigint | null;
  nextCheckAt: Date | null;
  consecutiveErrors: number;
  /** Written in the same statement, only if the record was saved (still leased by the owner). */
  events: NewEvent[];
}

/**
 * A chain's finality as the monitor just read it: a record of that chain (`walletType` EVM and
 * `chain` = chainId, or SOLANA and `chain` = network) whose `evidenceBlock` is at or below `upTo`
 * may resolve now. EVM: min(finalized head, latest head - 1), so the block is final and has two
 * confirmations; Solana: the finalized slot.
 */
export interface EvidenceCoverage {
  walletType: TransactionRecord['walletType'];
  chain: string;
  upTo: bigint;
}

/** Records waiting for finality on one chain: the lowest evidence position among them. */
export interface EvidenceWaiting {
  walletType: TransactionRecord['walletType'];
  chain: string;
  lowest: bigint;
}

/** A nonce reserved for one transaction until its record takes it. */
export interface NonceReservation {
  nonce: number;
  reservationId: string;
}

/**
 * The reservation of a nonce lapsed and another transaction took the nonce before this one's
 * record was written: the signed bytes are never sent.
 */
export class NonceReservationLostError extends Error {
  constructor(nonce: number) {
    super(`The reservation of nonce ${nonce} lapsed before the transaction was recorded`);
  }
}

export interface TransactionStore {
  /**
   * Reserves the EVM nonce for the next transaction of (wallet, chain) for `leaseMs`: the lowest
   * free nonce (released, or whose reservation lapsed) not below `chainPendingNonce` if there is
   * one, else the larger of the stored counter and `chainPendingNonce`; the counter moves past it.
   * Atomic across processes. The record that will hold the nonce takes it from the reservation
   * (`create`); a reservation whose process died lapses, and its nonce is handed out again first.
   */
  allocateNonce(walletId: string, chainId: string, chainPendingNonce: number, leaseMs: number): Promise<NonceReservation>;
  /**
   * Makes a nonce free to hand out again: with `reservationId`, only while that reservation still
   * holds it (a signature refused by policy); without, a nonce whose record the node refused.
   */
  releaseNonce(walletId: string, chainId: string, nonce: number, reservationId?: string): Promise<void>;
  /**
   * Writes the record and its events in one statement. With `reservationId`, the record's nonce is
   * taken from that reservation in the same statement, and nothing is written (NonceReservationLostError)
   * when the reservation no longer holds it. With `signature`, the signature of the record's bytes
   * (its audit row, events and spent reservation) is written in the same statement, or not at all.
   */
  create(record: NewTransactionRecord, events: NewEvent[], reservationId?: string, signature?: SignatureWrite | SignatureWrite[]): Promise<TransactionRecord>;
  /**
   * Applies the patch and writes the events in one transaction, only while the record's status is
   * still `onlyIfStatus` (a monitor may have resolved it meanwhile); null when it was not.
   */
  update(id: string, patch: TransactionPatch, events: NewEvent[], onlyIfStatus: TransactionStatus): Promise<TransactionRecord | null>;
  findInWallet(projectId: string, walletId: string, transactionId: string): Promise<TransactionRecord | null>;
  /** The record a request with this Idempotency-Key broadcast, if any. */
  findByIdempotencyKey(projectId: string, idempotencyKey: string): Promise<TransactionRecord | null>;
  /** Newest first (createdAt desc, id desc) after the keyset position. */
  list(filter: TransactionListFilter): Promise<TransactionRecord[]>;
  /** Every record of the wallet on that chain broadcast with this nonce (same-nonce races). */
  findByNonce(walletId: string, chainId: string, nonce: number): Promise<TransactionRecord[]>;
  /**
   * Leases up to `limit` legacy records to `owner` until `leaseUntil` (sponsored records have their
   * own worker); two owners never hold the same record at once. First the unresolved records without RPC errors whose evidence is covered
   * (`covered`), then the records due at `now` (nextCheckAt ≤ now, no live lease), oldest due first.
   */
  leaseDue(owner: string, now: Date, leaseUntil: Date, limit: number, covered?: EvidenceCoverage[]): Promise<TransactionRecord[]>;
  /** Per chain, the unresolved records without RPC errors that carry an evidence position. */
  waitingForFinality(): Promise<EvidenceWaiting[]>;
  /** Saves unchanged-status checks in one statement, only for records `owner` still leases; releases them. */
  reschedule(owner: string, checks: TransactionReschedule[]): Promise<number>;
  /** Saves a resolving check (patch + events) if `owner` still leases the record; releases it. */
  completeCheck(owner: string, id: string, patch: TransactionPatch, events: NewEvent[]): Promise<TransactionRecord | null>;
  /**
   * `completeCheck` for many records in ONE atomic statement: saves each completion (and writes its
   * events) only if `owner` still leases that record, releases them, and returns the saved ids.
   */
  completeChecks(owner: string, completions: TransactionCompletion[]): Promise<string[]>;
}
