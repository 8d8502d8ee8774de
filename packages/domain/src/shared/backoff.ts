/**
 * The one exponential backoff: `baseMs * 2^(attempt-1)` for the attempt-th consecutive failure
 * (1-based), capped at `maxMs`. The exponent is bounded so huge attempt counts never overflow.
 */
export function exponentialBackoffMs(attempt: number, baseMs: number, maxMs: number): number {
  return Math.min(maxMs, baseMs * 2 ** Math.min(Math.max(attempt - 1, 0), 40));
}
