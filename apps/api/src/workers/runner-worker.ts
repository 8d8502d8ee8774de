import type { Logger } from '../logger.ts';
import { startPollLoop, type PollLoop } from './poll-loop.ts';

/** A runner that leases what is due in the database and advances it: the yield and sponsored workers. */
export interface LeasingRunner {
  runOnce(): Promise<{ leased: number }>;
  batchSize: number;
}

export interface RunnerWorkerOptions {
  /** Names the loop in its log lines. */
  name: string;
  runner: LeasingRunner;
  /** Pause after a run that did not fill its batch. */
  idleMs?: number;
  /** Runs in flight at once; the runner's leases keep them on different records. */
  concurrency?: number;
  logger: Pick<Logger, 'error'>;
}

/**
 * Runs a leasing runner on the poll loop: again at once while batches come back full, else after
 * `idleMs`. Any number of processes can run it on one database: what it works on is leased.
 */
export function startRunnerWorker({ name, runner, idleMs = 200, concurrency = 2, logger }: RunnerWorkerOptions): PollLoop {
  return startPollLoop({
    name,
    idleMs,
    concurrency,
    logger,
    async tick() {
      const { leased } = await runner.runOnce();
      return leased >= runner.batchSize;
    },
  });
}
