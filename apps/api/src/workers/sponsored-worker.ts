import type { SponsoredRunner } from '@wallet/domain';
import type { Logger } from '../logger.ts';
import type { PollLoop } from './poll-loop.ts';
import { startRunnerWorker } from './runner-worker.ts';

/**
 * The sponsored-transfer runner on the poll loop: a wallet and chain's operations are signed one at a
 * time. A record admitted or resumed in this process is run at once (`runner.onDue`), under the same
 * lease as a poll's; the polls find every other due record (another process's, a missed wake-up).
 */
export function startSponsoredWorker(options: { runner: Pick<SponsoredRunner, 'runOnce' | 'batchSize' | 'onDue'>; idleMs?: number; concurrency?: number; logger: Pick<Logger, 'error'> }): PollLoop {
  const { runner } = options;
  const loop = startRunnerWorker({ name: 'sponsored worker run', ...options });
  const unsubscribe = runner.onDue((recordId) => loop.run(() => runner.runOnce([recordId])));
  return {
    run: loop.run,
    stop() {
      unsubscribe();
      return loop.stop();
    },
  };
}
