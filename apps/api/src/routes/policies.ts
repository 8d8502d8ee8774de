import {
  dryRunBodySchema,
  dryRunResultSchema,
  policyListSchema,
  policyScopeOfCaller,
  policyUsageSchema,
  policyVersionsSchema,
  policyViewSchema,
  type PolicyDryRun,
  type PolicyService,
  type PolicyUsage,
} from '@wallet/domain';
import { z } from 'zod';
import { defineRoutes, type RouteDef } from '../http/route.ts';
import { policiesExamples } from './policies-examples.ts';

const usageQuery = z.object({
  chainId: z.string().describe('Required. The network in the wallet type\'s form: "84532", solana:devnet, stellar:testnet, sui:mainnet, cosmos:<chain-id>'),
  tokenAddress: z.string().optional().describe('The token of per-asset token meters (EVM contract, SPL mint, denom, CODE:ISSUER)'),
});

/**
 * Permissions v2 for partners: policy reads, usage meters and the dry run, for the calling key's
 * project and environment only (policy writes are the console's and the CLI's).
 */
export function policyRoutes(policies: PolicyService, usage: PolicyUsage, dryRun: PolicyDryRun): RouteDef[] {
  return defineRoutes([
    {
      method: 'get',
      path: '/v1/permissions-v2/policies',
      operationId: 'listPolicies',
      examples: policiesExamples.listPolicies,
      summary: 'Active policies',
      description: "The policies of the calling key's project and environment that are active within their effective window; drafts and inactive versions are left out. Policies are written in the console or with the policies CLI, not over this API.",
      tag: 'Permissions',
      responses: { 200: { description: 'The active policies', schema: policyListSchema } },
      handler: async ({ caller }) => ({ status: 200, body: await policies.list(policyScopeOfCaller(caller)) }),
    },
    {
      method: 'get',
      path: '/v1/permissions-v2/policies/{policyId}',
      operationId: 'getPolicy',
      examples: policiesExamples.getPolicy,
      summary: 'One active policy',
      description: "One active policy of the calling key's project and environment.",
      tag: 'Permissions',
      responses: { 200: { description: 'The policy', schema: policyViewSchema } },
      handler: async ({ caller, params }) => ({ status: 200, body: await policies.get(policyScopeOfCaller(caller), params.policyId!) }),
    },
    {
      method: 'get',
      path: '/v1/permissions-v2/policies/{policyId}/versions',
      operationId: 'listPolicyVersions',
      examples: policiesExamples.listPolicyVersions,
      summary: 'Versions of a policy that are or were active, newest first',
      description: 'Every version of the policy that is or was active, newest first; drafts are left out.',
      tag: 'Permissions',
      responses: { 200: { description: 'The versions', schema: policyVersionsSchema } },
      handler: async ({ caller, params }) => ({ status: 200, body: await policies.versions(policyScopeOfCaller(caller), params.policyId!) }),
    },
    {
      method: 'get',
      path: '/v1/permissions-v2/wallets/{walletId}/policies/{policyId}/usage',
      operationId: 'getPolicyUsage',
      examples: policiesExamples.getPolicyUsage,
      summary: 'Spend meters of a policy for a wallet',
      description: 'The current usage of each aggregate condition of the policy for the wallet and the calling key, in base-unit decimal strings, on the network given by `chainId` (and the token given by `tokenAddress` for per-token meters). Current usage, not a preview: nothing is reserved.',
      tag: 'Permissions',
      query: usageQuery,
      responses: { 200: { description: 'The meters', schema: policyUsageSchema } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await usage.usage(caller, params.policyId!, query, { walletId: params.walletId! }) }),
    },
    {
      method: 'get',
      path: '/v1/permissions-v2/users/{userId}/policies/{policyId}/usage',
      operationId: 'getUserPolicyUsage',
      examples: policiesExamples.getUserPolicyUsage,
      summary: "Spend meters of a policy for a user's wallet",
      description: "The same meters as for a wallet, for the user's wallet named by `walletId` in the query; a wallet that is not the user's is 404.",
      tag: 'Permissions',
      query: usageQuery.extend({ walletId: z.string().describe('Required: the user\'s wallet') }),
      responses: { 200: { description: 'The meters', schema: policyUsageSchema } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await usage.usage(caller, params.policyId!, query, { userId: params.userId! }) }),
    },
    {
      method: 'post',
      path: '/v1/permissions-v2/evaluate',
      operationId: 'evaluatePolicies',
      examples: policiesExamples.evaluatePolicies,
      summary: 'Dry run of the policies for a request',
      description: "Takes a signing or transfer route's name and its body as that route takes it, builds the same intent the route would sign and judges it with the same engine: the decision, every applying rule with its outcome, the facts it saw and each meter before and after. Nothing is reserved, signed or recorded, and a denial is still 200.",
      tag: 'Permissions',
      body: dryRunBodySchema,
      responses: {
        200: { description: 'The decision and its trace (a denial is still 200 here)', schema: dryRunResultSchema },
        404: { description: "No such wallet (also another project's)" },
      },
      handler: async ({ caller, body }) => ({ status: 200, body: await dryRun.evaluate(caller, body) }),
    },
  ]);
}
