import {
  delegationConsentListSchema,
  delegationConsentSchema,
  delegationWalletQuery,
  userParameterHistoryQuery,
  userParameterHistorySchema,
  userParameterListQuery,
  userParameterListSchema,
  userParametersSchema,
  type DelegationService,
  errorBodies,
} from '@wallet/domain';
import { defineRoutes, type RouteDef } from '../http/route.ts';
import { userPermissionsExamples } from './user-permissions-examples.ts';

const consents = '/v1/permissions-v2/users/{userId}/delegation-consents';
const parameters = '/v1/permissions-v2/users/{userId}/user-parameters';
const gated = {
  description: '403 PERMISSIONS_V2_EXTENSION_UNAVAILABLE until the extension is enabled for the project and environment',
  errors: [errorBodies.permissionsExtensionUnavailable],
};
const missing = 'NOT_FOUND: the user, or the wallet among those the user claimed, or the active policy (another partner\'s = missing)';

/**
 * The user side of permissions v2 as partners see it: delegation consents and user-adjustable
 * parameter values, read-only (only the user consents or saves values: the users CLI here).
 */
export function userPermissionRoutes(delegation: DelegationService): RouteDef[] {
  return defineRoutes([
    {
      method: 'get',
      path: consents,
      operationId: 'listUserPolicyConsents',
      examples: userPermissionsExamples.listUserPolicyConsents,
      summary: "A user's delegation consents for a wallet",
      description: "Every active delegation policy applying to the user's wallet with the user's consent state (empty when none). Read-only: only the user consents.",
      tag: 'Permissions',
      query: delegationWalletQuery,
      responses: { 200: { description: '`{requests: [{policy, consent}]}`', schema: delegationConsentListSchema }, 404: { description: missing } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await delegation.listConsents(caller, params.userId!, query) }),
    },
    {
      method: 'get',
      path: `${consents}/{policyId}`,
      operationId: 'getUserPolicyConsent',
      examples: userPermissionsExamples.getUserPolicyConsent,
      summary: "A user's consent to one delegation policy",
      description: "The current consent state of the delegation policy for the user's wallet. Read-only: only the user consents.",
      tag: 'Permissions',
      query: delegationWalletQuery,
      responses: { 200: { description: '`{policy, consent}`', schema: delegationConsentSchema }, 404: { description: missing } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await delegation.getConsent(caller, params.userId!, params.policyId!, query) }),
    },
    {
      method: 'get',
      path: parameters,
      operationId: 'listUserAdjustablePolicies',
      examples: userPermissionsExamples.listUserAdjustablePolicies,
      summary: 'Delegation policies with adjustable limits',
      description: "The delegation policies with user-adjustable parameters on the user's wallets (or on the wallet given). While the permissions v2 extension is off for the project and environment, it answers 403 `PERMISSIONS_V2_EXTENSION_UNAVAILABLE` before any other check.",
      tag: 'Permissions',
      query: userParameterListQuery,
      responses: { 200: { description: '`{policies: [...]}`', schema: userParameterListSchema }, 403: gated, 404: { description: missing } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await delegation.listParameterPolicies(caller, params.userId!, query) }),
    },
    {
      method: 'get',
      path: `${parameters}/{policyId}`,
      operationId: 'getUserPolicyParameters',
      examples: userPermissionsExamples.getUserPolicyParameters,
      summary: "A user's parameter values for a policy",
      description: "The policy's parameter declarations, the values the user saved and their revision (0 before the first save). Read-only: only the user saves values. While the permissions v2 extension is off for the project and environment, it answers 403 `PERMISSIONS_V2_EXTENSION_UNAVAILABLE` before any other check.",
      tag: 'Permissions',
      query: delegationWalletQuery,
      responses: { 200: { description: 'The parameters', schema: userParametersSchema }, 403: gated, 404: { description: missing } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await delegation.getParameters(caller, params.userId!, params.policyId!, query) }),
    },
    {
      method: 'get',
      path: `${parameters}/{policyId}/history`,
      operationId: 'listUserPolicyParameterHistory',
      examples: userPermissionsExamples.listUserPolicyParameterHistory,
      summary: 'Saved parameter revisions, newest first',
      description: "Every saved revision of the user's values: when, under which policy version, and every value. While the permissions v2 extension is off for the project and environment, it answers 403 `PERMISSIONS_V2_EXTENSION_UNAVAILABLE` before any other check.",
      tag: 'Permissions',
      query: userParameterHistoryQuery,
      responses: { 200: { description: 'A page of revisions', schema: userParameterHistorySchema }, 403: gated, 404: { description: missing } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await delegation.parameterHistory(caller, params.userId!, params.policyId!, query) }),
    },
  ]);
}
