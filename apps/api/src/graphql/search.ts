import { searchKinds, type SearchResult, type StaffPrincipal } from '@wallet/domain';
import type { GraphQLContext, SchemaBuilderOf } from './schema.ts';

/**
 * `search(query)`: the console's search box over GraphQL, the same use case as tRPC `search.query`.
 * Results of the staff member's partner only, grouped by kind then label, at most 20 of each kind.
 */
export function addSearchFields(builder: SchemaBuilderOf, principal: (ctx: GraphQLContext) => StaffPrincipal) {
  const kind = builder.enumType('SearchKind', { values: searchKinds });

  const result = builder.objectRef<SearchResult>('SearchResult').implement({
    description: 'A record the search found, with a label and its console page',
    fields: (t) => ({
      kind: t.field({ type: kind, resolve: (r) => r.kind }),
      id: t.exposeID('id'),
      label: t.exposeString('label'),
      href: t.exposeString('href', { description: 'The console path of the record (with its query string)' }),
    }),
  });

  builder.queryField('search', (t) =>
    t.field({
      type: [result],
      description:
        'Records of any project of the partner matching `query` (1-200 characters; a blank query finds nothing): ids, transaction hashes, wallet addresses of every chain, webhook event ids, and user identifiers by case-insensitive prefix',
      args: { query: t.arg.string({ required: true }) },
      resolve: (_root, args, ctx) => ctx.services.search.search(principal(ctx), { query: args.query }),
    }),
  );
}
