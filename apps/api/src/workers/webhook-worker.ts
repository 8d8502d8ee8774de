import type { WebhookDelivery } from '@wallet/domain';
import type { Logger } from '../logger.ts';

export interface WebhookWorkerOptions {
  delivery: Pick<WebhookDelivery, 'tick' | 'stop' | 'options' | 'setErrorHandler'>;
  /** Pause between ticks when there is no backlog (WEBHOOK_POLL_MS, default 100 ms). */
  pollMs?: number;
  /** Largest pause after consecutive failed ticks (the pause doubles from pollMs). */
  maxErrorBackoffMs?: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
}

export interface WebhookWorker {
  /** Starts no new attempt, waits for those in flight to be recorded, releases the leases; idempotent. */
  stop(): Promise<void>;
}

/**
 * Runs webhook delivery in a loop: each tick dispatches new outbox events and leases endpoints with
 * due deliveries, which are then served in the background (see packages/domain/src/webhooks/delivery.ts).
 * Ticks follow each other at once while dispatch batches come back full, else every `pollMs`. A
 * failed tick (e.g. the database briefly unreachable) is logged and retried with a growing pause.
 * Several processes can run a worker on one database: leases keep them apart.
 */
export function startWebhookWorker({ delivery, pollMs = 100, maxErrorBackoffMs = 30_000, logger }: WebhookWorkerOptions): WebhookWorker {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let wake: (() => void) | undefined;
  let failures = 0;
  delivery.setErrorHandler((error, context) =>
    logger.error({ err: { message: (error as Error)?.message ?? String(error) }, ...context }, 'webhook endpoint delivery failed'),
  );

  const pause = (ms: number) =>
    new Promise<void>((resolve) => {
      wake = resolve;
      timer = setTimeout(resolve, ms);
    });

  async function loop() {
    while (!stopped) {
      let delay = pollMs;
      try {
        const result = await delivery.tick();
        failures = 0;
        if (result.dispatched > 0 || result.leased > 0) logger.debug({ ...result }, 'webhook tick');
        if (result.dispatched >= delivery.options.dispatchBatch) delay = 0;
      } catch (error) {
        failures++;
        delay = Math.min(maxErrorBackoffMs, pollMs * 2 ** Math.min(failures, 20));
        logger.error({ err: { message: (error as Error)?.message ?? String(error) }, failures, retryInMs: delay }, 'webhook tick failed');
      }
      if (stopped) break;
      if (delay === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      else await pause(delay);
    }
  }

  const running = loop();
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= (async () => {
        stopped = true;
        if (timer) clearTimeout(timer);
        wake?.();
        await running;
        await delivery.stop();
      })();
      return stopping;
    },
  };
}
