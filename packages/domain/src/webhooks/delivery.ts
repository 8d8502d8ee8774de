/**
 * Webhook delivery: the outbox (`events`) fanned out to delivery rows and sent, at least once, to
 * each subscribed endpoint.
 *
 * One `tick()`:
 * 1. Dispatch: `store.dispatch` takes undispatched events in creation order (`seq`), skipping rows
 *    another dispatcher holds, and in the same statement writes one pending delivery per enabled,
 *    subscribed endpoint of the event's project.
 * 2. Lease: `store.leaseEndpoints` hands this worker endpoints with due deliveries that no other
 *    worker holds (a lease with an expiry; a crashed worker's endpoints come free when it ends).
 *    Each leased endpoint is served by its own task, in the background of later ticks.
 *
 * Serving an endpoint is one pass over its due deliveries in creation order, batch after batch
 * (each delivery at most once per pass); then the lease is released and a later tick leases the
 * endpoint again when more is due:
 * - due deliveries are read in event creation order and STARTED in that order; up to
 *   `concurrency` requests are in flight at once, but two events of the same wallet (`data.walletId`,
 *   else `data.userId`) never are: the later one starts after the earlier one's attempt ended, so a
 *   receiver also sees the first attempts of one wallet's events in creation order;
 * - every attempt has a time-out (`timeoutMs`, default 10 s), is signed with the endpoint's current
 *   secret (and its previous one during the 24 h after a rotation), and is recorded in the attempt
 *   log with its status code, latency and error; results are written in groups (one statement per
 *   group, group commit) together with the delivery rows and the endpoint's failing-since;
 * - a 2xx answer delivers; anything else retries per `retry.ts`; after `maxAttempts` the delivery
 *   is `failed`;
 * - an endpoint whose attempts have failed without a success for `disableAfterMs` (5 days) is
 *   disabled with a reason the partner reads in its configuration;
 * - an endpoint found disabled when results are written (by its partner, or its API key revoked)
 *   gets no new attempt: the batch ends there;
 * - no new attempt starts after half the lease has passed: the batch ends, the lease is renewed and
 *   the next batch starts (the lease therefore has to outlast half of itself plus one time-out);
 * - with several workers, dispatch batches may commit out of order and an event inserted with a
 *   lower `seq` may commit after a higher one was sent: creation order is kept for what is visible
 *   when a batch is read, which for one wallet's sequential requests is their order.
 *
 * Delivery is at least once: a worker that dies after sending but before recording leaves the
 * delivery due, and it is sent again (same `webhook-id`) once the lease has expired.
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import type { KekProvider } from '../custody/types.ts';
import { newEventId } from '../events/events.ts';
import type { Clock } from '../shared/clock.ts';
import type { AttemptResult, DueDelivery, EndpointHealthChange, WebhookEndpointRecord, WebhookSender, WebhookStore } from './ports.ts';
import { DEFAULT_RETRY_SCHEDULE, retryDelayMs, type RetrySchedule } from './retry.ts';
import { openWebhookSecret, signedRequest } from './secrets.ts';

export const WEBHOOK_TIMEOUT_MS = 10_000;
export const WEBHOOK_DISABLE_AFTER_MS = 5 * 24 * 60 * 60_000;
export const WEBHOOK_SECRET_OVERLAP_MS = 24 * 60 * 60_000;

export interface WebhookDeliveryOptions {
  /** Per-attempt time-out (default 10 s). */
  timeoutMs: number;
  retry: RetrySchedule;
  /** Endpoint lease (default 60 s); must exceed twice the time-out. */
  leaseMs: number;
  /** Requests in flight per endpoint (default 8). */
  concurrency: number;
  /** Endpoints served at once by this worker (default 16). */
  maxEndpoints: number;
  /** Deliveries read per batch (default 200). */
  batchSize: number;
  /** Events fanned out per dispatch statement (default 500). */
  dispatchBatch: number;
  /** Continuous failure after which an endpoint is disabled (default 5 days). */
  disableAfterMs: number;
}

export const DEFAULT_WEBHOOK_DELIVERY_OPTIONS: WebhookDeliveryOptions = {
  timeoutMs: WEBHOOK_TIMEOUT_MS,
  retry: DEFAULT_RETRY_SCHEDULE,
  leaseMs: 60_000,
  concurrency: 8,
  maxEndpoints: 16,
  batchSize: 200,
  dispatchBatch: 500,
  disableAfterMs: WEBHOOK_DISABLE_AFTER_MS,
};

export interface WebhookDeliveryDeps {
  store: WebhookStore;
  keks: KekProvider;
  clock: Clock;
  send: WebhookSender;
  /** Lease owner name, unique per worker (default host:pid:random). */
  owner?: string;
  options?: Partial<Omit<WebhookDeliveryOptions, 'retry'>> & { retry?: Partial<RetrySchedule> };
  /** Jitter source (tests pass a fixed one). */
  random?: () => number;
  /** Errors of background endpoint tasks (they never throw out of the worker). */
  onError?: (error: unknown, context: { endpointId: string }) => void;
}

export interface WebhookTickResult {
  dispatched: number;
  deliveriesCreated: number;
  leased: number;
  /** Endpoint tasks running after this tick. */
  active: number;
}

export interface PingResult {
  eventId: string;
  ok: boolean;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

/** The secrets a delivery at `now` is signed with: the current one, and the previous one while its overlap lasts. */
export function activeSecrets(keks: KekProvider, endpoint: WebhookEndpointRecord, now: Date): string[] {
  const secrets = [openWebhookSecret(keks, endpoint.id, endpoint.secretKekId, endpoint.secret)];
  if (
    endpoint.previousSecret &&
    endpoint.previousSecretKekId &&
    endpoint.previousSecretExpiresAt &&
    endpoint.previousSecretExpiresAt.getTime() > now.getTime()
  ) {
    secrets.push(openWebhookSecret(keks, endpoint.id, endpoint.previousSecretKekId, endpoint.previousSecret));
  }
  return secrets;
}

/** How a group of attempts (in the order they ended) changes the endpoint's failing-since. */
export function healthChange(results: Array<{ ok: boolean; attemptedAt: Date }>): EndpointHealthChange | null {
  if (results.length === 0) return null;
  const lastOk = results.map((r) => r.ok).lastIndexOf(true);
  if (lastOk === results.length - 1) return { kind: 'healthy' };
  if (lastOk >= 0) return { kind: 'failing', since: results[lastOk + 1]!.attemptedAt };
  return { kind: 'still-failing', firstFailureAt: results[0]!.attemptedAt };
}

/** The ordering key of an event: its wallet, else its user, else the event alone. */
export function orderingKey(delivery: Pick<DueDelivery, 'eventId' | 'data'>): string {
  const data = delivery.data ?? {};
  if (typeof data.walletId === 'string') return `wallet:${data.walletId}`;
  if (typeof data.userId === 'string') return `user:${data.userId}`;
  return `event:${delivery.eventId}`;
}

export const webhookOwnerName = () => `${hostname()}:${process.pid}:${randomBytes(4).toString('hex')}`;

const GROUP_SIZE = 64;
const GROUP_DELAY_MS = 25;

const describeDuration = (ms: number) =>
  ms % 86_400_000 === 0 ? `${ms / 86_400_000} days` : ms % 3_600_000 === 0 ? `${ms / 3_600_000} hours` : `${Math.round(ms / 1000)} s`;

const is2xx = (status: number | null) => status !== null && status >= 200 && status < 300;

export function createWebhookDelivery(deps: WebhookDeliveryDeps) {
  const { store, keks, clock, send } = deps;
  const options: WebhookDeliveryOptions = {
    ...DEFAULT_WEBHOOK_DELIVERY_OPTIONS,
    ...deps.options,
    retry: { ...DEFAULT_RETRY_SCHEDULE, ...deps.options?.retry },
  };
  if (options.leaseMs < 2 * options.timeoutMs) throw new Error('webhook lease must last at least twice the per-attempt time-out');
  const owner = deps.owner ?? webhookOwnerName();
  const random = deps.random ?? Math.random;
  const active = new Map<string, Promise<void>>();
  let stopping = false;
  let onError = deps.onError;

  const leaseUntil = () => new Date(clock.now().getTime() + options.leaseMs);

  /** One HTTP attempt of one delivery; never throws. */
  async function attempt(endpoint: WebhookEndpointRecord, secrets: string[], delivery: DueDelivery) {
    const attemptedAt = clock.now();
    const { headers, body } = signedRequest(
      { id: delivery.eventId, type: delivery.type, createdAt: new Date(delivery.createdAt), data: delivery.data },
      secrets,
      attemptedAt,
    );
    let response;
    try {
      response = await send({ url: endpoint.url, headers, body, timeoutMs: options.timeoutMs });
    } catch (error) {
      response = { statusCode: null, latencyMs: 0, error: (error as Error)?.message ?? String(error) };
    }
    const ok = is2xx(response.statusCode);
    return {
      ok,
      attemptedAt,
      statusCode: response.statusCode,
      latencyMs: Math.max(0, Math.round(response.latencyMs)),
      error: ok ? null : (response.error ?? `HTTP ${response.statusCode}`),
    };
  }

  function retryOutcome(delivery: DueDelivery, ok: boolean): Pick<AttemptResult, 'status' | 'nextAttemptAt'> {
    if (ok) return { status: 'delivered', nextAttemptAt: null };
    const failed = delivery.attempts + 1;
    if (failed >= options.retry.maxAttempts) return { status: 'failed', nextAttemptAt: null };
    return { status: 'pending', nextAttemptAt: new Date(clock.now().getTime() + retryDelayMs(failed, options.retry, random)) };
  }

  /**
   * Sends one batch (already in creation order) to the endpoint; returns whether this worker disabled
   * the endpoint meanwhile, or found it disabled. Results are recorded in groups while the batch runs
   * and all of them before this returns.
   */
  async function sendBatch(endpoint: WebhookEndpointRecord, batch: DueDelivery[]): Promise<{ disabled: boolean; off: boolean; sent: number }> {
    const startedAt = Date.now();
    const secrets = activeSecrets(keks, endpoint, clock.now());
    const buffer: Array<AttemptResult & { ok: boolean }> = [];
    let disabled = false;
    let off = false;
    let writing: Promise<void> | null = null;
    let writeError: unknown;

    async function write(items: Array<AttemptResult & { ok: boolean }>) {
      const { failingSince, enabled } = await store.recordAttempts(endpoint.id, items, healthChange(items));
      if (!enabled) off = true;
      else if (failingSince && clock.now().getTime() - failingSince.getTime() >= options.disableAfterMs && !disabled) {
        const last = items[items.length - 1]!;
        const reason =
          `Disabled automatically on ${clock.now().toISOString()}: every delivery attempt since ${failingSince.toISOString()} ` +
          `failed (${describeDuration(options.disableAfterMs)} without a 2xx answer); last error: ${last.error ?? `HTTP ${last.statusCode}`}. ` +
          'Fix the endpoint, then enable it again; pending deliveries are resent.';
        disabled = await store.disableIfFailingSince(endpoint.id, new Date(clock.now().getTime() - options.disableAfterMs), clock.now(), reason);
      }
    }
    // Results are written in groups: when GROUP_SIZE have gathered, GROUP_DELAY_MS after the first
    // unwritten one, and at the end of the batch; one statement per group.
    let groupTimer: ReturnType<typeof setTimeout> | undefined;
    function resultReady() {
      if (buffer.length >= GROUP_SIZE) void flush();
      else groupTimer ??= setTimeout(() => void flush(), GROUP_DELAY_MS);
    }
    function flush(): Promise<void> {
      if (groupTimer) clearTimeout(groupTimer);
      groupTimer = undefined;
      if (writing) return writing;
      if (buffer.length === 0) return Promise.resolve();
      const run = (async () => {
        try {
          while (buffer.length > 0) await write(buffer.splice(0));
        } catch (error) {
          writeError ??= error;
        } finally {
          writing = null;
        }
      })();
      // The writer always awaits at least one write, so `writing = null` above runs after this.
      writing = run;
      return run;
    }

    const slots = { free: options.concurrency, waiters: [] as Array<() => void> };
    const acquire = () =>
      slots.free > 0 ? (slots.free--, Promise.resolve()) : new Promise<void>((resolve) => slots.waiters.push(resolve));
    const release = () => {
      const next = slots.waiters.shift();
      if (next) next();
      else slots.free++;
    };
    const lanes = new Map<string, Promise<void>>();
    const running = new Set<Promise<void>>();
    let sent = 0;

    for (const delivery of batch) {
      if (stopping || disabled || off || writeError || Date.now() - startedAt > options.leaseMs / 2) break;
      const key = orderingKey(delivery);
      const previous = lanes.get(key);
      if (previous) await previous;
      await acquire();
      if (stopping || disabled || off || writeError) {
        release();
        break;
      }
      const task: Promise<void> = (async () => {
        try {
          const result = await attempt(endpoint, secrets, delivery);
          buffer.push({ deliveryId: delivery.id, ...result, ...retryOutcome(delivery, result.ok) });
          resultReady();
        } finally {
          release();
        }
      })();
      sent++;
      lanes.set(key, task);
      running.add(task);
      void task.finally(() => {
        running.delete(task);
        if (lanes.get(key) === task) lanes.delete(key);
      });
    }
    await Promise.all(running);
    while (buffer.length > 0 || writing) await (writing ?? flush());
    if (writeError) throw writeError;
    return { disabled, off, sent };
  }

  /**
   * Serves a leased endpoint: one pass over its due deliveries in creation order (batch after
   * batch, each delivery at most once per pass), then releases it; the next tick leases it again
   * if more is due. Stops early when the endpoint is disabled or this worker stops.
   */
  async function serve(leased: WebhookEndpointRecord): Promise<void> {
    let endpoint: WebhookEndpointRecord | null = leased;
    let holding = true;
    let afterSeq: string | undefined;
    try {
      while (endpoint && endpoint.enabled && !stopping) {
        const due = await store.dueDeliveries(endpoint.id, clock.now(), options.batchSize, afterSeq);
        if (due.length === 0) break;
        const { disabled, off, sent } = await sendBatch(endpoint, due);
        if (disabled) {
          holding = false;
          break;
        }
        if (off) break;
        if (sent < due.length) afterSeq = sent > 0 ? due[sent - 1]!.eventSeq : afterSeq;
        else if (due.length < options.batchSize) break;
        else afterSeq = due[due.length - 1]!.eventSeq;
        endpoint = await store.renewLease(owner, endpoint.id, leaseUntil());
        if (!endpoint) holding = false;
      }
    } finally {
      if (holding) await store.releaseLease(owner, leased.id);
    }
  }

  async function dispatchAll(): Promise<{ events: number; deliveries: number }> {
    const total = { events: 0, deliveries: 0 };
    for (;;) {
      const { events, deliveries } = await store.dispatch(clock.now(), options.dispatchBatch);
      total.events += events;
      total.deliveries += deliveries;
      if (events < options.dispatchBatch) return total;
    }
  }

  async function tick(): Promise<WebhookTickResult> {
    const dispatched = await dispatchAll();
    let leased = 0;
    const room = options.maxEndpoints - active.size;
    if (room > 0 && !stopping) {
      const now = clock.now();
      const endpoints = await store.leaseEndpoints(owner, now, new Date(now.getTime() + options.leaseMs), room);
      leased = endpoints.length;
      for (const endpoint of endpoints) {
        if (active.has(endpoint.id)) continue;
        const task = serve(endpoint)
          .catch((error) => onError?.(error, { endpointId: endpoint.id }))
          .finally(() => active.delete(endpoint.id));
        active.set(endpoint.id, task);
      }
    }
    return { dispatched: dispatched.events, deliveriesCreated: dispatched.deliveries, leased, active: active.size };
  }

  return {
    owner,
    options,
    tick,
    /** One tick, then waits until every endpoint task it started has finished (tests, CLI). */
    async runOnce(): Promise<WebhookTickResult> {
      const result = await tick();
      await Promise.all(active.values());
      return result;
    },
    /** Resolves when no endpoint task is running. */
    async idle(): Promise<void> {
      while (active.size > 0) await Promise.all(active.values());
    },
    /** Where errors of background endpoint tasks go (the worker logs them). */
    setErrorHandler(handler: WebhookDeliveryDeps['onError']) {
      onError = handler;
    },
    get activeEndpoints() {
      return active.size;
    },
    /**
     * Sends a `test.ping` to the endpoint now (whether enabled or not) and records it like any
     * attempt, without retries and without touching the endpoint's health.
     */
    async ping(endpoint: WebhookEndpointRecord): Promise<PingResult> {
      const now = clock.now();
      const event = {
        id: newEventId(),
        projectId: endpoint.projectId,
        type: 'test.ping',
        data: { message: 'Test event from the wallet service', endpointUrl: endpoint.url, sentAt: now.toISOString() },
      };
      const delivery = await store.createPing(event, endpoint.id, now);
      const result = await attempt(endpoint, activeSecrets(keks, endpoint, now), delivery);
      await store.recordAttempts(
        endpoint.id,
        [{ deliveryId: delivery.id, ...result, status: result.ok ? 'delivered' : 'failed', nextAttemptAt: null }],
        null,
      );
      return { eventId: event.id, ok: result.ok, statusCode: result.statusCode, latencyMs: result.latencyMs, error: result.error };
    },
    /** Starts no new attempt; waits for those in flight to end and be recorded, and releases the leases. */
    async stop(): Promise<void> {
      stopping = true;
      while (active.size > 0) await Promise.all(active.values());
    },
  };
}

export type WebhookDelivery = ReturnType<typeof createWebhookDelivery>;
