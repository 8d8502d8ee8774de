import {
  approvalConfigurationHistorySchema,
  approvalConfigurationSchema,
  approvalConfigurationWriteSchema,
  approvalRequirementSchema,
  approvalRequirementsSchema,
  configurationBody,
  effectiveRequirementSchema,
  errorBodies,
  revisionListQuery,
  type ApprovalConfigurationService,
  type RequirementPath,
} from '@wallet/domain';
import { defineRoutes, type RouteDef } from '../http/route.ts';
import { approvalConfigurationsExamples } from './approval-configurations-examples.ts';

const scope = '/v1/permissions-v2/authorization-scopes/{authorizationScopeId}';
const requirement = `${scope}/policies/{policyId}/versions/{policyVersion}/requirements/{requirementId}`;
const configuration = `${requirement}/configuration`;
const gated = {
  description: '403 PERMISSIONS_V2_EXTENSION_UNAVAILABLE until the extension is enabled for the project and environment',
  errors: [errorBodies.permissionsExtensionUnavailable],
};
const missing = 'NOT_FOUND: no such requirement in that policy version (or the version is not the active one)';

const pathOf = (params: Record<string, string>): RequirementPath => ({
  authorizationScopeId: params.authorizationScopeId!,
  policyId: params.policyId!,
  policyVersion: params.policyVersion!,
  requirementId: params.requirementId!,
});

/** Approval requirements of a scope and their configuration (permissions v2), for the calling key's project and environment. */
export function approvalConfigurationRoutes(configurations: ApprovalConfigurationService): RouteDef[] {
  return defineRoutes([
    {
      method: 'get',
      path: `${scope}/requirements`,
      operationId: 'listApprovalRequirements',
      pathNamesNoObject: true,
      examples: approvalConfigurationsExamples.listApprovalRequirements,
      summary: 'Approval requirements of a scope',
      description: 'Every approval requirement of the active policies in the authorization scope, with its stages and the values it lets a partner configure (key, bounds, default).',
      tag: 'Permissions',
      responses: { 200: { description: 'The requirements', schema: approvalRequirementsSchema } },
      handler: async ({ caller, params }) => ({ status: 200, body: await configurations.list(caller, params.authorizationScopeId!) }),
    },
    {
      method: 'get',
      path: requirement,
      operationId: 'getApprovalRequirement',
      examples: approvalConfigurationsExamples.getApprovalRequirement,
      summary: 'One approval requirement of an active policy version',
      description: 'The requirement as its active policy version declares it; a version that is not the active one is 404.',
      tag: 'Permissions',
      responses: { 200: { description: 'The requirement', schema: approvalRequirementSchema }, 404: { description: missing } },
      handler: async ({ caller, params }) => ({ status: 200, body: await configurations.get(caller, pathOf(params)) }),
    },
    {
      method: 'get',
      path: configuration,
      operationId: 'getApprovalConfiguration',
      examples: approvalConfigurationsExamples.getApprovalConfiguration,
      summary: "A requirement's stored configuration",
      description: 'The configured values of the requirement in the scope and their revision; 404 before the first write (the effective requirement shows the defaults).',
      tag: 'Permissions',
      responses: { 200: { description: 'The configuration', schema: approvalConfigurationSchema }, 404: { description: 'NOT_FOUND: never configured, or no such requirement' } },
      handler: async ({ caller, params }) => ({ status: 200, body: await configurations.getConfiguration(caller, pathOf(params)) }),
    },
    {
      method: 'get',
      path: `${configuration}/effective`,
      operationId: 'getEffectiveApprovalRequirement',
      examples: approvalConfigurationsExamples.getEffectiveApprovalRequirement,
      summary: 'A requirement with its configuration applied',
      description: 'The requirement with its configured values applied, or with its defaults and `configuration: null` before the first write.',
      tag: 'Permissions',
      responses: { 200: { description: 'The effective requirement', schema: effectiveRequirementSchema }, 404: { description: missing } },
      handler: async ({ caller, params }) => ({ status: 200, body: await configurations.effective(caller, pathOf(params)) }),
    },
    {
      method: 'put',
      path: configuration,
      operationId: 'putApprovalConfiguration',
      examples: approvalConfigurationsExamples.putApprovalConfiguration,
      summary: 'Configure a requirement',
      description: 'Sets the configurable values (`values: {}` resets to the defaults); each must be a declared key with an integer within its bounds. `expectedRevision` must be the current revision (0 before the first write); a stale one is 409 `CONFLICT` with `currentRevision`, and nothing is written. A change that would alter open approval cases is 409 `APPROVAL_CASES_AFFECTED` unless resent with `force: true`. While the permissions v2 extension is off for the project and environment, it answers 403 `PERMISSIONS_V2_EXTENSION_UNAVAILABLE` before any other check.',
      tag: 'Permissions',
      body: configurationBody,
      responses: {
        200: { description: 'The new configuration and its revision', schema: approvalConfigurationWriteSchema },
        400: { description: 'INVALID_REQUEST: an undeclared key, or a value that is not an integer within its bounds (details name each)' },
        403: gated,
        404: { description: missing },
        409: {
          description: 'CONFLICT (expectedRevision missing or stale, body has currentRevision) or APPROVAL_CASES_AFFECTED (open cases would change; resend with force: true); nothing written',
          errors: [errorBodies.approvalCasesAffected],
        },
      },
      handler: async ({ caller, params, body }) => ({ status: 200, body: await configurations.put(caller, pathOf(params), body) }),
    },
    {
      method: 'get',
      path: `${configuration}/history`,
      operationId: 'listApprovalConfigurationHistory',
      examples: approvalConfigurationsExamples.listApprovalConfigurationHistory,
      summary: 'Configuration revisions, newest first',
      description: "Every revision of the requirement's configuration in the scope: who wrote it, when, and the values.",
      tag: 'Permissions',
      query: revisionListQuery,
      responses: { 200: { description: 'A page of revisions', schema: approvalConfigurationHistorySchema } },
      handler: async ({ caller, params, query }) => ({ status: 200, body: await configurations.history(caller, pathOf(params), query) }),
    },
  ]);
}
