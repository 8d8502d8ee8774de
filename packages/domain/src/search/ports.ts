import type { SearchLookup } from './recognise.ts';

/** The kinds of record a search finds, in the order results are listed. */
export const searchKinds = ['TRANSACTION', 'WALLET', 'USER', 'APPROVAL_CASE', 'REVIEW', 'WEBHOOK_EVENT', 'REQUEST'] as const;
export type SearchKind = (typeof searchKinds)[number];

/** One record a lookup found, with what its label and console link are made of. */
export type SearchHit =
  | { kind: 'TRANSACTION'; id: string; hash: string | null; status: string; walletType: string }
  | { kind: 'WALLET'; id: string; address: string; type: string; userIdentifier: string }
  /** A user identifier is per project: the same one in two projects is two users. */
  | { kind: 'USER'; identifier: string; projectId: string }
  /** An approval case; a partner review when `partnerReview` (its review id is the case id). */
  | { kind: 'CASE'; id: string; projectId: string; environment: string; status: string; partnerReview: boolean }
  /** `transactionId`: the record the event is about (send.*, rest.transaction.*), null for the others. */
  | { kind: 'WEBHOOK_EVENT'; id: string; projectId: string; type: string; transactionId: string | null }
  | { kind: 'REQUEST'; id: string; method: string; route: string; status: number };

export interface SearchStore {
  /**
   * The records of the partner's projects `lookup` finds, at most `limit` of each kind (indexed
   * lookups only). Another partner's records are never returned.
   */
  find(partnerId: string, lookup: SearchLookup, limit: number): Promise<SearchHit[]>;
}
