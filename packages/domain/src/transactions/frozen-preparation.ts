/**
 * Issue #14: what the service chose for an EVM transfer (nonce, gas limit, fees and transaction
 * type) is frozen when the transfer opens its approval case, and the approved resend signs with
 * the same values, so approvers approve exactly what will be signed. The nonce stays allocated to
 * the case while it is open (pending or completed): other broadcasts of the wallet on that chain
 * answer 409 APPROVAL_CASE_IN_PROGRESS meanwhile (`approvals/nonce-holds.ts`); a case that ends
 * unsigned (rejected, expired, invalidated, cancelled) gives the nonce back to the allocator.
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

/** A case's frozen preparation, with the nonce it holds (null for cases frozen without one). */
export interface FrozenPreparation {
  caseId: string;
  prepared: FrozenEvmPreparation;
  nonce: number | null;
}

/** A transfer's nonce reservation, handed over to the case it opens. */
export interface NonceHandOver {
  walletId: string;
  chainId: number;
  nonce: number;
  reservationId: string;
}

export interface NonceHold {
  caseId: string;
  nonce: number;
}

export interface FrozenPreparationStore {
  /**
   * The preparation of the open (pending or completed) case of this key bound to this request hash;
   * with `includeConsumed`, also a consumed one (a rerun of the request under its Idempotency-Key
   * takes its case over and must sign the same nonce and fees).
   */
  findOpen(at: PolicyLocation, caseKey: string, requestHash: string, includeConsumed?: boolean): Promise<FrozenPreparation | null>;
  /**
   * Records the case's preparation; the first one written stays (false when one was there). With
   * `hold`, the case takes the nonce from the transfer's reservation in the same write, only while
   * that reservation still holds it (else the case holds no nonce).
   */
  freeze(caseId: string, prepared: FrozenEvmPreparation, at: Date, hold: NonceHandOver | null): Promise<boolean>;
  /** Nonces held on (wallet, chain) by cases not consumed and not yet released, whatever their stored status. */
  nonceHolds(walletId: string, chainId: number): Promise<NonceHold[]>;
  /** Gives an ended case's nonce back to the allocator (`nonce_reservations`), once. */
  releaseNonce(caseId: string, at: Date): Promise<void>;
}

/** The key approval cases are found by: the Idempotency-Key, else `payload:<request hash>`. */
export const approvalCaseKey = (idempotencyKey: string | undefined, requestHash: string) => idempotencyKey ?? `payload:${requestHash}`;

/** The frozen preparation for this request, when it has an open approval case with one. */
export async function frozenPreparationOf(store: FrozenPreparationStore | undefined, caller: Caller): Promise<FrozenPreparation | null> {
  if (!store || !caller.requestHash) return null;
  // Without a key a consumed case is done: the same payload opens a new one.
  return store.findOpen({ projectId: caller.projectId, environment: caller.environment }, approvalCaseKey(caller.idempotencyKey, caller.requestHash), caller.requestHash, caller.idempotencyKey !== undefined);
}

/** The review id of a POLICY_REVIEW_REQUIRED refusal, else null. */
export function reviewIdOf(error: unknown): string | null {
  if (!(error instanceof ApiError) || error.code !== 'POLICY_REVIEW_REQUIRED') return null;
  return typeof error.extra.reviewId === 'string' ? error.extra.reviewId : null;
}
