import type { MonitorRunResult } from '@wallet/domain';
import type { Logger } from '../logger.ts';
import { startPollLoop } from './poll-loop.ts';

export interface MonitorWorkerOptions {
  monitor: { runOnce(): Promise<MonitorRunResult>; batchSize: number };
  /** Pause after a run that did not fill its batch (nothing more is due right now). */
  idleMs?: number;
  /** Largest pause after consecutive failed runs (see poll-loop.ts). */
  maxErrorBackoffMs?: number;
  /**
   * Runs in flight at once (default 2): while one run saves its outcomes, the next one leases and
   * reads the chain. The monitor's leases keep concurrent runs on different records.
   */
  concurrency?: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
}

export interface MonitorWorker {
  /** Stops after the runs in progress (if any) have finished; idempotent. */
  stop(): Promise<void>;
}

/**
 * Runs the transaction monitor on the poll loop: again at once while batches come back full (a
 * backlog), else after `idleMs`. Several processes can run a worker on one database: the monitor's
 * leases keep them from checking the same record at once.
 */
export function startMonitorWorker({ monitor, idleMs = 250, maxErrorBackoffMs = 30_000, concurrency = 2, logger }: MonitorWorkerOptions): MonitorWorker {
  return startPollLoop({
    name: 'transaction monitor run',
    idleMs,
    maxErrorBackoffMs,
    concurrency,
    logger,
    async tick() {
      const result = await monitor.runOnce();
      if (result.resolved > 0) logger.debug({ ...result }, 'transaction monitor run');
      return result.leased >= monitor.batchSize;
    },
  });
}
