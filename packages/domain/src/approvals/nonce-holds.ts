/**
 * The nonce an approval case holds (`transactions/frozen-preparation.ts`): while the case is open,
 * other broadcasts of its wallet on that chain would either take the held nonce or queue behind it
 * until the case ends, so they are refused with 409 APPROVAL_CASE_IN_PROGRESS (like a yield
 * operation's hold). Holds are checked where they are needed: each is refreshed like any read case
 * (expiry, replaced policy), and one found ended unsigned gives its nonce back to the allocator
 * there and then. A consumed case's nonce belongs to the transaction it signed.
 */
import { ApiError } from '../errors.ts';
import type { Clock } from '../shared/clock.ts';
import type { FrozenPreparationStore, NonceHold } from '../transactions/frozen-preparation.ts';
import type { ApprovalCaseStore } from './ports.ts';
import type { CaseRefresh } from './refresh.ts';

export interface NonceHoldDeps {
  preparations: Pick<FrozenPreparationStore, 'nonceHolds' | 'releaseNonce'>;
  store: Pick<ApprovalCaseStore, 'find'>;
  refresh: CaseRefresh;
  clock: Clock;
}

/** The open case holding a nonce on (wallet, chain), other than `exceptCaseId`; ended holds found on the way are released. */
export function createNonceHoldCheck({ preparations, store, refresh, clock }: NonceHoldDeps) {
  return async function openNonceHold(walletId: string, chainId: number, exceptCaseId?: string): Promise<NonceHold | null> {
    for (const hold of await preparations.nonceHolds(walletId, chainId)) {
      const record = await store.find(hold.caseId);
      const current = record && (await refresh.refresh(record));
      if (current && (current.status === 'pending' || current.status === 'completed')) {
        if (hold.caseId !== exceptCaseId) return hold;
      } else if (!current || current.status !== 'consumed') {
        await preparations.releaseNonce(hold.caseId, clock.now());
      }
    }
    return null;
  };
}

export type OpenNonceHold = ReturnType<typeof createNonceHoldCheck>;

/** 409 while an open approval case holds a nonce of this wallet on this chain. */
export function approvalCaseInProgress(hold: NonceHold): ApiError {
  return new ApiError(
    409,
    'APPROVAL_CASE_IN_PROGRESS',
    `Approval case ${hold.caseId} holds nonce ${hold.nonce} of this wallet on this chain for the transfer it gates; broadcast again once that transfer was resent and signed, or the case has ended (cancel it with POST /v1/permissions-v2/approval-cases/${hold.caseId}/cancel)`,
    { caseId: hold.caseId, nonce: hold.nonce },
  );
}

/** 409 APPROVAL_CASE_IN_PROGRESS when an open case other than `ownCaseId` holds a nonce of the wallet on the chain. */
export async function assertNoOpenNonceHold(openNonceHold: OpenNonceHold | undefined, walletId: string, chainId: number, ownCaseId?: string): Promise<void> {
  const hold = openNonceHold && (await openNonceHold(walletId, chainId, ownCaseId));
  if (hold) throw approvalCaseInProgress(hold);
}
