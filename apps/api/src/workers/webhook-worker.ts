import type { WebhookDelivery } from '@wallet/domain';
import type { Logger } from '../logger.ts';
import { startPollLoop } from './poll-loop.ts';

export interface WebhookWorkerOptions {
  delivery: Pick<WebhookDelivery, 'tick' | 'stop' | 'options' | 'setErrorHandler'>;
  /** Pause between ticks when there is no backlog (WEBHOOK_POLL_MS, default 100 ms). */
  pollMs?: number;
  /** Largest pause after consecutive failed ticks (see poll-loop.ts). */
  maxErrorBackoffMs?: number;
  logger: Pick<Logger, 'info' | 'warn' | 'error' | 'debug'>;
}

export interface WebhookWorker {
  /** Starts no new attempt, waits for those in flight to be recorded, releases the leases; idempotent. */
  stop(): Promise<void>;
}

/**
 * Runs webhook delivery on the poll loop: each tick dispatches new outbox events and leases endpoints
 * with due deliveries, which are then served in the background (see
 * packages/domain/src/webhooks/delivery.ts). Ticks follow each other at once while dispatch batches
 * come back full, else every `pollMs`. Several processes can run a worker on one database: leases
 * keep them apart.
 */
export function startWebhookWorker({ delivery, pollMs = 100, maxErrorBackoffMs = 30_000, logger }: WebhookWorkerOptions): WebhookWorker {
  delivery.setErrorHandler((error, context) =>
    logger.error({ err: { message: (error as Error)?.message ?? String(error) }, ...context }, 'webhook endpoint delivery failed'),
  );
  const loop = startPollLoop({
    name: 'webhook tick',
    idleMs: pollMs,
    maxErrorBackoffMs,
    logger,
    async tick() {
      const result = await delivery.tick();
      if (result.dispatched > 0 || result.leased > 0) logger.debug({ ...result }, 'webhook tick');
      return result.dispatched >= delivery.options.dispatchBatch;
    },
  });
  let stopping: Promise<void> | undefined;
  return {
    stop() {
      stopping ??= loop.stop().then(() => delivery.stop());
      return stopping;
    },
  };
}
