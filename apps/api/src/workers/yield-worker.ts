import type { YieldRunner } from '@wallet/domain';
import type { Logger } from '../logger.ts';
import { startPollLoop, type PollLoop } from './poll-loop.ts';

export interface YieldWorkerOptions {
  runner: Pick<YieldRunner, 'runOnce' | 'batchSize'>;
  /** Pause after a run that did not fill its batch. */
  idleMs?: number;
  /** Runs in flight at once (default 3); the runner's leases keep them on different operations. */
  concurrency?: number;
  logger: Pick<Logger, 'error'>;
}

/**
 * Runs the yield runner on the poll loop: again at once while batches come back full, else after
 * `idleMs`. Any number of processes can run it on one database: operations are leased, and a
 * wallet and chain's operations run one at a time, oldest first.
 */
export function startYieldWorker({ runner, idleMs = 200, concurrency = 3, logger }: YieldWorkerOptions): PollLoop {
  return startPollLoop({
    name: 'yield worker run',
    idleMs,
    concurrency,
    logger,
    async tick() {
      const { leased } = await runner.runOnce();
      return leased >= runner.batchSize;
    },
  });
}
