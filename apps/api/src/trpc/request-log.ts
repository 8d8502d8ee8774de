import { requestLogListInput } from '@wallet/domain';
import { router, staffProcedure } from './trpc.ts';

/**
 * The console's Request log page: entries of the partner's projects, newest first, by the page's filters,
 * a page at a time (`{data, pagination: {cursor, hasMore, limit}}`; `cursor` is the previous page's).
 */
export const requestLogRouter = router({
  list: staffProcedure.input(requestLogListInput).query(({ ctx, input }) => ctx.services.consoleRequestLog.page(ctx.staff, input)),
});
