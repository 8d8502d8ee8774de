/**
 * Issue #14: what the service chose for an EVM transfer (gas limit, fees and transaction type) is
 * frozen when the transfer opens its approval case, and the approved resend signs with
 * the same values, so approvers approve the cost they saw. The nonce is not held while the case is
 * open (that would stall every other transfer of the wallet behind it): the nonce is released when
 * the case opens, and the allocator hands the resend that same nonce unless another transaction
 * of the wallet took it meanwhile (then the next free one).
 */
import { ApiError } from '../errors.ts';
import type { PolicyLocation } from '../policies/ports.ts';
import type { Caller } from '../shared/caller.ts';

export interface FrozenEvmPreparation {
  type: 0 | 2;
  gasLimit: string;
  gasPrice?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
}

export interface FrozenPreparationStore {
  /** The preparation of the open (pending or completed) case of this key bound to this request hash. */
  findOpen(at: PolicyLocation, caseKey: string, requestHash: string): Promise<FrozenEvmPreparation | null>;
  /** Records the case's preparation; the first one written stays. */
  freeze(caseId: string, prepared: FrozenEvmPreparation, at: Date): Promise<void>;
}

/** The key approval cases are found by: the Idempotency-Key, else `payload:<request hash>`. */
export const approvalCaseKey = (idempotencyKey: string | undefined, requestHash: string) => idempotencyKey ?? `payload:${requestHash}`;

/** The frozen preparation for this request, when it has an open approval case with one. */
export async function frozenPreparationOf(store: FrozenPreparationStore | undefined, caller: Caller): Promise<FrozenEvmPreparation | null> {
  if (!store || !caller.requestHash) return null;
  return store.findOpen({ projectId: caller.projectId, environment: caller.environment }, approvalCaseKey(caller.idempotencyKey, caller.requestHash), caller.requestHash);
}

/** The review id of a POLICY_REVIEW_REQUIRED refusal, else null. */
export function reviewIdOf(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.code !== 'POLICY_REVIEW_REQUIRED') return null;
  return typeof error.extra.reviewId === 'string' ? error.extra.reviewId : null;
}
