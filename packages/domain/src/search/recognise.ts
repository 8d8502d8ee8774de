/**
 * What a support search can be, decided from its shape alone, so a search runs only the indexed
 * lookups that can match it. Every query is also tried as the start of a user identifier (a
 * CUSTOM_ID may look like anything); the other lookups run only for their shape:
 * - uuid: a transaction record, wallet, approval case (or partner review) or request id;
 * - `evt_…`: a webhook event id (case-sensitive);
 * - `0x` + 64 hex: an EVM transaction hash, or a Sui address (case-insensitive);
 * - `0x` + 40 hex: an EVM address (case-insensitive);
 * - bech32 (`cosmos1…`): a Cosmos address (case-insensitive, stored lower-case);
 * - `G` + 55 base32: a Stellar account (case-insensitive, stored upper-case);
 * - base58 of 32-44 characters: a Solana address (case-sensitive);
 * - base58 of 80-90 characters: a Solana transaction signature (case-sensitive).
 */
export type SearchLookup =
  | { kind: 'id'; id: string }
  | { kind: 'eventId'; id: string }
  | { kind: 'hash'; hash: string }
  /** `lower` is compared with lower(address); `exact`, when set, with the address as stored too. */
  | { kind: 'address'; lower: string; exact?: string }
  /** Lower-cased; matched as a prefix of lower(user identifier). */
  | { kind: 'userPrefix'; prefix: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const EVENT_ID = /^evt_[A-Za-z0-9_-]{1,64}$/;
const HEX_64 = /^0x[0-9a-f]{64}$/i;
const HEX_40 = /^0x[0-9a-f]{40}$/i;
/** Lower- or upper-case only, as bech32 allows; the prefix rule is the wallet creation one. */
const BECH32 = /^(?:[a-z][a-z0-9]{0,19}1[02-9ac-hj-np-z]{38,}|[A-Z][A-Z0-9]{0,19}1[02-9AC-HJ-NP-Z]{38,})$/;
const STELLAR = /^G[A-Z2-7]{55}$/i;
const BASE58 = /^[1-9A-HJ-NP-Za-km-z]+$/;

export function recogniseQuery(query: string): SearchLookup[] {
  const lookups: SearchLookup[] = [];
  if (UUID.test(query)) lookups.push({ kind: 'id', id: query.toLowerCase() });
  else if (EVENT_ID.test(query)) lookups.push({ kind: 'eventId', id: query });
  else if (HEX_64.test(query)) lookups.push({ kind: 'hash', hash: query.toLowerCase() }, { kind: 'address', lower: query.toLowerCase() });
  else if (HEX_40.test(query)) lookups.push({ kind: 'address', lower: query.toLowerCase() });
  else if (BECH32.test(query)) lookups.push({ kind: 'address', lower: query.toLowerCase() });
  else if (STELLAR.test(query)) lookups.push({ kind: 'address', lower: query.toLowerCase() });
  else if (BASE58.test(query) && query.length >= 32 && query.length <= 44) lookups.push({ kind: 'address', lower: query.toLowerCase(), exact: query });
  else if (BASE58.test(query) && query.length >= 80 && query.length <= 90) lookups.push({ kind: 'hash', hash: query });
  lookups.push({ kind: 'userPrefix', prefix: query.toLowerCase() });
  return lookups;
}
