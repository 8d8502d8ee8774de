import { parsePolicyDocument, type RequirementRef } from '@wallet/domain';
import type { TestApp } from './harness.ts';
import { examplePolicy } from './policy-fixtures.ts';
import { scopeProject } from './scope-fixtures.ts';

export const requirementPath = (scopeId: string, policyId = 'evm-approvals', version = '1', requirementId = 'finance-approval') =>
  `/v1/permissions-v2/authorization-scopes/${encodeURIComponent(scopeId)}/policies/${policyId}/versions/${version}/requirements/${requirementId}`;
export const configurationPath = (scopeId: string, version = '1') => `${requirementPath(scopeId, 'evm-approvals', version)}/configuration`;
export const requirementsPath = (scopeId: string) => `/v1/permissions-v2/authorization-scopes/${encodeURIComponent(scopeId)}/requirements`;

/**
 * Stores a require_approval policy document in the project and environment through the policy
 * store, as the service would (it refuses them at authoring until the approval cases land): a
 * first version, or the next one of the same id.
 */
export async function storeApprovalPolicy(app: TestApp, at: { projectId: string; environment: 'development' | 'production' }, document: unknown = examplePolicy('evm-approvals.json')) {
  const parsed = parsePolicyDocument(document);
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.problems));
  const doc = parsed.document;
  return app.services.stores.policies.apply(
    at,
    { policyId: doc.id, walletType: doc.selector.walletType, document: doc, effectiveFrom: null, effectiveUntil: null, createdAt: new Date(), createdBy: { type: 'operator', id: null } },
    (version) => ({ projectId: at.projectId, apiKeyId: null, walletId: null, requestId: null, action: 'policy.apply', details: { policyId: version.policyId, version: version.version } }),
  );
}

/**
 * A scope project (scopeProject) that can store require_approval policies. The policy service
 * still refuses them at authoring until the approval cases land, so `storeApproval` stores the
 * document (as the fixed point is accepted, ../shared/spec/policy-examples) with `storeApprovalPolicy`.
 */
export async function approvalProject(app: TestApp) {
  const project = await scopeProject(app);
  const at = { projectId: project.projectId, environment: project.environment };
  return {
    ...project,
    storeApproval: (document: unknown = examplePolicy('evm-approvals.json')) => storeApprovalPolicy(app, at, document),
  };
}

export type ApprovalProject = Awaited<ReturnType<typeof approvalProject>>;

/**
 * Open approval cases by scope for the cases port of one app, standing in for the approval_cases
 * table (another slice): `open(scopeId, ids)` makes cases open, `calls` records what the
 * configuration write asked and invalidated. `restore()` puts the real port back.
 */
export function openCases(app: TestApp) {
  const links = app.services.stores.approvalCaseLinks;
  const original = { ...links };
  const byScope = new Map<string, string[]>();
  const calls: { asked: Array<{ scopeId: string; ref: RequirementRef; inTransaction: boolean }>; invalidated: string[][] } = { asked: [], invalidated: [] };
  links.openCasesOf = async (_at, scopeId, ref, tx) => {
    calls.asked.push({ scopeId, ref, inTransaction: tx !== undefined });
    return byScope.get(scopeId) ?? [];
  };
  links.invalidateCases = async (_tx, _at, ids) => {
    calls.invalidated.push(ids);
    for (const [scopeId, open] of byScope) byScope.set(scopeId, open.filter((id) => !ids.includes(id)));
  };
  return {
    calls,
    open: (scopeId: string, ids: string[]) => void byScope.set(scopeId, ids),
    restore: () => void Object.assign(links, original),
  };
}
