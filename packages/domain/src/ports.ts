import type { EncryptedShare } from './custody/shares.ts';
import type { KeysetPosition } from './shared/cursor.ts';
import type { WalletType } from './wallets/addresses.ts';

/** What the domain needs from storage. packages/db implements these over Prisma. */

export type Environment = 'development' | 'production';
export type Plan = 'free' | 'starter' | 'growth' | 'scale';

export interface ApiKeyRecord {
  id: string;
  projectId: string;
  partnerId: string;
  environment: Environment;
  plan: Plan;
  rateLimitPerMinute: number | null;
  ipAllowlist: string[];
  keyPrefix: string;
  keyHash: string;
  createdAt: Date;
  revokedAt: Date | null;
}

export interface NewApiKey {
  id: string;
  environment: Environment;
  plan: Plan;
  rateLimitPerMinute: number | null;
  ipAllowlist: string[];
  keyPrefix: string;
  keyHash: string;
}

export interface ApiKeyStore {
  /** Finds or creates the partner and project by name, then inserts the key, in one transaction. */
  createForProject(partnerName: string, projectName: string, key: NewApiKey): Promise<ApiKeyRecord>;
  findByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  findById(id: string): Promise<ApiKeyRecord | null>;
  replaceSecret(id: string, keyPrefix: string, keyHash: string): Promise<ApiKeyRecord | null>;
  /**
   * Revokes the key and, in the same statement, stops its webhook endpoint: the endpoint is disabled
   * (reason `API_KEY_REVOKED`, lease dropped) and its pending deliveries become `failed`, unsent.
   */
  revoke(id: string, at: Date): Promise<ApiKeyRecord | null>;
  /** Changes plan and limits of a key that is not revoked; null when there is none. */
  update(id: string, patch: Partial<Pick<ApiKeyRecord, 'plan' | 'rateLimitPerMinute' | 'ipAllowlist'>>): Promise<ApiKeyRecord | null>;
}

export type WalletStatus = 'creating' | 'ready';

export interface WalletRecord {
  id: string;
  projectId: string;
  type: WalletType;
  scheme: 'DKLS' | 'ED25519';
  address: string;
  publicKey: string;
  status: WalletStatus;
  userIdentifier: string;
  userIdentifierType: string;
  cosmosPrefix: string | null;
  /** `api_key`: both shares are held here; `client`: the user share is with the client until migrated. */
  custody: WalletCustody;
  claimedAt: Date | null;
  claimedByUserId: string | null;
  migratedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type WalletCustody = 'api_key' | 'client';

export type NewWallet = Omit<WalletRecord, 'createdAt' | 'updatedAt' | 'claimedAt' | 'claimedByUserId' | 'migratedAt'>;

export interface AuditEntry {
  projectId: string | null;
  apiKeyId: string | null;
  walletId: string | null;
  requestId: string | null;
  action: string;
  details: Record<string, unknown>;
}

export interface WalletListFilter {
  projectId: string;
  type?: WalletType;
  status?: WalletStatus;
  userIdentifier?: string;
  userIdentifierType?: string;
  address?: string;
  after?: KeysetPosition;
  limit: number;
}

/** Raised by stores when a unique wallet identity already exists; carries the existing wallet id. */
export class DuplicateWalletError extends Error {
  constructor(readonly existingWalletId: string) {
    super('duplicate wallet');
  }
}

export interface WalletStore {
  /** Inserts the wallet, its encrypted shares and the audit row in one transaction. Throws DuplicateWalletError. */
  create(wallet: NewWallet, shares: EncryptedShare[], audit: AuditEntry): Promise<WalletRecord>;
  findInProject(projectId: string, walletId: string): Promise<WalletRecord | null>;
  /** Unscoped: only for operator tools (CLI), never for a partner request. */
  findById(walletId: string): Promise<WalletRecord | null>;
  /** Newest first; returns up to `limit` rows after the keyset position. */
  list(filter: WalletListFilter): Promise<WalletRecord[]>;
  /** Throws DuplicateWalletError when the new identity collides. */
  updateIdentifier(
    projectId: string,
    walletId: string,
    change: { userIdentifier: string; userIdentifierType: string },
    audit: AuditEntry,
  ): Promise<WalletRecord | null>;
  findShares(walletId: string): Promise<EncryptedShare[]>;
  /** The wallet and its encrypted shares in one read (the signing path). */
  findWithShares(projectId: string, walletId: string): Promise<{ wallet: WalletRecord; shares: EncryptedShare[] } | null>;
}

export interface AuditStore {
  /**
   * Appends the audit row and the events it causes, atomically; with `spentReservationId`, that
   * policy spend reservation becomes spent in the same write (the signature the row records exists).
   */
  append(entry: AuditEntry, events?: NewEvent[], spentReservationId?: string | null): Promise<void>;
}

export interface StoredResponse {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export type IdempotencyBegin =
  | { kind: 'started' }
  | { kind: 'existing'; requestHash: string; response: StoredResponse | null };

/** One claim of an idempotency key: who holds it (a random token per claim) and until when. */
export interface IdempotencyLease {
  owner: string;
  expiresAt: Date;
}

export interface IdempotencyStore {
  /**
   * Claims (projectId, key) for this request under `lease`, or reports the existing claim. A record
   * past `expiresAt` is replaced; a `running` record of the same request whose lease has passed (its
   * holder crashed) is taken over atomically, so of several retries exactly one starts.
   */
  begin(projectId: string, key: string, requestHash: string, now: Date, expiresAt: Date, lease: IdempotencyLease): Promise<IdempotencyBegin>;
  /** Extends the lease while the holder still runs; false when the claim was lost (taken over or released). */
  renew(projectId: string, key: string, lease: IdempotencyLease): Promise<boolean>;
  /** Stores the response, unless the claim was lost meanwhile (then false). */
  complete(projectId: string, key: string, owner: string, response: StoredResponse): Promise<boolean>;
  /** Releases a claim whose execution failed with a server error, so a retry runs again. */
  abandon(projectId: string, key: string, owner: string): Promise<void>;
  /** Deletes up to `limit` records past their 24 h; returns how many. */
  pruneExpired(now: Date, limit: number): Promise<number>;
}

export interface WorkerLeaseStore {
  /**
   * Takes or extends the lease `name` for `owner` until `until`, if it is free, expired or already
   * this owner's; true when `owner` holds it now. Atomic: of several processes exactly one holds it.
   */
  acquire(name: string, owner: string, now: Date, until: Date): Promise<boolean>;
  /** Gives the lease up (only if `owner` still holds it), so another process need not wait for it to expire. */
  release(name: string, owner: string): Promise<void>;
}

export interface RateLimitStore {
  /** Adds one hit to the counter of (apiKeyId, windowStart) and returns the new count. */
  hit(apiKeyId: string, windowStart: Date): Promise<number>;
  /** Deletes up to `limit` counters of windows that ended before `before`; returns how many. */
  prune(before: Date, limit: number): Promise<number>;
}

export interface UserRecord {
  id: string;
  projectId: string;
  identifier: string;
  identifierType: string;
  createdAt: Date;
}

export interface NewEvent {
  id: string;
  projectId: string;
  type: string;
  data: Record<string, unknown>;
  /** The transaction record the event is about (stored in an indexed column); absent for other events. */
  transactionId?: string | null;
}

export interface SignUpResult {
  user: UserRecord;
  created: boolean;
  claimed: WalletRecord[];
}

export interface UserStore {
  /**
   * In one transaction: finds or creates the user, claims every unclaimed wallet of the identifier
   * in the project, and writes the events `makeEvents` returns for that outcome.
   */
  signUp(
    user: Omit<UserRecord, 'createdAt'>,
    makeEvents: (outcome: SignUpResult) => NewEvent[],
  ): Promise<SignUpResult>;
  find(projectId: string, identifierType: string, identifier: string): Promise<UserRecord | null>;
  /** Writes events that no other change causes (e.g. a verified external wallet). */
  recordEvents(events: NewEvent[]): Promise<void>;
}

export interface EventStore {
  listForProject(projectId: string, limit: number): Promise<(NewEvent & { createdAt: Date })[]>;
}

export interface CustodyStore {
  /** A client-side pregenerated wallet: only the service share is held here. */
  createClientWallet(wallet: NewWallet, serviceShare: EncryptedShare, audit: AuditEntry): Promise<WalletRecord>;
  /**
   * Stores the migrated user share and makes the wallet signable, only while it is an unclaimed
   * client wallet; returns null (and writes nothing) otherwise.
   */
  attachUserShare(walletId: string, userShare: EncryptedShare, at: Date, audit: AuditEntry): Promise<WalletRecord | null>;
  getEnclaveKey(): Promise<EnclaveKeyRow | null>;
  /** Inserts the key unless one exists; returns the key that won. */
  saveEnclaveKey(key: EnclaveKeyRow): Promise<EnclaveKeyRow>;
}

export interface EnclaveKeyRow {
  id: string;
  publicKeyPem: string;
  kekId: string;
  iv: Uint8Array;
  encryptedPrivateKey: Uint8Array;
  createdAt: Date;
}

export type TransactionStatus = 'pending' | 'submitted' | 'confirmed' | 'reverted' | 'failed';
export type IntentKind = 'transfer' | 'sign_transaction' | 'yield';
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
  receipt?: { blockNumber: string; blockHash: string; status: 'success' | 'reverted' } | null;
  /** Monitor-internal (not shown in responses): how often the stored bytes were sent again (monitor-rebroadcast.ts), and last when. */
  rebroadcasts?: number;
  lastRebroadcastAt?: string;
}

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
> & { createdAt?: Date; idempotencyKey?: string | null; signedTransaction?: string | null; serviceInitiated?: ServiceInitiated | null };

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
   * when the reservation no longer holds it.
   */
  create(record: NewTransactionRecord, events: NewEvent[], reservationId?: string): Promise<TransactionRecord>;
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
   * Leases up to `limit` records to `owner` until `leaseUntil`; two owners never hold the same
   * record at once. First the unresolved records without RPC errors whose evidence is covered
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

export type StaffRole = 'owner' | 'developer' | 'support';

export interface StaffRecord {
  id: string;
  partnerId: string;
  partnerName: string;
  email: string;
  role: StaffRole;
  passwordHash: string;
  createdAt: Date;
  disabledAt: Date | null;
}

export class DuplicateStaffError extends Error {
  constructor() {
    super('A staff account with this email exists');
  }
}

export interface StaffStore {
  /** Creates the partner on first use; throws DuplicateStaffError when the email is taken. */
  create(partnerName: string, account: Pick<StaffRecord, 'id' | 'email' | 'role' | 'passwordHash'>): Promise<StaffRecord>;
  findByEmail(email: string): Promise<StaffRecord | null>;
  count(): Promise<number>;
  listByPartner(partnerId: string): Promise<StaffRecord[]>;
  createSession(session: { id: string; staffId: string; tokenHash: string; expiresAt: Date }): Promise<void>;
  /** The session's account when the session is neither revoked nor expired and the account is enabled. */
  findActiveSession(tokenHash: string, now: Date): Promise<{ sessionId: string; expiresAt: Date; staff: StaffRecord } | null>;
  revokeSession(tokenHash: string, now: Date): Promise<void>;
  revokeAllSessions(staffId: string, now: Date): Promise<number>;
}
