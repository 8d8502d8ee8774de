import type { RouteExamples } from '../http/route.ts';
import { apiKeyActor, authorizationScopeId, onlyPage, recordedByApiKey } from './example-values.ts';

/** The path parameters that name one requirement of an active policy version. */
const requirementParameters = { authorizationScopeId, policyId: 'evm-approvals', policyVersion: '1', requirementId: 'finance-approval' };
const configuredValues = { 'finance.requiredApprovals': 2 };

const financeStage = { id: 'finance', eligibility: { roles: ['finance'], attributes: {} }, requiredApprovals: 1 };

/** The finance approval the evm-approvals policy asks of large transfers, as the policy declares it. */
const requirement = {
  policyId: 'evm-approvals',
  policyVersion: '1',
  ruleId: 'large',
  requirementId: 'finance-approval',
  stages: [financeStage],
  configurable: [{ key: 'finance.requiredApprovals', min: 1, max: 3, default: 1 }],
};

/** Revision 1 of the stored configuration: two finance approvals instead of one. */
const configurationRevision = {
  revision: 1,
  values: configuredValues,
  updatedAt: '2026-11-25T07:14:03.120Z',
  updatedBy: apiKeyActor,
};
const configuration = { ...requirementParameters, ...configurationRevision };

/** Request and response examples of the approval-configurations routes, by operationId (openapi-examples.test.ts validates them). */
export const approvalConfigurationsExamples = {
  listApprovalRequirements: {
    response: {
      200: { summary: 'The requirements', value: { requirements: [requirement] } },
    },
    request: { summary: 'Approval requirements of a scope', parameters: { authorizationScopeId } },
  },
  getApprovalRequirement: {
    response: {
      200: { summary: 'The requirement', value: requirement },
    },
    request: { summary: 'One approval requirement of an active policy version', parameters: requirementParameters },
  },
  getApprovalConfiguration: {
    response: {
      200: { summary: 'The configuration', value: configuration },
    },
    request: { summary: "A requirement's stored configuration", parameters: requirementParameters },
  },
  getEffectiveApprovalRequirement: {
    response: {
      200: {
        summary: 'The effective requirement',
        value: {
          authorizationScopeId,
          ...requirement,
          stages: [{ ...financeStage, requiredApprovals: 2 }],
          values: configuredValues,
          configuration: configurationRevision,
        },
      },
    },
    request: { summary: 'A requirement with its configuration applied', parameters: requirementParameters },
  },
  putApprovalConfiguration: {
    response: {
      200: { summary: 'The new configuration and its revision', value: { ...configuration, invalidatedCaseIds: [] } },
    },
    request: {
      summary: 'Configure a requirement',
      body: { expectedRevision: 0, values: configuredValues },
      parameters: requirementParameters,
    },
  },
  listApprovalConfigurationHistory: {
    response: {
      200: {
        summary: 'A page of revisions',
        value: { data: [{ revision: 1, values: configuredValues, ...recordedByApiKey }], pagination: onlyPage(50) },
      },
    },
    request: { summary: 'Configuration revisions, newest first', parameters: requirementParameters },
  },
} satisfies Record<string, RouteExamples>;
