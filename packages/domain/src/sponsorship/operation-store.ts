import type { NewEvent, SignatureWrite } from '../ports.ts';
import type { TransactionRecord } from '../transactions/records.ts';

/** What a step of the sponsored worker writes on its record (fields left out keep their value). */
export type SponsoredPatch = Partial<
  Pick<
    TransactionRecord,
    | 'status'
    | 'stage'
    | 'reviewId'
    | 'userOperationHash'
    | 'userOperation'
    | 'actualGasCost'
    | 'hash'
    | 'signedTransaction'
    | 'blockNumber'
    | 'blockHash'
    | 'failureStage'
    | 'failureCode'
    | 'failureMessage'
    | 'monitoring'
    | 'submittedAt'
    | 'resolvedAt'
    | 'evidenceAt'
    | 'nextCheckAt'
    | 'consecutiveErrors'
  >
>;

/** A relayer nonce reservation the saved step takes over (as a record takes its wallet's nonce). */
export interface RelayerNonceTaken {
  /** The relayer's allocator id (`relayerAllocatorId`). */
  allocatorId: string;
  chainId: string;
  nonce: number;
  reservationId: string;
}

export interface SponsoredSaveOptions {
  nonce?: RelayerNonceTaken;
  keepLease?: boolean;
  /** Saves only while the record is still at this stage (a step that ran past its lease and was taken over by another run of the same owner saves nothing). */
  onlyIfStage?: string;
  /** The signatures of what the patch stores (audit rows, events, spend), written in the same statement or not at all. */
  signature?: SignatureWrite | SignatureWrite[];
}

/** The sponsored records' own lease (the legacy monitor never leases them). */
export interface SponsoredOperationStore {
  /** Leases up to `limit` sponsored records due at `now` (nextCheckAt ≤ now, no live lease), oldest due first; with `only`, among those ids alone. */
  leaseDue(owner: string, now: Date, leaseUntil: Date, limit: number, only?: readonly string[]): Promise<TransactionRecord[]>;
  /**
   * Saves the patch and writes the events in one statement while `owner` holds the lease, and
   * releases it (or keeps it with `keepLease`: the worker goes on with the next step). With `nonce`,
   * the relayer's reservation is taken in the same statement; nothing is saved when it no longer holds.
   * With `signature`, that signature is written in the same statement. Null when nothing was saved.
   */
  save(owner: string, id: string, patch: SponsoredPatch, events: NewEvent[], options?: SponsoredSaveOptions): Promise<TransactionRecord | null>;
  /**
   * A resume: the record at stage `requires_action` with this review becomes `accepted` and due at
   * `now` (its lease cleared); null when it is not (then nothing changed).
   */
  resume(projectId: string, walletId: string, id: string, reviewId: string, now: Date): Promise<TransactionRecord | null>;
}
