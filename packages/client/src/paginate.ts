import type { WalletClient } from './client.ts';
import { unwrap } from './errors.ts';
import type { paths } from './generated/openapi.ts';

type GetPath = { [P in keyof paths]: paths[P] extends { get: { responses: { 200: unknown } } } ? P : never }[keyof paths];
type GetOperation<P extends GetPath> = paths[P] extends { get: infer O } ? O : never;
type PageOf<P extends GetPath> = GetOperation<P> extends { responses: { 200: { content: { 'application/json': infer D } } } } ? D : never;

/** The three list shapes of the API: `{data, pagination: {cursor}}`, approval cases and partner reviews. */
type ItemOf<D> = D extends { data: Array<infer I>; pagination: { cursor: string | null } }
  ? I
  : D extends { cases: Array<infer I>; nextBeforeCaseId: string | null }
    ? I
    : D extends { reviews: Array<infer I>; nextBeforeReviewId: string | null }
      ? I
      : never;

/** Every GET route that answers a list with a cursor. */
export type ListPath = { [P in GetPath]: [ItemOf<PageOf<P>>] extends [never] ? never : P }[GetPath];
export type ListItem<P extends ListPath> = ItemOf<PageOf<P>>;
/** The route's path and query parameters, its cursor parameter excepted (the iteration sets it). */
export type ListParams<P extends ListPath> = GetOperation<P> extends { parameters: infer Params } ? Params : never;

/** A page's items and where the next page starts: the query parameter and its value (null on the last page). */
function readPage(page: Record<string, unknown>): { items: unknown[]; parameter: string; next: string | null } {
  if (Array.isArray(page.data) && typeof page.pagination === 'object' && page.pagination !== null) {
    return { items: page.data, parameter: 'cursor', next: (page.pagination as { cursor: string | null }).cursor };
  }
  if (Array.isArray(page.cases)) return { items: page.cases, parameter: 'beforeCaseId', next: page.nextBeforeCaseId as string | null };
  if (Array.isArray(page.reviews)) return { items: page.reviews, parameter: 'beforeReviewId', next: page.nextBeforeReviewId as string | null };
  throw new TypeError('paginate: the answer is not a list with a cursor');
}

/**
 * Iterates every item of a list route, page after page, following its cursor:
 * `for await (const wallet of paginate(client, '/v1/wallets', { params: { query: { limit: 100 } } }))`.
 * An error answer throws `WalletApiError`.
 */
export async function* paginate<P extends ListPath>(client: WalletClient, path: P, init: { params?: ListParams<P> } = {}): AsyncGenerator<ListItem<P>, void, undefined> {
  const params = (init.params ?? {}) as { query?: Record<string, unknown>; path?: Record<string, unknown> };
  let after: { parameter: string; next: string } | undefined;
  for (;;) {
    const query = after ? { ...params.query, [after.parameter]: after.next } : params.query;
    // The path is one of ListPath, so the call is well-typed; TypeScript cannot check a generic path against the union.
    const get = client.GET as unknown as (path: string, init: unknown) => Promise<{ data?: Record<string, unknown>; error?: unknown; response: Response }>;
    const page = await unwrap(get(path, { params: { ...params, query } }));
    const { items, parameter, next } = readPage(page);
    yield* items as Array<ListItem<P>>;
    if (next === null || next === undefined || items.length === 0) return;
    after = { parameter, next };
  }
}
