import { exponentialBackoffMs, type WorkerLeaseStore } from '@wallet/domain';
import type { Logger } from '../logger.ts';

export interface PollLoopOptions {
  /** Names the loop in its log lines. */
  name: string;
  /**
   * One unit of work. Resolves true when more is due right now (a full batch): the next tick then
   * runs at once instead of after `idleMs`. Whatever it holds while running must be leased in the
   * database, so a process killed mid-tick leaves nothing held past its lease and a restarted loop
   * (in this or any process) picks the work up again.
   */
  tick: () => Promise<boolean>;
  /** Pause after a tick that found nothing more to do. */
  idleMs: number;
  /** Largest pause after consecutive failed ticks (the pause doubles from 2 × idleMs). */
  maxErrorBackoffMs?: number;
  /** Ticks in flight at once (each loop starts a fraction of idleMs after the previous one). */
  concurrency?: number;
  logger: Pick<Logger, 'error'>;
  /**
   * For a job one process at a time should run: each tick first takes or extends the named lease
   * in the database for `ms` (longer than idleMs, or processes take turns), and the loop only
   * ticks while it holds it. A holder that stops releases it; one that dies loses it after `ms`.
   */
  lease?: { store: WorkerLeaseStore; name: string; owner: string; ms: number };
}

export interface PollLoop {
  /** Starts no new tick, cuts the current pause short, and resolves once the ticks in flight are done; idempotent. */
  stop(): Promise<void>;
}

/**
 * The one background poll loop of the workers: tick, pause, again. A failed tick (e.g. the database
 * briefly unreachable) is logged and retried with exponential backoff; the loop never dies of it.
 */
export function startPollLoop({ name, tick, idleMs, maxErrorBackoffMs = 30_000, concurrency = 1, logger, lease }: PollLoopOptions): PollLoop {
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

  async function holdsLease(): Promise<boolean> {
    if (!lease) return true;
    const now = Date.now();
    return lease.store.acquire(lease.name, lease.owner, new Date(now), new Date(now + lease.ms));
  }

  async function loop(index: number) {
    let failures = 0;
    // Spread the loops' first ticks so they do not lease in lockstep.
    if (index > 0) await pause((idleMs * index) / concurrency);
    while (!stopped) {
      let delay = idleMs;
      try {
        if (await holdsLease()) {
          if (await tick()) delay = 0;
        }
        failures = 0;
      } catch (error) {
        failures++;
        delay = exponentialBackoffMs(failures + 1, idleMs, maxErrorBackoffMs);
        logger.error({ err: { message: (error as Error)?.message ?? String(error) }, failures, retryInMs: delay }, `${name} failed`);
      }
      if (stopped) break;
      // setImmediate, not a bare loop: I/O callbacks (and stop) get their turn between ticks.
      if (delay === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      else await pause(delay);
    }
  }

  const running = Promise.all(Array.from({ length: Math.max(1, concurrency) }, (_, i) => loop(i)));
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        stopped = true;
        for (const s of sleepers) {
          clearTimeout(s.timer);
          s.wake();
        }
        sleepers.clear();
        await running;
        if (lease) await lease.store.release(lease.name, lease.owner).catch(() => undefined);
      })();
      return stopping;
    },
  };
}
