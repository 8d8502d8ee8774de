import type { DecidingRule, RequestLogEntryView, StaffPrincipal } from '@wallet/domain';
import type { GraphQLContext, SchemaBuilderOf } from './schema.ts';

/**
 * Support's read of the request log: `requestLog(...)`, entries of the partner's projects only
 * (another partner's entry is absent exactly like a missing one), newest first.
 */
export function addRequestLogFields(builder: SchemaBuilderOf, principal: (ctx: GraphQLContext) => StaffPrincipal) {
  const rule = builder.objectRef<DecidingRule>('RequestLogDecidingRule').implement({
    description: 'A policy rule that decided a refusal',
    fields: (t) => ({
      policyId: t.exposeString('policyId'),
      policyVersion: t.exposeString('policyVersion'),
      ruleId: t.exposeString('ruleId', { nullable: true }),
    }),
  });

  const entry = builder.objectRef<RequestLogEntryView>('RequestLogEntry').implement({
    description: 'A /v1 request that changed state or was refused (never its body or API key)',
    fields: (t) => ({
      requestId: t.exposeString('requestId'),
      projectId: t.exposeID('projectId', { nullable: true }),
      method: t.exposeString('method'),
      route: t.exposeString('route', { description: 'The route template, e.g. /v1/wallets/:walletId/transfer' }),
      status: t.exposeInt('status'),
      code: t.exposeString('code', { nullable: true, description: 'The error code of a refusal' }),
      apiKeyId: t.exposeID('apiKeyId', { nullable: true }),
      walletId: t.exposeID('walletId', { nullable: true }),
      transactionId: t.exposeID('transactionId', { nullable: true }),
      caseId: t.exposeID('caseId', { nullable: true, description: 'The approval case a policy refusal names' }),
      latencyMs: t.exposeFloat('latencyMs'),
      at: t.exposeString('at'),
      deniedBy: t.field({ type: [rule], nullable: true, description: 'For policy refusals: the deciding rules', resolve: (e) => e.deniedBy }),
    }),
  });

  builder.queryField('requestLog', (t) =>
    t.field({
      type: [entry],
      description: "Request log entries of the partner's projects, newest first",
      args: {
        requestId: t.arg.string({ required: false }),
        walletId: t.arg.id({ required: false }),
        status: t.arg.int({ required: false }),
        code: t.arg.string({ required: false }),
        first: t.arg.int({ required: false, description: '1-200 (default 50)' }),
      },
      resolve: (_root, args, ctx) =>
        ctx.services.consoleRequestLog.list(principal(ctx), {
          ...(args.requestId != null ? { requestId: args.requestId } : {}),
          ...(args.walletId != null ? { walletId: String(args.walletId) } : {}),
          ...(args.status != null ? { status: args.status } : {}),
          ...(args.code != null ? { code: args.code } : {}),
          ...(args.first != null ? { limit: args.first } : {}),
        }),
    }),
  );
}
