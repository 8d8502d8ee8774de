/**
 * The support filters of the console's records list beyond status and intent: the wallet's user
 * (a prefix of its identifier), the chain, the token and a date range, and the user column.
 */
import type { z } from 'zod';
import type { ChainDirectory } from '../chains/service.ts';
import { invalidRequest } from '../errors.ts';
import type { ConsoleStore, PartnerTransactionFilter } from './ports.ts';
import type { transactionSearchInput } from './schemas.ts';

/** A user prefix matching more wallets than this is refused: support types more of it. */
export const MAX_USER_WALLETS = 500;

const DAY_MS = 24 * 60 * 60 * 1000;
const isDay = (value: string) => /^\d{4}-\d{2}-\d{2}$/.test(value);

type Parsed = z.output<typeof transactionSearchInput>;
export type RecordFilters = Pick<PartnerTransactionFilter, 'walletIds' | 'chain' | 'token' | 'createdFrom' | 'createdBefore'>;

/** The token filter: `native`, every configured chain's USDC, or one address. */
function tokenFilter(token: string, directory: ChainDirectory): PartnerTransactionFilter['token'] {
  if (token.toLowerCase() === 'native') return { native: true };
  if (token.toLowerCase() === 'usdc') return { addresses: directory.list().flatMap((c) => (c.usdc ? [c.usdc.address] : [])) };
  return { addresses: [token] };
}

/**
 * The store filters of a parsed list input; null when the user filter matches no wallet (the page
 * is empty without a query). `projectId` is the project already checked against the partner.
 */
export async function recordFilters(
  deps: { store: ConsoleStore; directory: ChainDirectory },
  partnerId: string,
  projectId: string | undefined,
  parsed: Parsed,
): Promise<RecordFilters | null> {
  const createdFrom = parsed.from === undefined ? undefined : new Date(parsed.from);
  const createdBefore = parsed.to === undefined ? undefined : isDay(parsed.to) ? new Date(Date.parse(parsed.to) + DAY_MS) : new Date(Date.parse(parsed.to) + 1);
  if (createdFrom && createdBefore && createdFrom >= createdBefore) throw invalidRequest('Invalid request: from: must not be after to');
  let walletIds: string[] | undefined;
  if (parsed.user !== undefined) {
    walletIds = await deps.store.walletIdsOfUser({ partnerId, projectId, prefix: parsed.user, limit: MAX_USER_WALLETS + 1 });
    if (walletIds.length > MAX_USER_WALLETS) throw invalidRequest(`Invalid request: user: more than ${MAX_USER_WALLETS} wallets' users start with this; type more of the identifier`);
    if (walletIds.length === 0) return null;
  }
  return {
    walletIds,
    chain: parsed.chain,
    token: parsed.token === undefined ? undefined : tokenFilter(parsed.token, deps.directory),
    createdFrom,
    createdBefore,
  };
}

/** Each view with its wallet's user identifier (the list's user column); one query per page. */
export async function withUsers<V extends { walletId: string }>(store: ConsoleStore, views: V[]): Promise<Array<V & { userIdentifier: string | null }>> {
  const users = new Map((await store.walletUsers([...new Set(views.map((v) => v.walletId))])).map((u) => [u.walletId, u.userIdentifier]));
  return views.map((v) => ({ ...v, userIdentifier: users.get(v.walletId) ?? null }));
}

