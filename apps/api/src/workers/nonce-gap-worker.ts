import type { NonceGapRepair, WorkerLeaseStore } from '@wallet/domain';
import type { Metrics } from '../http/metrics.ts';
import type { Logger } from '../logger.ts';
import { startPollLoop, type PollLoop } from './poll-loop.ts';

/**
 * Looks for stranded wallets every `intervalMs` and sends their gap fillers (transactions/nonce-gaps.ts),
 * in one process at a time: the one holding the `nonce-gaps` lease (three intervals long, so a
 * process that dies is replaced within three intervals). Every stranded wallet is logged as a
 * warning with what is missing, and the run's outcome goes to the metrics.
 */
export function startNonceGapWorker({ repair, leases, owner, intervalMs, metrics, logger }: {
  repair: Pick<NonceGapRepair, 'runOnce'>;
  leases: WorkerLeaseStore;
  /** This process's name in the lease (e.g. host:pid:random). */
  owner: string;
  intervalMs: number;
  metrics: Pick<Metrics, 'nonceGapRun'>;
  logger: Pick<Logger, 'warn' | 'error' | 'debug'>;
}): PollLoop {
  return startPollLoop({
    name: 'nonce-gap repair',
    idleMs: intervalMs,
    logger,
    lease: { store: leases, name: 'nonce-gaps', owner, ms: 3 * intervalMs },
    async tick() {
      const { stranded, filled, errors } = await repair.runOnce();
      for (const s of stranded) {
        const fills = filled.filter((f) => f.walletId === s.walletId && f.chainId === s.chainId);
        logger.warn(
          { walletId: s.walletId, chainId: s.chainId, chainNonce: s.chainNonce, missingNonces: s.missing, waitingTransactions: s.waiting, fillers: fills.map((f) => f.transactionId) },
          'stranded wallet: a nonce below its waiting transactions that nothing holds; gap fillers sent',
        );
      }
      for (const e of errors) logger.error({ ...e }, 'stranded wallet: the gap filler failed');
      metrics.nonceGapRun({ stranded: stranded.length, filled: filled.length, errors: errors.length });
      return false;
    },
  });
}
