import type { Pruner, WorkerLeaseStore } from '@wallet/domain';
import type { Logger } from '../logger.ts';
import { startPollLoop, type PollLoop } from './poll-loop.ts';

/**
 * Deletes expired idempotency records, old rate-limit counters, dead policy spend meters and
 * reservations and request log entries past their retention every `intervalMs` (at once again while batches come back full), in one process at a time: the one holding the `prune` lease (three
 * intervals long, so a process that dies is replaced within three intervals).
 */
export function startPruneWorker({ pruner, leases, owner, intervalMs = 60_000, logger }: {
  pruner: Pruner;
  leases: WorkerLeaseStore;
  /** This process's name in the lease (e.g. host:pid:random). */
  owner: string;
  intervalMs?: number;
  logger: Pick<Logger, 'error' | 'debug'>;
}): PollLoop {
  return startPollLoop({
    name: 'pruning',
    idleMs: intervalMs,
    logger,
    lease: { store: leases, name: 'prune', owner, ms: 3 * intervalMs },
    async tick() {
      const result = await pruner.runOnce();
      if (result.idempotency + result.rateLimits + result.spendMeters + result.spendReservations + result.requestLog > 0) logger.debug({ ...result }, 'pruned expired rows');
      return result.more;
    },
  });
}
