import { policyListSchema, policyScopeOfCaller, policyVersionsSchema, policyViewSchema, type PolicyService } from '@wallet/domain';
import { defineRoutes, type RouteDef } from '../http/route.ts';

/** Permissions v2 policy reads: the calling key's project and environment only (writes are the console's and the CLI's). */
export function policyRoutes(policies: PolicyService): RouteDef[] {
  return defineRoutes([
    {
      method: 'get',
      path: '/v1/permissions-v2/policies',
      operationId: 'listPolicies',
      summary: 'Active policies within their effective window (drafts and inactive versions excluded)',
      tag: 'Permissions',
      responses: { 200: { description: 'The active policies', schema: policyListSchema } },
      handler: async ({ caller }) => ({ status: 200, body: await policies.list(policyScopeOfCaller(caller)) }),
    },
    {
      method: 'get',
      path: '/v1/permissions-v2/policies/{policyId}',
      operationId: 'getPolicy',
      summary: 'One active policy',
      tag: 'Permissions',
      responses: { 200: { description: 'The policy', schema: policyViewSchema } },
      handler: async ({ caller, params }) => ({ status: 200, body: await policies.get(policyScopeOfCaller(caller), params.policyId!) }),
    },
    {
      method: 'get',
      path: '/v1/permissions-v2/policies/{policyId}/versions',
      operationId: 'listPolicyVersions',
      summary: 'Versions of a policy that are or were active, newest first',
      tag: 'Permissions',
      responses: { 200: { description: 'The versions', schema: policyVersionsSchema } },
      handler: async ({ caller, params }) => ({ status: 200, body: await policies.versions(policyScopeOfCaller(caller), params.policyId!) }),
    },
  ]);
}
