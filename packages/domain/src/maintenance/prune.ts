import type { IdempotencyStore, RateLimitStore } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';

/** Rate-limit windows are one minute; a counter is kept one more window, then deleted. */
const RATE_LIMIT_KEEP_MS = 2 * 60_000;

export interface PruneResult {
  idempotency: number;
  rateLimits: number;
  /** A batch came back full: more rows are due, run again at once. */
  more: boolean;
}

/**
 * Deletes expired idempotency records (past their 24 h) and old rate-limit counters in batches, so
 * the tables stay small without any request paying for it. Safe in several processes at once: each
 * delete only removes rows that are already dead.
 */
export function createPruner(deps: { idempotency: Pick<IdempotencyStore, 'pruneExpired'>; rateLimits: Pick<RateLimitStore, 'prune'>; clock: Clock; batchSize?: number }) {
  const batchSize = deps.batchSize ?? 1000;
  return {
    async runOnce(): Promise<PruneResult> {
      const now = deps.clock.now();
      const idempotency = await deps.idempotency.pruneExpired(now, batchSize);
      const rateLimits = await deps.rateLimits.prune(new Date(now.getTime() - RATE_LIMIT_KEEP_MS), batchSize);
      return { idempotency, rateLimits, more: idempotency >= batchSize || rateLimits >= batchSize };
    },
  };
}

export type Pruner = ReturnType<typeof createPruner>;
