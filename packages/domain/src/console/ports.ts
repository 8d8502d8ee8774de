import type { ApiKeyRecord, IntentKind, TransactionRecord, TransactionStatus, WalletRecord, WalletStatus } from '../ports.ts';
import type { KeysetPosition } from '../shared/cursor.ts';
import type { WalletType } from '../wallets/addresses.ts';
import type { StoredEvent, WebhookDeliveryLog } from '../webhooks/ports.ts';

/** What the console (tRPC, GraphQL) needs from storage: reads across one partner's projects. */

export interface ProjectRecord {
  id: string;
  partnerId: string;
  name: string;
  createdAt: Date;
}

export interface ProjectSummary extends ProjectRecord {
  walletCount: number;
  apiKeyCount: number;
}

export class DuplicateProjectError extends Error {
  constructor() {
    super('A project with this name exists');
  }
}

/** Wallets of a partner, optionally of one project; newest first (createdAt desc, id desc). */
export interface PartnerWalletFilter {
  partnerId: string;
  projectId?: string;
  type?: WalletType;
  status?: WalletStatus;
  claimed?: boolean;
  /** Exact address (EVM case-insensitively) or exact user identifier. */
  search?: string;
  address?: string;
  userIdentifier?: string;
  after?: KeysetPosition;
  limit: number;
}

/** Records of a partner; newest first (createdAt desc, id desc). */
export interface PartnerTransactionFilter {
  partnerId: string;
  projectId?: string;
  walletId?: string;
  status?: TransactionStatus;
  intentKind?: IntentKind;
  /** Exact hash (0x hashes case-insensitively). */
  hash?: string;
  /** Records of any of these wallets (the user filter's wallets). */
  walletIds?: string[];
  /** EVM chain id (decimal string) or Solana network. */
  chain?: string;
  /** `native`: records without a token; otherwise any of these token addresses (0x ones case-insensitively). */
  token?: { native: true } | { addresses: string[] };
  /** `createdAt >= createdFrom` and `createdAt < createdBefore`. */
  createdFrom?: Date;
  createdBefore?: Date;
  after?: KeysetPosition;
  limit: number;
}

/** A wallet's user, for the records list's user column. */
export interface WalletUser {
  walletId: string;
  userIdentifier: string;
  userIdentifierType: string;
}

/** A delivery of the endpoint's log with the event it carried. */
export interface EndpointDelivery extends WebhookDeliveryLog {
  type: string;
  eventCreatedAt: Date;
}

export interface ConsoleStore {
  listProjects(partnerId: string): Promise<ProjectSummary[]>;
  /** Throws DuplicateProjectError when the partner has a project of that name. */
  createProject(project: Omit<ProjectRecord, 'createdAt'>): Promise<ProjectRecord>;
  findProject(partnerId: string, projectId: string): Promise<ProjectRecord | null>;
  /** Every key of the project, newest first (revoked ones too). */
  listApiKeys(projectId: string): Promise<ApiKeyRecord[]>;
  findWallet(partnerId: string, walletId: string): Promise<WalletRecord | null>;
  listWallets(filter: PartnerWalletFilter): Promise<WalletRecord[]>;
  findTransaction(partnerId: string, transactionId: string): Promise<TransactionRecord | null>;
  listTransactions(filter: PartnerTransactionFilter): Promise<TransactionRecord[]>;
  /**
   * Ids of the partner's wallets (of one project when given) whose user identifier starts with
   * `prefix`, case-insensitively; at most `limit`.
   */
  walletIdsOfUser(filter: { partnerId: string; projectId?: string; prefix: string; limit: number }): Promise<string[]>;
  walletUsers(walletIds: string[]): Promise<WalletUser[]>;
  /**
   * The events about a record (the events' indexed `transaction_id`) in the project, oldest first,
   * each with every delivery and its attempts.
   */
  transactionEvents(projectId: string, transactionId: string): Promise<Array<{ event: StoredEvent; deliveries: WebhookDeliveryLog[] }>>;
  /** The endpoint's deliveries, newest first, before delivery id `before`. */
  endpointDeliveries(endpointId: string, before: string | undefined, limit: number): Promise<EndpointDelivery[]>;
  /** Records created since `since`, counted per UTC day and status. */
  broadcastsPerDay(projectId: string, since: Date): Promise<Array<{ day: string; status: string; count: number }>>;
}
