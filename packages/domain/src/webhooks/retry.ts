import { exponentialBackoffMs } from '../shared/backoff.ts';

/**
 * Retry schedule of a webhook delivery. Attempt 1 goes out as soon as the event is dispatched;
 * after the n-th failed attempt the next one waits `min(baseMs * 2^(n-1), maxDelayMs)`, scaled by a
 * random factor in [1 - jitter, 1 + jitter] so receivers recovering from an outage are not hit by
 * every retry at once. With the defaults (30 s base, 6 h cap, ±20 %, 20 attempts):
 *
 *   30 s, 1 min, 2 min, 4 min, 8 min, 16 min, 32 min, 64 min, ~2.1 h, ~4.3 h, then 6 h nine times
 *
 * i.e. about 62.5 hours (at least 50 hours with the jitter) between the first and the 20th
 * attempt; after the 20th failed attempt the delivery is `failed` and only a manual resend sends it
 * again. An endpoint whose attempts have all failed for 5 days is disabled (see delivery.ts).
 */
export interface RetrySchedule {
  baseMs: number;
  maxDelayMs: number;
  /** Attempts per round (the first one included); a manual resend starts a new round. */
  maxAttempts: number;
  /** Relative jitter, 0 to 1. */
  jitter: number;
}

export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = {
  baseMs: 30_000,
  maxDelayMs: 6 * 60 * 60_000,
  maxAttempts: 20,
  jitter: 0.2,
};

/** The wait after the `failedAttempts`-th consecutive failure (1-based). */
export function retryDelayMs(failedAttempts: number, schedule: RetrySchedule = DEFAULT_RETRY_SCHEDULE, random: () => number = Math.random): number {
  const nominal = exponentialBackoffMs(failedAttempts, schedule.baseMs, schedule.maxDelayMs);
  const factor = 1 - schedule.jitter + 2 * schedule.jitter * random();
  return Math.max(1, Math.round(nominal * factor));
}

/** The nominal (jitter-free) time from the first attempt to the last one of a round. */
export function nominalRetrySpanMs(schedule: RetrySchedule = DEFAULT_RETRY_SCHEDULE): number {
  let total = 0;
  for (let n = 1; n < schedule.maxAttempts; n++) total += exponentialBackoffMs(n, schedule.baseMs, schedule.maxDelayMs);
  return total;
}
