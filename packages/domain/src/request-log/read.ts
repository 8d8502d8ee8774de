import { z } from 'zod';
import { parseInput, uuidSchema } from '../shared/zod.ts';
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
});

/** An entry as staff read it (times as ISO strings). */
export type RequestLogEntryView = Omit<RequestLogEntry, 'at'> & { at: string };

/**
 * Support's read of the request log: entries of the staff member's partner's projects only,
 * newest first. Entries refused before authentication belong to no project and so to no partner.
 */
export function createConsoleRequestLog(deps: { store: Pick<RequestLogStore, 'list'> }) {
  return {
    async list(principal: PartnerPrincipal, input: z.input<typeof requestLogListInput>): Promise<RequestLogEntryView[]> {
      const { limit, from, to, ...filters } = parseInput(requestLogListInput, input);
      const entries = await deps.store.list({
        partnerId: principal.partnerId,
        ...filters,
        ...(from !== undefined ? { from: new Date(from) } : {}),
        ...(to !== undefined ? { to: new Date(to) } : {}),
        limit: limit ?? REQUEST_LOG_PAGE_DEFAULT,
      });
      return entries.map((entry) => ({ ...entry, at: entry.at.toISOString() }));
    },
  };
}

export type ConsoleRequestLog = ReturnType<typeof createConsoleRequestLog>;
