import type { ConsoleSponsorshipView, SponsorshipChainStatus, StaffPrincipal } from '@wallet/domain';
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

  const funding = builder.objectRef<SponsorshipChainStatus>('SponsorshipChainFunding').implement({
    description:
      "A sponsorship chain of the deployment: the paymaster's EntryPoint deposit and the relayer's balance (wei as decimal strings), flagged below their thresholds; `unavailable` (with `reason`) when its RPC did not answer",
    fields: (t) => ({
      chainId: t.exposeInt('chainId'),
      status: t.exposeString('status', { description: 'ok or unavailable' }),
      reason: t.string({ nullable: true, resolve: (c) => (c.status === 'unavailable' ? c.reason : null) }),
      entryPoint: t.exposeString('entryPoint'),
      paymaster: t.exposeString('paymaster'),
      submission: t.exposeString('submission', { description: 'relayer or bundler' }),
      relayerAddress: t.exposeString('relayerAddress', { nullable: true }),
      paymasterDepositWei: t.string({ nullable: true, resolve: (c) => (c.status === 'ok' ? c.paymasterDepositWei : null) }),
      relayerBalanceWei: t.string({ nullable: true, resolve: (c) => (c.status === 'ok' ? c.relayerBalanceWei : null) }),
      lowDeposit: t.boolean({ nullable: true, resolve: (c) => (c.status === 'ok' ? c.lowDeposit : null) }),
      lowRelayerBalance: t.boolean({ nullable: true, resolve: (c) => (c.status === 'ok' ? c.lowRelayerBalance : null) }),
      minDepositWei: t.exposeString('minDepositWei'),
      minRelayerBalanceWei: t.exposeString('minRelayerBalanceWei'),
    }),
  });

  builder.queryField('sponsorshipFunding', (t) =>
    t.field({
      type: [funding],
      description: 'The sponsorship chains of the deployment and what funds them (read from the chains now)',
      resolve: async (_root, _args, ctx) => {
        principal(ctx);
        return (await ctx.services.sponsorshipStatus.read()).chains;
      },
    }),
  );
}
