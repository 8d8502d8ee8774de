import type { MonitorRunResult } from '@wallet/domain';
import type { Logger } from '../logger.ts';

export interface MonitorWorkerOptions {
  monitor: { runOnce(): Promise<MonitorRunResult>; batchSize: number };
  /** Pause after a run that did not fill its batch (nothing more is due right now). */
  idleMs?: number;
  /** Largest pause after consecutive failed runs (the pause doubles from idleMs). */
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
 * Runs the transaction monitor in a loop: again at once while batches come back full (a backlog),
 * else after `idleMs`. A failed run (e.g. the database is briefly unreachable) is logged and
 * retried with a growing pause; the loop never dies of it. Several processes can run a worker on
 * one database: the monitor's leases keep them from checking the same record at once.
 */
export function startMonitorWorker({ monitor, idleMs = 250, maxErrorBackoffMs = 30_000, concurrency = 2, logger }: MonitorWorkerOptions): MonitorWorker {
  let stopped = false;
  const sleepers = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      const sleeper = {
        timer: setTimeout(() => {
          sleepers.delete(sleeper);
          resolve();
        }, ms),
        wake: resolve,
      };
      sleepers.add(sleeper);
    });

  async function loop(index: number) {
    let failures = 0;
    // Spread the loops' first runs so they do not lease in lockstep.
    if (index > 0) await pause((idleMs * index) / concurrency);
    while (!stopped) {
      let delay = idleMs;
      try {
        const result = await monitor.runOnce();
        failures = 0;
        if (result.resolved > 0) logger.debug({ ...result }, 'transaction monitor run');
        if (result.leased >= monitor.batchSize) delay = 0;
      } catch (error) {
        failures++;
        delay = Math.min(maxErrorBackoffMs, idleMs * 2 ** Math.min(failures, 20));
        logger.error({ err: { message: (error as Error)?.message ?? String(error) }, failures, retryInMs: delay }, 'transaction monitor run failed');
      }
      if (stopped) break;
      if (delay === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      else await pause(delay);
    }
  }

  const running = Promise.all(Array.from({ length: Math.max(1, concurrency) }, (_, i) => loop(i)));
  return {
    async stop() {
      stopped = true;
      for (const s of sleepers) {
        clearTimeout(s.timer);
        s.wake();
      }
      sleepers.clear();
      await running;
    },
  };
}
