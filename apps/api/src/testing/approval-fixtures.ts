import { expect } from 'vitest';
import { parsePolicyDocument } from '@wallet/domain';
import { runCommand } from '../cli/commands.ts';
import type { TestApp } from './harness.ts';
import { DEAD, EVM_CHAIN, EVM_FEES, examplePolicy, guardrail } from './policy-fixtures.ts';
import { assignmentsPath, scopeProject, walletScopePath } from './scope-fixtures.ts';

export const casesPath = '/v1/permissions-v2/approval-cases';
export const casePath = (caseId: string) => `${casesPath}/${caseId}`;

/** Above evm-approvals.json's 0.001 ETH threshold; `SMALL` is below it. */
export const LARGE = '2000000000000000';
export const SMALL = '1000';

/** Two stages: two `finance` approvals, then one `executive` (a second policy document of our own). */
export function twoStagePolicy(id = 'two-stage', version = '1') {
  return {
    ...guardrail(id, 'EVM', [
      {
        id: 'large',
        effect: 'require_approval',
        actions: 'all',
        condition: { fact: 'request.value.baseUnits', op: 'gt', value: '1000000000000000' },
        approvalRequirement: {
          id: 'finance-then-exec',
          expiresIn: '2h',
          stages: [
            { id: 'finance', eligibility: { roles: ['finance'] }, requiredApprovals: 2 },
            { id: 'executive', eligibility: { roles: ['executive'] }, requiredApprovals: 1 },
          ],
        },
      },
    ], { chainId: [String(EVM_CHAIN)] }),
    version,
  };
}

/** ERC-20 transfers above `threshold` base units on the local chain need one `finance` approval (sponsored transfer tests). */
export function tokenReviewPolicy(threshold: string) {
  return guardrail(
    'usdc-review',
    'EVM',
    [
      {
        id: 'large-usdc',
        effect: 'require_approval',
        actions: ['transfer'],
        condition: { fact: 'request.token.value.baseUnits', op: 'gt', value: threshold },
        approvalRequirement: { id: 'finance-approval', expiresIn: '2h', stages: [{ id: 'finance', eligibility: { roles: ['finance'] }, requiredApprovals: 1 }] },
      },
    ],
    { chainId: [String(EVM_CHAIN)] },
  );
}

/** The configurable value of evm-approvals.json. */
export const FINANCE_APPROVALS = 'finance.requiredApprovals';

/** The requirement of evm-approvals.json as the requirement routes list it. */
export const evmApprovalsRequirement = {
  policyId: 'evm-approvals',
  policyVersion: '1',
  ruleId: 'large',
  requirementId: 'finance-approval',
  stages: [{ id: 'finance', eligibility: { roles: ['finance'], attributes: {} }, requiredApprovals: 1 }],
  configurable: [{ key: FINANCE_APPROVALS, min: 1, max: 3, default: 1 }],
};

/** A role, or an attribute with its value. */
type Held = string | { attribute: string; value: string };

/**
 * A project with the extension enabled, `policy` applied (default: evm-approvals.json as
 * written), an EVM wallet bound to scope `org-1` (unless `bind: false`), and helpers to sign over
 * REST, make users with roles, and decide through the users CLI's commands. `partner`: a new
 * project of that partner (console staff of it see the cases).
 */
export async function approvalsProject(app: TestApp, options: { policy?: unknown; bind?: boolean; enable?: boolean; partner?: string } = {}) {
  const project = await scopeProject(app, options.partner !== undefined ? { partner: options.partner } : {});
  if (options.enable !== false) await project.enable();
  const applied = await project.apply(options.policy ?? examplePolicy('evm-approvals.json'));
  expect(applied).toBeTruthy();
  const wallet = await project.wallet('EVM');
  if (options.bind !== false) {
    const bound = await project.put(walletScopePath(wallet.id), { expectedRevision: 0, authorizationScopeId: 'org-1' });
    expect(bound.status, JSON.stringify(bound.body)).toBe(200);
  }
  const revisions = new Map<string, number>();
  return {
    ...project,
    wallet,
    /** Another wallet of the project (unbound). */
    newWallet: project.wallet,
    /** A user with these roles (a string) and attributes in `org-1` (an assignment write: open cases of the scope are invalidated). */
    async member(roles: Held[], scopeId = 'org-1'): Promise<string> {
      const userId = await project.user();
      if (roles.length > 0) await this.assign(userId, roles, scopeId);
      return userId;
    },
    async assign(userId: string, roles: Held[], scopeId = 'org-1') {
      const expectedRevision = revisions.get(`${scopeId}|${userId}`) ?? 0;
      const assignments = roles.map((held) => (typeof held === 'string' ? { role: held } : held));
      const written = await project.put(assignmentsPath(scopeId, userId), { expectedRevision, assignments });
      expect(written.status, JSON.stringify(written.body)).toBe(200);
      revisions.set(`${scopeId}|${userId}`, written.body.revision as number);
    },
    /** EVM sign-transaction over REST on chain 84532 (no chain needed). */
    sign(value: string, headers: Record<string, string> = {}, extra: Record<string, unknown> = {}, nonce = 0) {
      return project.post(`/v1/wallets/${wallet.id}/sign-transaction`, { transaction: { to: DEAD, value, chainId: EVM_CHAIN, type: 2, nonce, ...EVM_FEES }, ...extra }, headers);
    },
    getCase: (caseId: string) => project.get(casePath(caseId)),
    cancel: (caseId: string) => project.post(`${casePath(caseId)}/cancel`, undefined),
    async signatures(): Promise<number> {
      return app.database.prisma.auditLog.count({ where: { walletId: wallet.id, action: { startsWith: 'wallet.sign' } } });
    },
  };
}

export type ApprovalsProject = Awaited<ReturnType<typeof approvalsProject>>;

/** `users -- approve|reject --case-id --user-id`, as the CLI runs it: the case view, or the refusal's error body. */
export async function decide(app: TestApp, verb: 'approve' | 'reject', caseId: string, userId: string): Promise<{ ok: true; body: any } | { ok: false; status: number; body: any }> {
  try {
    return { ok: true, body: await runCommand(app.services, `users.${verb}`, { caseId, userId }) };
  } catch (error) {
    const e = error as { status?: number; toBody?: () => unknown };
    if (typeof e.toBody !== 'function') throw error;
    return { ok: false, status: e.status!, body: e.toBody() };
  }
}

export const requirementPath = (scopeId: string, policyId = 'evm-approvals', version = '1', requirementId = 'finance-approval') =>
  `/v1/permissions-v2/authorization-scopes/${encodeURIComponent(scopeId)}/policies/${policyId}/versions/${version}/requirements/${requirementId}`;
export const configurationPath = (scopeId: string, version = '1') => `${requirementPath(scopeId, 'evm-approvals', version)}/configuration`;
export const requirementsPath = (scopeId: string) => `/v1/permissions-v2/authorization-scopes/${encodeURIComponent(scopeId)}/requirements`;

/**
 * Stores a require_approval policy document in the project and environment straight through the
 * policy store (no HTTP round trip, no actor): a first version, or the next one of the same id.
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
 * A scope project (scopeProject) with `storeApproval`, which stores a require_approval document
 * (by default the fixed point ../shared/spec/policy-examples/evm-approvals.json) with `storeApprovalPolicy`.
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

export const reviewsPath = '/v1/permissions-v2/reviews';
export const reviewPath = (reviewId: string) => `${reviewsPath}/${reviewId}`;

/**
 * A partner review policy: values above 0.001 ETH on chain 84532 need the app's approval (a
 * require_approval rule without approvalRequirement); `extraRules` are added after it.
 */
export function partnerReviewPolicy(id = 'partner-review', extraRules: unknown[] = []) {
  return guardrail(
    id,
    'EVM',
    [{ id: 'review-large', effect: 'require_approval', actions: 'all', condition: { fact: 'request.value.baseUnits', op: 'gt', value: '1000000000000000' } }, ...extraRules],
    { chainId: [String(EVM_CHAIN)] },
  );
}
