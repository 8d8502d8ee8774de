import { presignPools } from '@wallet/domain/custody/dkls-pool.ts';
import type { Logger } from '../logger.ts';
import { startPollLoop, type PollLoop } from './poll-loop.ts';

/**
 * Tops up the threshold ECDSA presignature pools of this process's vaults (dkls-pool.ts) for the
 * wallets that signed here recently, at once again while fills remain due, else every `idleMs`.
 * Runs in every process that signs, whatever WORKERS says: a pool is this process's memory (a
 * cache, refilled after a restart), so there is nothing in the database to lease; each pool keeps
 * its own fills bounded (per wallet, in total, in flight), and the rounds run in the presigning
 * thread, off this event loop.
 */
export function startPresignPoolWorker({ idleMs = 250, logger }: { idleMs?: number; logger: Pick<Logger, 'error'> }): PollLoop {
  return startPollLoop({
    name: 'presignature pool',
    idleMs,
    logger,
    async tick() {
      const more = await Promise.all([...presignPools()].map((pool) => pool.topUp()));
      return more.some(Boolean);
    },
  });
}
