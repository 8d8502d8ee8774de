import type { Pruner } from '@wallet/domain';
import type { Logger } from '../logger.ts';
import { startPollLoop, type PollLoop } from './poll-loop.ts';

/**
 * Deletes expired idempotency records and old rate-limit counters every `intervalMs` (at once again
 * while batches come back full). Several processes may run it on one database: deleting dead rows
 * twice is harmless.
 */
export function startPruneWorker({ pruner, intervalMs = 60_000, logger }: { pruner: Pruner; intervalMs?: number; logger: Pick<Logger, 'error' | 'debug'> }): PollLoop {
  return startPollLoop({
    name: 'pruning',
    idleMs: intervalMs,
    logger,
    async tick() {
      const result = await pruner.runOnce();
      if (result.idempotency > 0 || result.rateLimits > 0) logger.debug({ ...result }, 'pruned expired rows');
      return result.more;
    },
  });
}
