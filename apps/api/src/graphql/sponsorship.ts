import type { ConsoleSponsorshipView, StaffPrincipal } from '@wallet/domain';
import type { GraphQLContext, SchemaBuilderOf } from './schema.ts';

type Actor = NonNullable<ConsoleSponsorshipView['updatedBy']> & { email: string | null };

/**
 * `sponsorship(projectId, environment)`: the console's Sponsorship page as a support read, the
 * same use case as tRPC `sponsorship.get`. Another partner's project is the 404 of a missing one.
 */
export function addSponsorshipFields(builder: SchemaBuilderOf, principal: (ctx: GraphQLContext) => StaffPrincipal) {
  const actor = builder.objectRef<Actor>('SponsorshipActor').implement({
    description: 'Who changed the settings last: `staff` (console, with their email), `operator` (sponsorship CLI)',
    fields: (t) => ({
      type: t.exposeString('type'),
      id: t.exposeString('id', { nullable: true }),
      email: t.exposeString('email', { nullable: true, description: "The staff member's email (null for the CLI)" }),
    }),
  });

  const budgetToday = builder.objectRef<ConsoleSponsorshipView['budgetToday']>('SponsorshipBudgetToday').implement({
    description: "Today's (UTC) daily budget: what reservations and settled operations used, and what remains",
    fields: (t) => ({
      day: t.exposeString('day', { description: 'YYYY-MM-DD (UTC)' }),
      usedWei: t.exposeString('usedWei'),
      remainingWei: t.exposeString('remainingWei'),
    }),
  });

  const sponsorship = builder.objectRef<ConsoleSponsorshipView>('Sponsorship').implement({
    description: 'Gas sponsorship of a project and environment (disabled with the default limits until first changed); amounts in wei as decimal strings',
    fields: (t) => ({
      projectId: t.exposeID('projectId'),
      environment: t.exposeString('environment'),
      enabled: t.exposeBoolean('enabled'),
      paused: t.exposeBoolean('paused', { description: 'Enabled, but no new sponsored transfer is admitted' }),
      gasCapWei: t.exposeString('gasCapWei', { description: 'The most one operation may cost' }),
      dailyBudgetWei: t.exposeString('dailyBudgetWei', { description: 'The most the project and environment may spend per UTC day' }),
      budgetToday: t.field({ type: budgetToday, resolve: (s) => s.budgetToday }),
      updatedAt: t.exposeString('updatedAt', { nullable: true }),
      updatedBy: t.field({ type: actor, nullable: true, resolve: (s) => (s.updatedBy ? { ...s.updatedBy, email: s.updatedByEmail } : null) }),
    }),
  });

  builder.queryField('sponsorship', (t) =>
    t.field({
      type: sponsorship,
      args: {
        projectId: t.arg.id({ required: true }),
        environment: t.arg.string({ required: false, description: 'development (default) or production' }),
      },
      resolve: (_root, args, ctx) =>
        ctx.services.consoleSponsorship.get(principal(ctx), { projectId: String(args.projectId), environment: (args.environment ?? 'development') as 'development' | 'production' }),
    }),
  );
}
