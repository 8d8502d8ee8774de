import type { SponsoredRunner } from '@wallet/domain';
import type { Logger } from '../logger.ts';
import { startPollLoop, type PollLoop } from './poll-loop.ts';

export interface SponsoredWorkerOptions {
  runner: Pick<SponsoredRunner, 'runOnce' | 'batchSize'>;
  /** Pause after a run that did not fill its batch. */
  idleMs?: number;
  /** Runs in flight at once (default 2); the records' leases keep them apart. */
  concurrency?: number;
  logger: Pick<Logger, 'error'>;
}

/**
 * Runs the sponsored-transfer runner on the poll loop: again at once while batches come back full,
 * else after `idleMs`. Any number of processes can run it on one database: records are leased.
 */
export function startSponsoredWorker({ runner, idleMs = 200, concurrency = 2, logger }: SponsoredWorkerOptions): PollLoop {
  return startPollLoop({
    name: 'sponsored worker run',
    idleMs,
    concurrency,
    logger,
    async tick() {
      const { leased } = await runner.runOnce();
      return leased >= runner.batchSize;
    },
  });
}
