import { z } from 'zod';
import { parseInput, uuidSchema } from '../shared/zod.ts';
import { keysetPage, type Page } from '../shared/cursor.ts';
import { direction } from '../console/schemas.ts';
import type { PartnerPrincipal } from '../console/scope.ts';
import type { RequestLogEntry, RequestLogStore } from './ports.ts';

export const REQUEST_LOG_PAGE_DEFAULT = 50;
export const REQUEST_LOG_PAGE_MAX = 200;

const isoTime = z.iso.datetime({ offset: true });

/** The filters of the console page and the GraphQL `requestLog` query. */
export const requestLogListInput = z.strictObject({
  requestId: uuidSchema.optional(),
  walletId: uuidSchema.optional(),
  apiKeyId: uuidSchema.optional(),
  status: z.number().int().min(100).max(599).optional(),
  code: z.string().trim().min(1).max(100).regex(/^[A-Z0-9_]+$/, 'must be an error code such as POLICY_DENIED').optional(),
  /** ISO 8601 with an offset; `from` inclusive, `to` exclusive. */
  from: isoTime.optional(),
  to: isoTime.optional(),
  limit: z.number().int().min(1).max(REQUEST_LOG_PAGE_MAX).optional(),
  /** The previous page's `pagination.cursor` (the API's opaque keyset cursor, over `at` and the request id). */
  cursor: z.string().min(1).max(200).optional(),
  /** Sent by the console's infinite queries; pages only go forward (older). */
  direction,
});

/** An entry as staff read it (times as ISO strings). */
export type RequestLogEntryView = Omit<RequestLogEntry, 'at'> & { at: string };

/**
 * Support's read of the request log: entries of the staff member's partner's projects only,
 * newest first. Entries refused before authentication belong to no project and so to no partner.
 */
export function createConsoleRequestLog(deps: { store: Pick<RequestLogStore, 'list'> }) {
  const view = (entry: RequestLogEntry): RequestLogEntryView => ({ ...entry, at: entry.at.toISOString() });
  /** The console's page: `{data, pagination: {cursor, hasMore, limit}}` as the API's lists answer. */
  async function page(principal: PartnerPrincipal, input: z.input<typeof requestLogListInput>): Promise<Page<RequestLogEntryView>> {
    const { limit, from, to, cursor, direction: _, ...filters } = parseInput(requestLogListInput, input);
    return keysetPage(
      { ...(cursor !== undefined ? { cursor } : {}), limit: limit ?? REQUEST_LOG_PAGE_DEFAULT },
      async (after, take) =>
        (
          await deps.store.list({
            partnerId: principal.partnerId,
            ...filters,
            ...(from !== undefined ? { from: new Date(from) } : {}),
            ...(to !== undefined ? { to: new Date(to) } : {}),
            ...(after ? { before: { at: after.createdAt, requestId: after.id } } : {}),
            limit: take,
          })
        ).map((entry) => ({ entry, createdAt: entry.at, id: entry.requestId })),
      (row) => view(row.entry),
    );
  }
  return {
    page,
    /** One page's entries (GraphQL `requestLog`): the newest `limit`, older than `cursor` when given. */
    async list(principal: PartnerPrincipal, input: z.input<typeof requestLogListInput>): Promise<RequestLogEntryView[]> {
      return (await page(principal, input)).data;
    },
  };
}

export type ConsoleRequestLog = ReturnType<typeof createConsoleRequestLog>;
