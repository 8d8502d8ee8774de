import type { ConsoleApprovalCaseView, StaffPrincipal } from '@wallet/domain';
import type { GraphQLContext, SchemaBuilderOf } from './schema.ts';

type Stage = ConsoleApprovalCaseView['stages'][number];
type Approval = Stage['approvals'][number];
type Rejection = NonNullable<ConsoleApprovalCaseView['rejectedBy']>;
type Requirement = ConsoleApprovalCaseView['requirements'][number];
type Request = ConsoleApprovalCaseView['request'];
type PartnerReview = NonNullable<ConsoleApprovalCaseView['partnerReview']>;

const environmentArg = (value: string | null | undefined) => (value ?? undefined) as 'development' | 'production' | undefined;

/**
 * Support reads of conditional approval cases: one case by id (`approvalCase`, any project of the
 * partner), a wallet's newest cases (`Wallet.approvalCases`) and the case behind a record
 * (`Transaction.approvalCase`). All run the console use cases
 * (the REST reads, refreshed), so another partner's case or wallet is the NOT_FOUND of a missing one.
 */
export function addApprovalCaseFields(builder: SchemaBuilderOf, principal: (ctx: GraphQLContext) => StaffPrincipal) {
  const approval = builder.objectRef<Approval>('ApprovalCaseApproval').implement({
    fields: (t) => ({ userId: t.exposeID('userId'), at: t.exposeString('at') }),
  });

  const attribute = builder.objectRef<{ name: string; values: string[] }>('ApprovalStageAttribute').implement({
    fields: (t) => ({ name: t.exposeString('name'), values: t.exposeStringList('values') }),
  });

  const stage = builder.objectRef<Stage>('ApprovalCaseStage').implement({
    description: 'A stage as the case snapshotted it, with the approvals it got so far (in order)',
    fields: (t) => ({
      id: t.exposeString('id'),
      requirementId: t.exposeString('requirementId'),
      roles: t.exposeStringList('roles'),
      attributes: t.field({
        type: [attribute],
        description: 'Attributes an approver must hold, each with one of its values',
        resolve: (s) => Object.entries(s.attributes).map(([name, values]) => ({ name, values })),
      }),
      requiredApprovals: t.exposeInt('requiredApprovals'),
      approvals: t.field({ type: [approval], resolve: (s) => s.approvals }),
      completedAt: t.exposeString('completedAt', { nullable: true, description: 'When its last needed approval came; null while short' }),
    }),
  });

  const rejection = builder.objectRef<Rejection>('ApprovalCaseRejection').implement({
    fields: (t) => ({ userId: t.exposeID('userId'), stageId: t.exposeString('stageId'), at: t.exposeString('at') }),
  });

  const reviewer = builder.objectRef<PartnerReview['decidedBy'] & object>('PartnerReviewer').implement({
    description: "Who made the app's decision: an API key or a staff member in the console",
    fields: (t) => ({ type: t.exposeString('type'), id: t.exposeID('id') }),
  });

  const partnerReview = builder.objectRef<PartnerReview>('ApprovalCasePartnerReview').implement({
    description: "The app's own review of the case (a require_approval rule without approvalRequirement)",
    fields: (t) => ({
      decision: t.exposeString('decision', { nullable: true, description: 'approve or reject; null while undecided' }),
      decidedAt: t.exposeString('decidedAt', { nullable: true }),
      decidedBy: t.field({ type: reviewer, nullable: true, resolve: (r) => r.decidedBy }),
    }),
  });

  const requirement = builder.objectRef<Requirement>('ApprovalCaseRequirement').implement({
    fields: (t) => ({
      policyId: t.exposeString('policyId'),
      policyVersion: t.exposeString('policyVersion'),
      ruleId: t.exposeString('ruleId'),
      requirementId: t.exposeString('requirementId'),
    }),
  });

  const request = builder.objectRef<Request>('ApprovalCaseRequest').implement({
    description: 'What the gated request does (never its whole body)',
    fields: (t) => ({
      action: t.exposeString('action'),
      operation: t.exposeString('operation'),
      walletType: t.string({ resolve: (r) => r.chain.walletType }),
      chainId: t.string({ nullable: true, resolve: (r) => r.chain.chainId }),
      network: t.string({ nullable: true, resolve: (r) => r.chain.network }),
      to: t.string({ nullable: true, resolve: (r) => r.transfer?.to ?? null }),
      value: t.string({ nullable: true, resolve: (r) => r.transfer?.value ?? null }),
      tokenAddress: t.string({ nullable: true, resolve: (r) => r.transfer?.tokenAddress ?? null }),
    }),
  });

  const approvalCase = builder.objectRef<ConsoleApprovalCaseView>('ApprovalCase').implement({
    description: 'A conditional approval case (the REST case view) with its project and environment',
    fields: (t) => ({
      caseId: t.exposeID('caseId'),
      projectId: t.exposeID('projectId'),
      environment: t.exposeString('environment'),
      status: t.exposeString('status'),
      terminalReason: t.exposeString('terminalReason', { nullable: true }),
      walletId: t.exposeID('walletId'),
      apiKeyId: t.exposeID('apiKeyId'),
      authorizationScopeId: t.exposeString('authorizationScopeId', { nullable: true }),
      bindingRevision: t.exposeInt('bindingRevision', { nullable: true }),
      idempotencyKey: t.exposeString('idempotencyKey', { nullable: true }),
      requestHash: t.exposeString('requestHash'),
      initiatorUserId: t.exposeID('initiatorUserId', { nullable: true }),
      request: t.field({ type: request, resolve: (c) => c.request }),
      requirements: t.field({ type: [requirement], resolve: (c) => c.requirements }),
      stages: t.field({ type: [stage], resolve: (c) => c.stages }),
      rejectedBy: t.field({ type: rejection, nullable: true, resolve: (c) => c.rejectedBy }),
      partnerReview: t.field({ type: partnerReview, nullable: true, resolve: (c) => c.partnerReview }),
      expiresAt: t.exposeString('expiresAt'),
      createdAt: t.exposeString('createdAt'),
      completedAt: t.exposeString('completedAt', { nullable: true }),
      consumedAt: t.exposeString('consumedAt', { nullable: true }),
      rejectedAt: t.exposeString('rejectedAt', { nullable: true }),
      expiredAt: t.exposeString('expiredAt', { nullable: true }),
      invalidatedAt: t.exposeString('invalidatedAt', { nullable: true }),
      cancelledAt: t.exposeString('cancelledAt', { nullable: true }),
      wallet: t.field({
        type: 'Wallet',
        resolve: (c, _args, ctx) => ctx.services.console.wallets.get(principal(ctx), { walletId: c.walletId }),
      }),
    }),
  });

  builder.objectField('Wallet', 'approvalCases', (t) =>
    t.field({
      type: [approvalCase],
      description: "The wallet's newest approval cases, of one environment or both",
      args: {
        first: t.arg.int({ required: false, description: '1-20 (default 5)' }),
        environment: t.arg.string({ required: false, description: 'development or production (default: both)' }),
      },
      resolve: (wallet, args, ctx) =>
        ctx.services.consoleApprovalCases.ofWallet(principal(ctx), {
          walletId: wallet.id,
          ...(args.first != null ? { limit: args.first } : {}),
          ...(args.environment != null ? { environment: environmentArg(args.environment) } : {}),
        }),
    }),
  );

  builder.objectField('Transaction', 'approvalCase', (t) =>
    t.field({
      type: approvalCase,
      nullable: true,
      description:
        'The approval case consumed for this record: the case the request that created the record claimed (same wallet and API key); null when none',
      resolve: (record, _args, ctx) => ctx.services.consoleApprovalCases.ofRecord(principal(ctx), record.transactionId),
    }),
  );

  builder.queryField('approvalCase', (t) =>
    t.field({
      type: approvalCase,
      description: 'One approval case of any project of the partner',
      args: { id: t.arg.id({ required: true }) },
      resolve: (_root, args, ctx) => ctx.services.consoleApprovalCases.byId(principal(ctx), String(args.id)),
    }),
  );
}
