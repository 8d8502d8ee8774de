/** One deciding rule of a policy refusal (the `deniedBy` of POLICY_DENIED, the requirements of POLICY_REVIEW_REQUIRED). */
export interface DecidingRule {
  policyId: string;
  policyVersion: string;
  ruleId: string | null;
}

/**
 * One /v1 request that changed state (a 2xx POST, PUT, PATCH or DELETE) or was refused (any
 * non-2xx). Facts about the request only: never its body, its API key or any other secret.
 */
export interface RequestLogEntry {
  /** Null when the request was refused before its API key was authenticated. */
  projectId: string | null;
  requestId: string;
  method: string;
  /** The route template (`/v1/wallets/:walletId/transfer`), never the raw path. */
  route: string;
  status: number;
  code: string | null;
  apiKeyId: string | null;
  walletId: string | null;
  transactionId: string | null;
  caseId: string | null;
  latencyMs: number;
  deniedBy: DecidingRule[] | null;
  at: Date;
}

export interface RequestLogFilter {
  partnerId: string;
  requestId?: string;
  walletId?: string;
  apiKeyId?: string;
  status?: number;
  code?: string;
  /** Inclusive lower and exclusive upper bound of `at`. */
  from?: Date;
  to?: Date;
  /** A keyset position: only entries after it in the list's order (`at` desc, then request id desc). */
  before?: { at: Date; requestId: string };
  limit: number;
}

export interface RequestLogStore {
  /** Inserts the entries in one statement. */
  append(entries: RequestLogEntry[]): Promise<void>;
  /** Entries of the partner's projects, newest first (ties on `at` by request id, descending). */
  list(filter: RequestLogFilter): Promise<RequestLogEntry[]>;
  /** Deletes up to `limit` entries older than `before`; returns how many. */
  prune(before: Date, limit: number): Promise<number>;
}
