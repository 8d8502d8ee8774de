/**
 * The dry run (POST /v1/permissions-v2/evaluate, our extension): a signing or transfer body,
 * exactly as its route takes it, turned into the intent that route would sign and judged by the
 * same engine — with a trace of every applying rule and the meters before and after, and nothing
 * reserved, signed or recorded.
 */
import { z } from 'zod';
import type { Caller } from '../shared/caller.ts';
import { parseInput } from '../shared/zod.ts';
import { parseSignRouteBody, signRouteContext } from '../signing/service.ts';
import type { SigningContext } from '../signing/pipeline.ts';
import { assertSignable, signRouteNames, type SignOperationName } from '../signing/signers.ts';
import type { WalletService } from '../wallets/service.ts';
import type { PolicyExplanation } from './engine.ts';

const signRoutes = Object.fromEntries(Object.entries(signRouteNames).map(([operation, route]) => [route, operation])) as Record<string, SignOperationName>;
export const dryRunRoutes = ['transfer', 'calls', ...Object.values(signRouteNames)] as [string, ...string[]];

export const dryRunBodySchema = z
  .strictObject({
    walletId: z.uuid(),
    route: z.enum(dryRunRoutes).describe('The route the body is for: sign-message, sign-raw, sign-transaction, sign-typed-data, sign-authorization, transfer or calls (a batch: every call judged, see `calls`)'),
    body: z.record(z.string(), z.unknown()).describe('The request body exactly as that route takes it'),
  })
  .meta({ id: 'PolicyDryRunRequest' });

const denialSchema = z.object({ reason: z.string(), policyId: z.string().optional(), policyVersion: z.string().optional(), ruleId: z.string().optional() });

const requestSchema = z.object({
  walletType: z.string(),
  walletId: z.string(),
  apiKeyId: z.string(),
  action: z.string().describe('The policy action the request is'),
  network: z.string().nullable(),
  facts: z.record(z.string(), z.string()),
  legs: z.array(z.object({ to: z.string().nullable(), asset: z.string().nullable(), amount: z.string().nullable() })),
  undecoded: z.string().nullable(),
});

const policyTraceSchema = z.object({
  policyId: z.string(),
  policyVersion: z.string(),
  rules: z.array(
    z.object({
      ruleId: z.string(),
      effect: z.string(),
      outcome: z.enum(['matched', 'not-matched', 'undecidable', 'not-covered']),
      facts: z.array(z.record(z.string(), z.string().nullable())).describe('Per leg judged: the facts the rule read (null: undecidable, "none": absent by nature)'),
      meters: z.array(z.record(z.string(), z.string())).describe('Aggregate conditions: meter, asset, window, before, after (with this request), limit'),
    }),
  ),
});

export const dryRunResultSchema = z
  .object({
    decision: z.enum(['allow', 'deny', 'review_required']).describe('review_required: no rule denies but a require_approval rule matched (a real request would get POLICY_REVIEW_REQUIRED, or FORBIDDEN without a scope binding)'),
    reason: z.string().nullable().describe('The first denial reason; null when allowed or review_required'),
    deniedBy: z.array(denialSchema).describe('Every deciding rule, as a real signature would get them in POLICY_DENIED'),
    requirements: z
      .array(z.object({ policyId: z.string(), policyVersion: z.string(), ruleId: z.string(), requirementId: z.string() }))
      .describe('review_required: every matching requirement a case would gate; empty otherwise'),
    request: requestSchema.describe('What the request was decoded as (a batch: its first call, with the legs of every call)'),
    policies: z.array(policyTraceSchema).describe('Every applying policy and each rule with its outcome (a batch: every call\'s, in order)'),
    calls: z
      .array(
        z.object({
          decision: z.enum(['allow', 'deny', 'review_required']),
          reason: z.string().nullable(),
          deniedBy: z.array(denialSchema),
          request: requestSchema,
          policies: z.array(policyTraceSchema),
        }),
      )
      .optional()
      .describe('route calls: each call\'s own decision, request and trace, in order (meters read after the whole batch)'),
  })
  .meta({ id: 'PolicyDryRunResult' });

export interface PolicyDryRunDeps {
  explain(context: SigningContext): Promise<PolicyExplanation>;
  loadWallet: WalletService['loadWallet'];
  /** The transfer route's intent (built, not signed); absent when transfers are not configured. */
  previewTransfer?(caller: Caller, walletId: string, body: unknown): Promise<SigningContext>;
  /** The calls route's intent (built, not signed); absent when batches are not configured. */
  previewCalls?(caller: Caller, walletId: string, body: unknown): Promise<SigningContext>;
}

export function createPolicyDryRun({ explain, loadWallet, previewTransfer, previewCalls }: PolicyDryRunDeps) {
  return {
    async evaluate(caller: Caller, input: unknown): Promise<PolicyExplanation> {
      const { walletId, route, body: sent } = parseInput(dryRunBodySchema, input);
      // As the routes do: the approval initiator is not part of the operation's body.
      const { initiatorUserId: _initiator, ...body } = sent;
      if (route === 'transfer') {
        if (!previewTransfer) throw new Error('transfers are not configured');
        return explain(await previewTransfer(caller, walletId, body));
      }
      if (route === 'calls') {
        if (!previewCalls) throw new Error('batched calls are not configured');
        return explain(await previewCalls(caller, walletId, body));
      }
      const wallet = await loadWallet(caller, walletId);
      assertSignable(wallet);
      const operation = signRoutes[route]!;
      return explain(signRouteContext(caller, wallet, operation, parseSignRouteBody(wallet, operation, body)));
    },
  };
}

export type PolicyDryRun = ReturnType<typeof createPolicyDryRun>;
