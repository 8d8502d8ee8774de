import type { ConsoleAuthorizationScopes, StaffPrincipal } from '@wallet/domain';
import type { GraphQLContext, SchemaBuilderOf } from './schema.ts';

type Binding = Awaited<ReturnType<ConsoleAuthorizationScopes['walletScope']>> & { environment: 'development' | 'production' };
type Members = Awaited<ReturnType<ConsoleAuthorizationScopes['members']>>;
type Member = Members['data'][number];
type Assignment = Member['assignments'][number];
type Actor = { type: string; id: string | null };

const environmentOf = (value: string | null | undefined) => (value ?? 'development') as 'development' | 'production';

/**
 * Support reads of authorization scopes: a wallet's binding (`Wallet.authorizationScope`) and a
 * scope's members (`authorizationScopeMembers`). Both run the console use cases, so another
 * partner's projects and wallets are the 404 of a missing one.
 */
export function addAuthorizationScopeFields(builder: SchemaBuilderOf, principal: (ctx: GraphQLContext) => StaffPrincipal) {
  const actor = builder.objectRef<Actor>('RevisionActor').implement({
    description: 'Who wrote a revision: `staff` (console), `api_key` (REST) or `operator` (CLI)',
    fields: (t) => ({ type: t.exposeString('type'), id: t.exposeString('id', { nullable: true }) }),
  });

  const assignment = builder.objectRef<Assignment>('ScopeAssignment').implement({
    description: 'A role, or an attribute with its value',
    fields: (t) => ({
      role: t.string({ nullable: true, resolve: (a) => ('role' in a ? a.role : null) }),
      attribute: t.string({ nullable: true, resolve: (a) => ('attribute' in a ? a.attribute : null) }),
      value: t.string({ nullable: true, resolve: (a) => ('value' in a ? a.value : null) }),
    }),
  });

  const binding = builder.objectRef<Binding>('WalletAuthorizationScope').implement({
    description: 'The scope a wallet is bound to in one environment (revision 0: never written)',
    fields: (t) => ({
      environment: t.exposeString('environment'),
      authorizationScopeId: t.exposeString('authorizationScopeId', { nullable: true, description: 'null: not bound' }),
      revision: t.exposeInt('revision'),
      updatedAt: t.exposeString('updatedAt', { nullable: true }),
      updatedBy: t.field({
        type: actor,
        nullable: true,
        description: 'Who wrote the current revision',
        resolve: async (b, _args, ctx) => {
          if (b.revision === 0) return null;
          const history = await ctx.services.consoleScopes.walletScopeHistory(principal(ctx), { walletId: b.walletId, environment: b.environment, limit: 1 });
          return history.data[0]?.createdBy ?? null;
        },
      }),
    }),
  });

  const member = builder.objectRef<Member>('ScopeMember').implement({
    fields: (t) => ({
      userId: t.exposeID('userId'),
      revision: t.exposeInt('revision'),
      updatedAt: t.exposeString('updatedAt'),
      assignments: t.field({ type: [assignment], resolve: (m) => m.assignments }),
    }),
  });

  const members = builder.objectRef<Members>('ScopeMembers').implement({
    description: 'Users with at least one assignment in the scope, by user id',
    fields: (t) => ({
      authorizationScopeId: t.exposeString('authorizationScopeId'),
      members: t.field({ type: [member], resolve: (m) => m.data }),
      nextCursor: t.string({ nullable: true, description: 'Pass as `after` for the next page', resolve: (m) => m.pagination.cursor }),
    }),
  });

  builder.objectField('Wallet', 'authorizationScope', (t) =>
    t.field({
      type: binding,
      description: "The wallet's authorization scope binding in the environment",
      args: { environment: t.arg.string({ required: false, description: 'development (default) or production' }) },
      resolve: async (wallet, args, ctx) => {
        const environment = environmentOf(args.environment);
        return { ...(await ctx.services.consoleScopes.walletScope(principal(ctx), { walletId: wallet.id, environment })), environment };
      },
    }),
  );

  builder.queryField('authorizationScopeMembers', (t) =>
    t.field({
      type: members,
      args: {
        projectId: t.arg.id({ required: true }),
        scopeId: t.arg.string({ required: true }),
        environment: t.arg.string({ required: false, description: 'development (default) or production' }),
        first: t.arg.int({ required: false, description: 'Page size, 1-100 (default 50)' }),
        after: t.arg.string({ required: false }),
      },
      resolve: (_root, args, ctx) =>
        ctx.services.consoleScopes.members(principal(ctx), {
          projectId: String(args.projectId),
          environment: environmentOf(args.environment),
          scopeId: args.scopeId,
          ...(args.first != null ? { limit: args.first } : {}),
          ...(args.after != null ? { cursor: args.after } : {}),
        }),
    }),
  );
}
