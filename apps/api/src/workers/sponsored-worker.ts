import type { SponsoredRunner } from '@wallet/domain';
import type { Logger } from '../logger.ts';
import type { PollLoop } from './poll-loop.ts';
import { startRunnerWorker } from './runner-worker.ts';

/** The sponsored-transfer runner on the poll loop: a wallet and chain's operations are signed one at a time. */
export function startSponsoredWorker(options: { runner: Pick<SponsoredRunner, 'runOnce' | 'batchSize'>; idleMs?: number; concurrency?: number; logger: Pick<Logger, 'error'> }): PollLoop {
  return startRunnerWorker({ name: 'sponsored worker run', ...options });
}
