import { searchInput } from '@wallet/domain';
import { router, staffProcedure } from './trpc.ts';

/** The console's search box (every staff role): the use case behind GraphQL `search` too. */
export const searchRouter = router({
  query: staffProcedure.input(searchInput).query(({ ctx, input }) => ctx.services.search.search(ctx.staff, input)),
});
