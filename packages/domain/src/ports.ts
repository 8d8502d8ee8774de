import type { CustodyMode, EncryptedShare } from './custody/types.ts';
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
  /** `isolated`: the key is joined only inside the signer; `threshold`: it never exists whole (FROST, DKLs23). */
  custodyMode: CustodyMode;
  claimedAt: Date | null;
  claimedByUserId: string | null;
  migratedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

export type WalletCustody = 'api_key' | 'client';

/** The custody mode of new secp256k1 (EVM, COSMOS) wallets, per project and environment. */
export interface CustodySettingsStore {
  /** `isolated` when none was set. */
  secp256k1Mode(projectId: string, environment: string): Promise<CustodyMode>;
  setSecp256k1Mode(projectId: string, environment: string, mode: CustodyMode): Promise<void>;
}

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

/**
 * What a signature writes, handed by the signing pipeline to the store write that records what was
 * signed (`SigningPipeline.signAndRecord`): the audit row, its events and the spend reservation that
 * becomes spent, committed in the same statement as the record, or not at all.
 */
export interface SignatureWrite {
  audit: AuditEntry;
  events: NewEvent[];
  spentReservationId: string | null;
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
  /** Deletes a claim whose execution failed with a server error, so a retry runs again. */
  abandon(projectId: string, key: string, owner: string): Promise<void>;
  /**
   * Gives up the lease of a request that may run again (paused for approval) but keeps its request
   * hash: the same request takes the key over at once, any other gets the existing claim (409).
   */
  release(projectId: string, key: string, owner: string): Promise<void>;
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

export * from './transactions/records.ts';

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
