import type { IdempotencyStore, RateLimitStore } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';
import type { RequestLogStore } from '../request-log/ports.ts';

/** Rate-limit windows are one minute; a counter is kept one more window, then deleted. */
const RATE_LIMIT_KEEP_MS = 2 * 60_000;
/** A spend meter is kept a day after its window ends (late commits and usage reads still find it). */
export const SPEND_METER_KEEP_MS = 24 * 3_600_000;
/** A settled (spent or released) spend reservation is kept 7 days, for investigation. */
export const SPEND_RESERVATION_KEEP_MS = 7 * 24 * 3_600_000;

/** Deletes dead policy spend rows (implemented with the meter store in @wallet/db). */
export interface SpendMeterPruning {
  /** Meters whose window ended before `windowEndedBefore`; at most `limit`; returns how many. */
  pruneMeters(windowEndedBefore: Date, limit: number): Promise<number>;
  /** Spent or released reservations settled before `settledBefore`; at most `limit`. */
  pruneReservations(settledBefore: Date, limit: number): Promise<number>;
}

export interface PruneResult {
  idempotency: number;
  rateLimits: number;
  spendMeters: number;
  spendReservations: number;
  requestLog: number;
  /** A batch came back full: more rows are due, run again at once. */
  more: boolean;
}

/**
 * Deletes expired idempotency records (past their 24 h), old rate-limit counters, spend meters a day
 * after their window ended, settled spend reservations after 7 days and request log entries after
 * their retention, in batches, so the tables
 * stay small without any request paying for it. Safe in several processes at once: each delete only
 * removes rows that are already dead.
 */
export function createPruner(deps: {
  idempotency: Pick<IdempotencyStore, 'pruneExpired'>;
  rateLimits: Pick<RateLimitStore, 'prune'>;
  spendMeters?: SpendMeterPruning;
  /** Request log entries older than `retentionMs` (REQUEST_LOG_RETENTION_DAYS). */
  requestLog?: { store: Pick<RequestLogStore, 'prune'>; retentionMs: number };
  clock: Clock;
  batchSize?: number;
}) {
  const batchSize = deps.batchSize ?? 1000;
  return {
    async runOnce(): Promise<PruneResult> {
      const now = deps.clock.now();
      const ago = (ms: number) => new Date(now.getTime() - ms);
      const idempotency = await deps.idempotency.pruneExpired(now, batchSize);
      const rateLimits = await deps.rateLimits.prune(ago(RATE_LIMIT_KEEP_MS), batchSize);
      const spendMeters = deps.spendMeters ? await deps.spendMeters.pruneMeters(ago(SPEND_METER_KEEP_MS), batchSize) : 0;
      const spendReservations = deps.spendMeters ? await deps.spendMeters.pruneReservations(ago(SPEND_RESERVATION_KEEP_MS), batchSize) : 0;
      const requestLog = deps.requestLog ? await deps.requestLog.store.prune(ago(deps.requestLog.retentionMs), batchSize) : 0;
      const more = [idempotency, rateLimits, spendMeters, spendReservations, requestLog].some((n) => n >= batchSize);
      return { idempotency, rateLimits, spendMeters, spendReservations, requestLog, more };
    },
  };
}

export type Pruner = ReturnType<typeof createPruner>;
