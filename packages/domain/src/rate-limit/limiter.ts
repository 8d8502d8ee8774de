import { ApiError } from '../errors.ts';
import type { RateLimitStore } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';

const WINDOW_MS = 60_000;

export interface RateLimitResult {
  limit: number;
  remaining: number;
  resetSeconds: number;
}

/**
 * Fixed one-minute windows per API key, counted in a shared store (database or Redis) so every
 * API process enforces the same budget; the pruning worker deletes old counters. Throws 429
 * RATE_LIMITED with `retryAfter` seconds.
 */
export function createRateLimiter(store: RateLimitStore, clock: Clock) {
  return async function consume(apiKeyId: string, perMinute: number): Promise<RateLimitResult | null> {
    if (perMinute === 0) return null;
    const now = clock.now().getTime();
    const windowStart = now - (now % WINDOW_MS);
    const resetSeconds = Math.max(1, Math.ceil((windowStart + WINDOW_MS - now) / 1000));
    const count = await store.hit(apiKeyId, new Date(windowStart));
    if (count > perMinute) {
      throw new ApiError(429, 'RATE_LIMITED', `Rate limit of ${perMinute} requests per minute exceeded`, {
        retryAfter: resetSeconds,
      });
    }
    return { limit: perMinute, remaining: perMinute - count, resetSeconds };
  };
}

export type RateLimiter = ReturnType<typeof createRateLimiter>;
