/**
 * Resume of a sponsored transfer paused for a review: `POST .../transactions/{id}/resume {reviewId}`
 * makes the record `accepted` and due, and the worker runs its remaining steps again (policies, gas
 * cap and budget decide again; a later signature may open another review). A record with no pending
 * review is answered unchanged; only sponsored records can be resumed (others are 404).
 */
import { z } from 'zod';
import { conflict, notFound } from '../errors.ts';
import type { TransactionRecord, TransactionStore, WalletRecord } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput, uuidSchema } from '../shared/zod.ts';
import type { SponsoredOperationStore } from './operation-store.ts';

export const resumeBody = z
  .strictObject({ reviewId: z.string().min(1).max(200).describe('The review the record waits for (its `reviewId`)') })
  .meta({ id: 'ResumeTransactionRequest' });

export interface SponsoredResumeDeps {
  records: Pick<TransactionStore, 'findInWallet'>;
  store: Pick<SponsoredOperationStore, 'resume'>;
  loadWallet: (caller: Caller, walletId: string) => Promise<WalletRecord>;
  clock: Clock;
  /** Announces the resumed record to this process's sponsored worker (wakeups.ts). */
  wake?: (recordId: string) => void;
}

export function createSponsoredResume({ records, store, loadWallet, clock, wake }: SponsoredResumeDeps) {
  return async function resume(caller: Caller, walletId: string, transactionId: string, body: unknown): Promise<TransactionRecord> {
    const wallet = await loadWallet(caller, walletId);
    const record = uuidSchema.safeParse(transactionId).success ? await records.findInWallet(caller.projectId, wallet.id, transactionId) : null;
    if (!record || record.executionMode !== 'sponsored') throw notFound('Transaction');
    const { reviewId } = parseInput(resumeBody, body);
    if (record.stage !== 'requires_action') return record;
    if (record.reviewId !== reviewId) throw conflict(`The transaction waits for review ${record.reviewId}, not ${reviewId}`, { reviewId: record.reviewId });
    const resumed = await store.resume(caller.projectId, wallet.id, record.id, reviewId, clock.now());
    if (resumed) wake?.(resumed.id);
    // Null: resumed or resolved meanwhile by another request; answer what is stored now.
    return resumed ?? (await records.findInWallet(caller.projectId, wallet.id, record.id))!;
  };
}
