import {
  dryRunRoutes,
  invalidRequest,
  notFound,
  parsePolicyDocument,
  policyApplyInput,
  policyDocumentJsonSchema,
  policyFromTemplate,
  policyIdInput,
  policyLocationInput,
  policyTemplates,
  policyValidateInput,
  type ApiKeyRecord,
  type Caller,
  type PolicyScope,
  type StaffPrincipal,
} from '@wallet/domain';
import { z } from 'zod';
import type { TrpcContext } from './context.ts';
import { router, staffProcedure, writeProcedure } from './trpc.ts';

/**
 * Policy authoring for the console (issue #12): reads for every staff role, apply/deactivate for
 * owners and developers. Each procedure makes the staff scope (the project must be the staff
 * member's partner's, else 404 like a missing one) and calls one use case of `services.policies`,
 * which also writes the audit row naming the staff member. Drafts never reach the server: the
 * console keeps them in the browser and only `apply` stores anything.
 */

type StaffContext = TrpcContext & { staff: StaffPrincipal };

async function scopeOf(ctx: StaffContext, input: { projectId: string; environment: string }): Promise<PolicyScope> {
  const scope = await ctx.services.policies.staffScope(ctx.staff, input.projectId, input.environment);
  return { ...scope, requestId: ctx.requestId };
}

const uuid = z.uuid();
const dryRunInput = policyLocationInput.extend({
  apiKeyId: z.string(),
  walletId: z.string(),
  route: z.enum(dryRunRoutes),
  body: z.record(z.string(), z.unknown()),
});

/**
 * The API key a console dry run speaks for: one of the scope's project and environment that is not
 * revoked. Anything else (another project or partner, the other environment, revoked, malformed,
 * missing) is the same 404, so a key's existence never leaks.
 */
async function dryRunKey(ctx: StaffContext, scope: PolicyScope, apiKeyId: string): Promise<ApiKeyRecord> {
  const key = uuid.safeParse(apiKeyId).success ? await ctx.services.stores.apiKeys.findById(apiKeyId) : null;
  if (!key || key.projectId !== scope.projectId || key.environment !== scope.environment || key.revokedAt) throw notFound('API key');
  return key;
}

/** The caller a request with that key would be: meters and `apiKeyId` selectors are per key. */
const callerOf = (key: ApiKeyRecord, requestId: string | null): Caller => ({
  partnerId: key.partnerId,
  projectId: key.projectId,
  apiKeyId: key.id,
  environment: key.environment,
  plan: key.plan,
  requestId,
});

export const policiesRouter = router({
  /** Active policies of the project and environment whose effective window holds now. */
  list: staffProcedure.input(policyLocationInput).query(async ({ ctx, input }) => ctx.services.policies.list(await scopeOf(ctx, input))),
  /** The active version of one policy. */
  get: staffProcedure.input(policyIdInput).query(async ({ ctx, input }) => ctx.services.policies.get(await scopeOf(ctx, input), input.policyId)),
  /** Every version, newest first. */
  versions: staffProcedure
    .input(policyIdInput)
    .query(async ({ ctx, input }) => ctx.services.policies.versions(await scopeOf(ctx, input), input.policyId)),
  /**
   * Pure: what `activate` would refuse, with every problem at its JSON path. Stores nothing; a
   * mutation only so the draft travels in the body (a large allowlist does not fit in a URL).
   */
  validate: staffProcedure.input(policyValidateInput).mutation(({ input }) => {
    const parsed = parsePolicyDocument(input.document);
    return parsed.ok ? { ok: true as const, problems: [] } : { ok: false as const, problems: parsed.problems };
  }),
  /** The document schema as JSON Schema (draft 2020-12). */
  schema: staffProcedure.query(() => policyDocumentJsonSchema()),
  /** The templates and the parameters each one asks for. */
  templates: staffProcedure.query(() => policyTemplates),
  /** A template's document from its parameters (not validated: the editor validates it like any draft). */
  fromTemplate: staffProcedure.input(z.object({ template: z.string(), parameters: z.record(z.string(), z.unknown()) })).query(({ input }) => {
    const result = policyFromTemplate(input);
    if (!result.ok) throw invalidRequest(`Invalid template parameters: ${result.problems[0]?.path ?? ''}: ${result.problems[0]?.message ?? ''}`, { details: result.problems });
    return { document: result.document };
  }),
  /** `apply` of the domain (the name is reserved by tRPC's client proxy). Activates the document: version 1, or the next version of the same id (the previous one becomes inactive). */
  activate: writeProcedure.input(policyApplyInput).mutation(async ({ ctx, input }) => ctx.services.policies.apply(await scopeOf(ctx, input), input.document)),
  /** The keys a dry run may speak for: the project's keys of that environment that are not revoked. */
  dryRunKeys: staffProcedure.input(policyLocationInput).query(async ({ ctx, input }) => {
    const scope = await scopeOf(ctx, input);
    const keys = await ctx.services.console.apiKeys.list(ctx.staff, { projectId: scope.projectId });
    return keys.filter((key) => key.environment === scope.environment && key.revokedAt === null);
  }),
  /**
   * The REST dry run (`POST /v1/permissions-v2/evaluate`) as the chosen key would call it: the
   * decision, `deniedBy` and the trace of every applying rule over the ACTIVE policies. Writes
   * nothing (no reservation, signature, record or audit row), so every staff role may run it; a
   * mutation only so the body travels in the request body.
   */
  dryRun: staffProcedure.input(dryRunInput).mutation(async ({ ctx, input }) => {
    const scope = await scopeOf(ctx, input);
    const key = await dryRunKey(ctx, scope, input.apiKeyId);
    return ctx.services.policyDryRun.evaluate(callerOf(key, ctx.requestId), { walletId: input.walletId, route: input.route, body: input.body });
  }),
  /** Makes the active version inactive (no new version, nothing deleted). */
  deactivate: writeProcedure
    .input(policyIdInput)
    .mutation(async ({ ctx, input }) => ctx.services.policies.deactivate(await scopeOf(ctx, input), input.policyId)),
});
