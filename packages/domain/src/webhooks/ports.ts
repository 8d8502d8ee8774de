import type { NewEvent } from '../ports.ts';

/** Storage of webhook endpoints, the dispatch of outbox events to delivery rows, and the attempt log. */

export interface WebhookEndpointRecord {
  id: string;
  apiKeyId: string;
  projectId: string;
  url: string;
  enabled: boolean;
  eventTypes: string[];
  /** The sealed current secret: KEK id and IV || ciphertext || tag. */
  secretKekId: string;
  secret: Uint8Array;
  previousSecretKekId: string | null;
  previousSecret: Uint8Array | null;
  previousSecretExpiresAt: Date | null;
  failingSince: Date | null;
  disabledAt: Date | null;
  disabledReason: string | null;
  createdAt: Date;
  updatedAt: Date;
}

export type NewWebhookEndpoint = Omit<WebhookEndpointRecord, 'createdAt' | 'updatedAt' | 'failingSince' | 'disabledAt' | 'disabledReason'>;

export type WebhookEndpointPatch = Partial<
  Pick<
    WebhookEndpointRecord,
    | 'url'
    | 'enabled'
    | 'eventTypes'
    | 'secretKekId'
    | 'secret'
    | 'previousSecretKekId'
    | 'previousSecret'
    | 'previousSecretExpiresAt'
    | 'failingSince'
    | 'disabledAt'
    | 'disabledReason'
  >
>;

export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** The disabled reason of a revoked key's endpoint, and the last error of its deliveries never sent. */
export const API_KEY_REVOKED = 'API key revoked';

/** A due delivery with the event it carries. */
export interface DueDelivery {
  id: string;
  eventId: string;
  eventSeq: string;
  /** Attempts of the current round before this one. */
  attempts: number;
  type: string;
  createdAt: Date;
  data: Record<string, unknown>;
}

/** The outcome of one attempt, as saved in the log and on the delivery row. */
export interface AttemptResult {
  deliveryId: string;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
  /** The delivery's status after this attempt, and its next attempt when still pending. */
  status: WebhookDeliveryStatus;
  nextAttemptAt: Date | null;
}

/** How the endpoint's health changes with a batch of attempts (see `healthChange`). */
export type EndpointHealthChange =
  | { kind: 'healthy' }
  | { kind: 'failing'; since: Date }
  | { kind: 'still-failing'; firstFailureAt: Date };

export interface WebhookAttemptRecord {
  id: string;
  attemptedAt: Date;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface WebhookDeliveryLog {
  deliveryId: string;
  eventId: string;
  endpointId: string;
  apiKeyId: string;
  url: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: Date | null;
  lastStatusCode: number | null;
  lastError: string | null;
  deliveredAt: Date | null;
  createdAt: Date;
  log: WebhookAttemptRecord[];
}

export interface StoredEvent extends NewEvent {
  seq: string;
  createdAt: Date;
  dispatchedAt: Date | null;
}

export interface WebhookStore {
  findByApiKey(apiKeyId: string): Promise<WebhookEndpointRecord | null>;
  findById(endpointId: string): Promise<WebhookEndpointRecord | null>;
  create(endpoint: NewWebhookEndpoint): Promise<WebhookEndpointRecord>;
  update(endpointId: string, patch: WebhookEndpointPatch): Promise<WebhookEndpointRecord>;
  /** Makes every pending delivery of the endpoint due at `now` with a fresh round of attempts. */
  rearmPending(endpointId: string, now: Date): Promise<number>;

  /**
   * One statement: takes up to `limit` undispatched events (oldest `seq` first, skipping rows another
   * dispatcher holds), marks them dispatched and inserts a pending delivery, due at `now`, for every
   * enabled endpoint of the event's project (whose API key is not revoked) subscribed to its type.
   */
  dispatch(now: Date, limit: number): Promise<{ events: number; deliveries: number }>;
  /**
   * Leases up to `limit` enabled endpoints with a delivery due at `now` that no live lease holds,
   * to `owner` until `leaseUntil`. Two owners never hold one endpoint at once.
   */
  leaseEndpoints(owner: string, now: Date, leaseUntil: Date, limit: number): Promise<WebhookEndpointRecord[]>;
  /** Extends the lease if `owner` still holds it; returns the endpoint as stored now, else null. */
  renewLease(owner: string, endpointId: string, leaseUntil: Date): Promise<WebhookEndpointRecord | null>;
  releaseLease(owner: string, endpointId: string): Promise<void>;
  /** The endpoint's pending deliveries due at `now`, in event creation order, after event `afterSeq` when given. */
  dueDeliveries(endpointId: string, now: Date, limit: number, afterSeq?: string): Promise<DueDelivery[]>;
  /**
   * Appends the attempts to the log and applies them to their deliveries (a delivered row stays
   * delivered; a row failed meanwhile, e.g. by a key revocation, stays failed unless this attempt
   * delivered it), and applies `health` to the endpoint's failing-since, in one statement; returns
   * the endpoint's failing-since afterwards and whether it is still enabled.
   */
  recordAttempts(
    endpointId: string,
    results: AttemptResult[],
    health: EndpointHealthChange | null,
  ): Promise<{ failingSince: Date | null; enabled: boolean }>;
  /**
   * Disables the endpoint (enabled = false, reason) if it is still enabled and failing since
   * `failingBefore` or earlier; releases its lease. Returns whether it did.
   */
  disableIfFailingSince(endpointId: string, failingBefore: Date, at: Date, reason: string): Promise<boolean>;

  /** Writes a `test.ping` event (already dispatched) and its delivery to the endpoint (not due: sent at once by the caller). */
  createPing(event: NewEvent, endpointId: string, now: Date): Promise<DueDelivery>;
  findEvent(eventId: string): Promise<StoredEvent | null>;
  /** Events whose `data.txHash` or `data.hash` equals the hash, oldest first. */
  findEventsByTxHash(hash: string, projectId: string | null): Promise<StoredEvent[]>;
  /**
   * A fresh round for each event to every enabled endpoint of an unrevoked key of its project (optionally only the
   * endpoint of `apiKeyId`) that had a delivery for it or is subscribed to its type: the delivery is
   * created or set pending, due at `now`. Returns the deliveries armed.
   */
  resend(eventIds: string[], apiKeyId: string | null, now: Date): Promise<Array<{ deliveryId: string; eventId: string; endpointId: string }>>;
  deliveryLog(eventId: string, apiKeyId: string | null): Promise<WebhookDeliveryLog[]>;
}

export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  /** The exact bytes signed. */
  body: string;
  timeoutMs: number;
}

/** What one HTTP attempt gave: the status code when an answer came, else the error. Never throws. */
export interface WebhookResponse {
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** Sends one webhook POST (HTTPS, certificate verified, private addresses refused in production). */
export type WebhookSender = (request: WebhookRequest) => Promise<WebhookResponse>;

/** Thrown by `WebhookStore.create` when the API key already has an endpoint (two configurations raced). */
export class WebhookEndpointExistsError extends Error {
  constructor() {
    super('webhook endpoint already exists for this API key');
    this.name = 'WebhookEndpointExistsError';
  }
}
