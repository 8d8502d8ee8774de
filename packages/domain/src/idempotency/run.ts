import { createHash, randomUUID } from 'node:crypto';
import { ApiError, conflict, invalidRequest } from '../errors.ts';
import type { IdempotencyStore, StoredResponse } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';

export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
const KEY_PATTERN = /^[\x21-\x7e]{1,256}$/;

export function checkIdempotencyKey(key: string): string {
  if (!KEY_PATTERN.test(key)) {
    throw invalidRequest('Invalid request: Idempotency-Key must be 1 to 256 printable ASCII characters without spaces');
  }
  return key;
}

/** Stable hash of a request: method, path and body with object keys sorted. */
export function requestFingerprint(method: string, path: string, body: unknown): string {
  return createHash('sha256').update(`${method} ${path}\n${canonicalJson(body)}`).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

export interface IdempotencyOptions {
  /** How long a repeat waits for a first request that is still running before answering 409. */
  waitForRunningMs?: number;
  pollMs?: number;
  /**
   * Lease of a running request (default 30 s), renewed every third of it while the request runs.
   * After a crash the key stays held until the lease passes; then a retry of the same request runs.
   */
  leaseMs?: number;
}

export const DEFAULT_IDEMPOTENCY_LEASE_MS = 30_000;

/**
 * Runs `execute` once per (project, key). A repeat with the same fingerprint gets the stored
 * response; a different fingerprint gets 409 CONFLICT; a repeat that arrives while the first is
 * still running waits for it (bounded), then answers 409. Client errors are stored like successes
 * (the request did run), except 400 INVALID_REQUEST (the request failed validation and changed
 * nothing: deleted, so the corrected request can use the key, as Stripe does), those marked
 * `releasesIdempotencyKey` (a request paused for approval: the key keeps its fingerprint, so only
 * the same request runs again) and `leavesIdempotencyKeyAlone` (deleted); server errors release
 * the key so a retry runs again. A running request
 * holds a renewed lease: if its process dies, a retry takes the key over once the lease has passed.
 */
export function createIdempotency(store: IdempotencyStore, clock: Clock, options: IdempotencyOptions = {}) {
  const waitForRunningMs = options.waitForRunningMs ?? 10_000;
  const pollMs = options.pollMs ?? 20;
  const leaseMs = options.leaseMs ?? DEFAULT_IDEMPOTENCY_LEASE_MS;
  const leaseFrom = (owner: string) => ({ owner, expiresAt: new Date(clock.now().getTime() + leaseMs) });

  return async function runIdempotent(
    projectId: string,
    key: string,
    fingerprint: string,
    execute: () => Promise<StoredResponse>,
  ): Promise<StoredResponse & { replayed: boolean }> {
    const owner = randomUUID();
    const deadline = Date.now() + waitForRunningMs;
    for (;;) {
      const now = clock.now();
      const claim = await store.begin(projectId, key, fingerprint, now, new Date(now.getTime() + IDEMPOTENCY_TTL_MS), leaseFrom(owner));
      if (claim.kind === 'started') break;
      if (claim.requestHash !== fingerprint) {
        throw conflict('Idempotency-Key was already used with a different request');
      }
      if (claim.response) return { ...claim.response, replayed: true };
      if (Date.now() >= deadline) {
        throw conflict('A request with this Idempotency-Key is still in progress; retry later');
      }
      await new Promise((resolve) => setTimeout(resolve, pollMs));
    }

    const renewal = setInterval(() => void store.renew(projectId, key, leaseFrom(owner)).catch(() => undefined), Math.max(1, Math.floor(leaseMs / 3)));
    renewal.unref();
    let response: StoredResponse;
    try {
      response = await execute();
    } catch (error) {
      clearInterval(renewal);
      // Client errors, and broadcast failures after a transaction record exists (a retry must not
      // send a second transaction), are stored like successes: the request did run.
      if (error instanceof ApiError && error.releasesIdempotencyKey && !error.leavesIdempotencyKeyAlone) {
        // The key stays bound to this request: were it deleted, another request could take it over
        // (and store its answer there) before the approved resend of this one comes back.
        await store.release(projectId, key, owner);
      } else if (error instanceof ApiError && !error.leavesIdempotencyKeyAlone && !isInvalidRequest(error) && (error.status < 500 || typeof error.extra.transactionId === 'string')) {
        const transactionId = error.extra.transactionId;
        response = { status: error.status, body: error.toBody(), headers: typeof transactionId === 'string' ? { 'x-transaction-id': transactionId } : {} };
        await store.complete(projectId, key, owner, response);
      } else {
        await store.abandon(projectId, key, owner);
      }
      throw error;
    }
    clearInterval(renewal);
    if (response.status >= 500) await store.abandon(projectId, key, owner);
    else await store.complete(projectId, key, owner, response);
    return { ...response, replayed: false };
  };
}

/** A validation refusal: the request changed nothing, so its key is not spent on it. */
const isInvalidRequest = (error: ApiError) => error.status === 400 && error.code === 'INVALID_REQUEST';

export type RunIdempotent = ReturnType<typeof createIdempotency>;
