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
  /**
   * Runs `task` now, beside the ticks (work announced in this process, e.g. a record that just
   * became due): logged like a tick when it fails, awaited by stop(), ignored once stopping or while
   * MAX_EXTRA_TASKS are in flight (the ticks pick the work up then). The task leases what it works
   * on like a tick does; with a `lease`, it runs only while this loop holds it.
   */
  run(task: () => Promise<unknown>): void;
}

/** Tasks given to `run` in flight at once; past that they are dropped (the polls still find their work). */
export const MAX_EXTRA_TASKS = 16;

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
  const extra = new Set<Promise<void>>();
  let stopping: Promise<void> | undefined;
  return {
    run(task) {
      if (stopped || extra.size >= MAX_EXTRA_TASKS) return;
      const done = (async () => {
        try {
          if (await holdsLease()) await task();
        } catch (error) {
          logger.error({ err: { message: (error as Error)?.message ?? String(error) } }, `${name} failed`);
        }
      })();
      extra.add(done);
      void done.then(() => extra.delete(done));
    },
    stop() {
      stopping ??= (async () => {
        stopped = true;
        for (const s of sleepers) {
          clearTimeout(s.timer);
          s.wake();
        }
        sleepers.clear();
        await Promise.all([running, ...extra]);
        if (lease) await lease.store.release(lease.name, lease.owner).catch(() => undefined);
      })();
      return stopping;
    },
  };
}
