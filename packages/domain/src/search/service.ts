import { z } from 'zod';
import { identifierString, parseInput } from '../shared/zod.ts';
import type { PartnerPrincipal } from '../console/scope.ts';
import { searchKinds, type SearchHit, type SearchKind, type SearchStore } from './ports.ts';
import { recogniseQuery } from './recognise.ts';

/** At most this many results of each kind. */
export const SEARCH_LIMIT_PER_KIND = 20;
export const SEARCH_QUERY_MAX_LENGTH = 200;

/** Surrounding spaces are dropped; a blank query finds nothing (an empty list, not an error). */
export const searchInput = z.strictObject({
  query: identifierString().max(SEARCH_QUERY_MAX_LENGTH, `must be at most ${SEARCH_QUERY_MAX_LENGTH} characters`),
});

export interface SearchResult {
  kind: SearchKind;
  id: string;
  label: string;
  /** The console page of the result (a path with its query string). */
  href: string;
}

const q = encodeURIComponent;

function toResult(hit: SearchHit): SearchResult {
  switch (hit.kind) {
    case 'TRANSACTION':
      return { kind: 'TRANSACTION', id: hit.id, label: `${hit.hash ?? hit.id} · ${hit.walletType} · ${hit.status}`, href: `/transactions/${hit.id}` };
    case 'WALLET':
      return { kind: 'WALLET', id: hit.id, label: `${hit.address} · ${hit.type} · ${hit.userIdentifier}`, href: `/wallets/${hit.id}` };
    case 'USER':
      return { kind: 'USER', id: `${hit.projectId}:${hit.identifier}`, label: hit.identifier, href: `/transactions?project=${hit.projectId}&user=${q(hit.identifier)}` };
    case 'CASE': {
      const kind = hit.partnerReview ? 'REVIEW' : 'APPROVAL_CASE';
      const what = hit.partnerReview ? 'Partner review' : 'Approval case';
      return {
        kind,
        id: hit.id,
        label: `${what} ${hit.id} · ${hit.environment} · ${hit.status}`,
        href: `/cases?project=${hit.projectId}&env=${q(hit.environment)}&case=${hit.id}`,
      };
    }
    case 'WEBHOOK_EVENT':
      // A record's event opens the record, whose page lists the event's deliveries (with resend);
      // the others open the project's webhook delivery log.
      return {
        kind: 'WEBHOOK_EVENT',
        id: hit.id,
        label: `${hit.type} · ${hit.id}`,
        href: hit.transactionId ? `/transactions/${hit.transactionId}` : `/webhooks?project=${hit.projectId}`,
      };
    case 'REQUEST':
      return { kind: 'REQUEST', id: hit.id, label: `${hit.method} ${hit.route} · ${hit.status} · ${hit.id}`, href: `/request-log?requestId=${hit.id}` };
  }
}

const kindOrder = new Map(searchKinds.map((kind, i) => [kind, i]));

/**
 * The console's one search box (GraphQL `search` and tRPC `search.query`): recognises the query's
 * shape, runs the lookups that can match it across the staff member's partner, and answers the
 * results grouped by kind (in `searchKinds` order), then by label, at most
 * SEARCH_LIMIT_PER_KIND of each kind.
 */
export function createSearchService(deps: { store: SearchStore }) {
  return {
    async search(principal: PartnerPrincipal, input: z.input<typeof searchInput>): Promise<SearchResult[]> {
      const query = parseInput(searchInput, input).query.trim();
      if (query === '') return [];
      const found = await Promise.all(recogniseQuery(query).map((lookup) => deps.store.find(principal.partnerId, lookup, SEARCH_LIMIT_PER_KIND)));
      const unique = new Map<string, SearchResult>();
      for (const result of found.flat().map(toResult)) unique.set(`${result.kind}:${result.id}`, result);
      const perKind = new Map<SearchKind, number>();
      return [...unique.values()]
        .sort((a, b) => kindOrder.get(a.kind)! - kindOrder.get(b.kind)! || (a.label < b.label ? -1 : a.label > b.label ? 1 : 0))
        .filter((result) => {
          const seen = (perKind.get(result.kind) ?? 0) + 1;
          perKind.set(result.kind, seen);
          return seen <= SEARCH_LIMIT_PER_KIND;
        });
    },
  };
}

export type SearchService = ReturnType<typeof createSearchService>;
