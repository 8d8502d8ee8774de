/**
 * The stages of a sponsored transfer and the rules that move a submitted one from chain evidence
 * (the worker schedules; these rules decide). A sponsored record is one ERC-4337 user operation:
 *
 * - `accepted`: the record exists, nothing is signed (also after a resume);
 * - `requires_action`: a policy sent it to a partner review (`reviewId`); a resume continues it;
 * - `signed`: the signed operation and its hash are stored, no submission was attempted;
 * - `submitted`: a submission was accepted (the relayer's transaction is in the node, or the bundler took it);
 * - `submission_unknown`: a submission may have happened and no evidence exists yet;
 * - `included`: its UserOperationEvent is on chain (until final, and on the resolved record);
 * - `delivery_unverified`: included with success, but the token's Transfer log is not proven.
 *
 * Only the stored bytes are ever resubmitted; a new operation is only a replacement with the same
 * EntryPoint nonce (replace-operation.ts), so at most one of them can ever be included.
 */
import type { TransactionStatus } from '../transactions/records.ts';

export const SPONSORED_STAGES = ['accepted', 'requires_action', 'signed', 'submitted', 'submission_unknown', 'included', 'delivery_unverified'] as const;
export type SponsoredStage = (typeof SPONSORED_STAGES)[number];

/** The record status each unresolved stage shows (the spec: `included` is `submitted`, `delivery_unverified` is `pending`). */
export const STATUS_OF_STAGE: Record<SponsoredStage, TransactionStatus> = {
  accepted: 'pending',
  requires_action: 'pending',
  signed: 'pending',
  submitted: 'submitted',
  submission_unknown: 'submitted',
  included: 'submitted',
  delivery_unverified: 'pending',
};

/** What the chain shows of an operation, gathered by the worker (log search by hash, receipt, EntryPoint nonce). */
export type OperationEvidence =
  | {
      kind: 'included';
      /** The operation whose event it is (a replacement has its own hash; only one can be included). */
      userOperationHash: string;
      success: boolean;
      /** Wei, decimal string, from the UserOperationEvent. */
      actualGasCost: string;
      transactionHash: string;
      blockNumber: bigint;
      blockHash: string;
      /** The token Transfer(from = wallet, to = recipient, value) log is in this operation's part of the receipt. */
      transferProven: boolean;
      /** The block is at or below the chain's finalized head and still canonical. */
      final: boolean;
      /** Blocks the settled head (min(finalized, latest - 1)) is still behind the event's block (0 once reached). */
      blocksToFinal?: bigint;
    }
  | {
      kind: 'absent';
      /** `EntryPoint.getNonce(sender, 0)` now. */
      entryPointNonce: bigint;
      /** Whether the transaction that carried the last submission is still known to the node (pending or mined). */
      submissionKnown: boolean;
    };

export type StageDecision =
  /** Nothing to do yet; keep (or set) this stage and look again later. */
  | { kind: 'wait'; stage: SponsoredStage }
  /** Send the stored signed operation again, byte for byte. */
  | { kind: 'resubmit' }
  | { kind: 'confirm'; userOperationHash: string; actualGasCost: string; transactionHash: string; blockNumber: bigint; blockHash: string }
  | { kind: 'revert'; userOperationHash: string; actualGasCost: string; transactionHash: string; blockNumber: bigint; blockHash: string }
  /** The operation can never execute: its EntryPoint nonce was used without its event. */
  | { kind: 'fail'; code: 'NONCE_CONSUMED'; message: string };

/**
 * The next step of an operation that was signed (and perhaps submitted), from the evidence:
 * inclusion resolves it once final (`confirmed` only when the delivery is proven too); no event
 * while the operation's nonce is still open means it never ran, so the stored bytes may go again
 * once the last submission is gone from the node; a nonce used without this operation's event
 * means it never can.
 */
export function decideFromEvidence(operationNonce: bigint, evidence: OperationEvidence): StageDecision {
  if (evidence.kind === 'included') {
    const outcome = { userOperationHash: evidence.userOperationHash, actualGasCost: evidence.actualGasCost, transactionHash: evidence.transactionHash, blockNumber: evidence.blockNumber, blockHash: evidence.blockHash };
    if (!evidence.success) return evidence.final ? { kind: 'revert', ...outcome } : { kind: 'wait', stage: 'included' };
    if (!evidence.transferProven) return { kind: 'wait', stage: 'delivery_unverified' };
    return evidence.final ? { kind: 'confirm', ...outcome } : { kind: 'wait', stage: 'included' };
  }
  if (evidence.entryPointNonce > operationNonce) {
    return {
      kind: 'fail',
      code: 'NONCE_CONSUMED',
      message: `EntryPoint nonce ${operationNonce} of this wallet was used by another operation; this one can no longer execute`,
    };
  }
  return evidence.submissionKnown ? { kind: 'wait', stage: 'submitted' } : { kind: 'resubmit' };
}
