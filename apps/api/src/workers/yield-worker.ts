import type { YieldRunner } from '@wallet/domain';
import type { Logger } from '../logger.ts';
import type { PollLoop } from './poll-loop.ts';
import { startRunnerWorker } from './runner-worker.ts';

/**
 * The yield runner on the poll loop (3 runs in flight by default): a wallet and chain's operations
 * run one at a time, oldest first.
 */
export function startYieldWorker(options: { runner: Pick<YieldRunner, 'runOnce' | 'batchSize'>; idleMs?: number; concurrency?: number; logger: Pick<Logger, 'error'> }): PollLoop {
  return startRunnerWorker({ name: 'yield worker run', concurrency: 3, ...options });
}
