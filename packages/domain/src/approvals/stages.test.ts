import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import type { ApprovalRequirementMatch } from '../signing/pipeline.ts';
import type { ApprovalCaseRecord } from './ports.ts';
import { partnerReviewStatus } from './reviews.ts';
import { heldAssignments, ineligibility, lazyTransition, planDecision, planPartnerDecision, sameRequirements, snapshotStages, stageProgress, type HeldAssignments } from './stages.ts';

const at = (minute: number) => new Date(Date.UTC(2026, 0, 1, 0, minute));
const match = (requirementId: string, stages: ApprovalRequirementMatch['stages'], policyVersion = '1'): ApprovalRequirementMatch => ({
  policyId: 'p',
  policyVersion,
  ruleId: `rule-${requirementId}`,
  requirementId,
  stages,
  expiresInMs: 3_600_000,
});

function caseWith(overrides: Partial<ApprovalCaseRecord> = {}): ApprovalCaseRecord {
  return {
    id: '11111111-1111-4111-8111-111111111111',
    projectId: 'project',
    environment: 'development',
    walletId: 'wallet',
    apiKeyId: 'key',
    caseKey: 'k',
    idempotencyKey: 'k',
    requestHash: 'h',
    requirements: [{ policyId: 'p', policyVersion: '1', ruleId: 'r', requirementId: 'req' }],
    scopeId: 'org',
    bindingRevision: 1,
    stages: [
      { id: 'finance', requirementId: 'req', roles: ['finance'], attributes: {}, requiredApprovals: 2 },
      { id: 'executive', requirementId: 'req', roles: ['executive'], attributes: {}, requiredApprovals: 1 },
    ],
    partnerReview: false,
    partnerDecision: null,
    status: 'pending',
    terminalReason: null,
    initiatorUserId: 'initiator',
    request: { action: 'wallet.sign.sign-transaction', operation: 'transaction', chain: { walletType: 'EVM', chainId: '84532', network: null }, transfer: null },
    expiresAt: at(60),
    createdAt: at(0),
    completedAt: null,
    consumedAt: null,
    rejectedAt: null,
    expiredAt: null,
    invalidatedAt: null,
    cancelledAt: null,
    decisions: [],
    ...overrides,
  };
}

const refusal = (run: () => unknown): ApiError => {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a refusal');
};

describe('approval stages', () => {
  it('snapshots stages in requirement order, applies configured requiredApprovals and qualifies shared stage ids', () => {
    const stages = snapshotStages(
      [match('a', [{ id: 'finance', roles: ['finance'], attributes: {}, requiredApprovals: 1 }]), match('b', [{ id: 'finance', roles: ['cfo'], attributes: {}, requiredApprovals: 1 }, { id: 'legal', roles: ['legal'], attributes: {}, requiredApprovals: 2 }])],
      [{ 'finance.requiredApprovals': 3 }, null],
    );
    expect(stages).toEqual([
      { id: 'a.finance', requirementId: 'a', roles: ['finance'], attributes: {}, requiredApprovals: 3 },
      { id: 'b.finance', requirementId: 'b', roles: ['cfo'], attributes: {}, requiredApprovals: 1 },
      { id: 'legal', requirementId: 'b', roles: ['legal'], attributes: {}, requiredApprovals: 2 },
    ]);
    // A configured value that is no positive integer is ignored.
    expect(snapshotStages([match('a', [{ id: 's', roles: ['r'], attributes: {}, requiredApprovals: 2 }])], [{ 's.requiredApprovals': 0 }])[0]!.requiredApprovals).toBe(2);
  });

  it('advances stages in order: two finance approvals, then one executive completes the case', () => {
    const roles = (...r: string[]) => heldAssignments(r.map((role) => ({ role })));
    let record = caseWith();
    const apply = (userId: string, decision: 'approve' | 'reject', held: HeldAssignments, minute: number) => {
      const plan = planDecision(record, userId, decision, held, at(minute));
      record = { ...record, decisions: [...record.decisions, plan.decision], status: plan.status ?? record.status };
      return plan;
    };
    // An executive cannot act before the finance stage is done.
    expect(refusal(() => planDecision(record, 'e1', 'approve', roles('executive'), at(1)))).toMatchObject({ status: 403, code: 'FORBIDDEN' });
    expect(apply('f1', 'approve', roles('finance'), 1)).toEqual({ decision: { stageId: 'finance', userId: 'f1', decision: 'approve', createdAt: at(1) }, status: null });
    expect(refusal(() => planDecision(record, 'f1', 'approve', roles('finance'), at(2)))).toMatchObject({ status: 409 });
    expect(refusal(() => planDecision(record, 'initiator', 'approve', roles('finance'), at(2)))).toMatchObject({ status: 403, code: 'INITIATOR_CANNOT_REVIEW' });
    expect(apply('f2', 'approve', roles('finance', 'executive'), 2).status).toBeNull();
    const progress = stageProgress(record.stages, record.decisions);
    expect(progress.current).toBe(1);
    expect(progress.stages[0]!.completedAt).toEqual(at(2));
    // f2 decided already, even though it holds the executive role.
    expect(refusal(() => planDecision(record, 'f2', 'approve', roles('executive'), at(3)))).toMatchObject({ status: 409 });
    expect(apply('e1', 'approve', roles('executive'), 3)).toMatchObject({ decision: { stageId: 'executive' }, status: 'completed' });
    expect(stageProgress(record.stages, record.decisions).current).toBeNull();
    expect(refusal(() => planDecision(record, 'e2', 'approve', roles('executive'), at(4)))).toMatchObject({ status: 409, extra: { status: 'completed' } });
  });

  it('a reject by an eligible user rejects; an ineligible one, an expired or ended case refuse', () => {
    expect(planDecision(caseWith(), 'f1', 'reject', heldAssignments([{ role: 'finance' }]), at(1))).toMatchObject({ status: 'rejected', decision: { decision: 'reject', stageId: 'finance' } });
    expect(refusal(() => planDecision(caseWith(), 'x', 'reject', heldAssignments([{ role: 'auditor' }]), at(1)))).toMatchObject({ status: 403 });
    expect(refusal(() => planDecision(caseWith(), 'f1', 'approve', heldAssignments([{ role: 'finance' }]), at(60)))).toMatchObject({ status: 409, extra: { status: 'expired' } });
    expect(refusal(() => planDecision(caseWith({ status: 'cancelled' }), 'f1', 'approve', heldAssignments([{ role: 'finance' }]), at(1)))).toMatchObject({ extra: { status: 'cancelled' } });
  });

  it('attribute eligibility: every attribute named must hold with an accepted value, next to one of the roles when roles are named', () => {
    const stage = { roles: ['finance'], attributes: { region: ['eu', 'uk'] } };
    expect(ineligibility(stage, heldAssignments([{ role: 'finance' }, { attribute: 'region', value: 'uk' }]))).toBeNull();
    expect(ineligibility(stage, heldAssignments([{ role: 'finance' }, { attribute: 'region', value: 'us' }]))).toBe('attribute region is not one of eu, uk');
    expect(ineligibility(stage, heldAssignments([{ attribute: 'region', value: 'eu' }]))).toBe('holds none of its roles (finance)');
    // Attributes alone: any role.
    expect(ineligibility({ roles: [], attributes: { region: ['eu'] } }, heldAssignments([{ attribute: 'region', value: 'eu' }]))).toBeNull();
    expect(ineligibility({ roles: [], attributes: { region: ['eu'], desk: ['fx'] } }, heldAssignments([{ attribute: 'region', value: 'eu' }]))).toBe('attribute desk is not one of fx');
    // A case opened before attributes existed has none.
    expect(ineligibility({ roles: ['finance'] }, heldAssignments([{ role: 'finance' }]))).toBeNull();
  });

  it('refreshes lazily: expiry at expiresAt first, then a policy version no longer active; ended cases stay', () => {
    const active = new Set(['p|1']);
    expect(lazyTransition(caseWith(), at(59), active)).toBeNull();
    expect(lazyTransition(caseWith({ status: 'completed' }), at(61), active)).toEqual({ to: 'expired', at: at(60), reason: 'case_expired' });
    expect(lazyTransition(caseWith(), at(10), new Set(['p|2']))).toEqual({ to: 'invalidated', at: at(10), reason: 'policy_changed' });
    expect(lazyTransition(caseWith({ status: 'consumed' }), at(90), new Set())).toBeNull();
    expect(sameRequirements(caseWith().requirements, [{ policyId: 'p', policyVersion: '1', ruleId: 'r', requirementId: 'req' }])).toBe(true);
    expect(sameRequirements(caseWith().requirements, [{ policyId: 'p', policyVersion: '2', ruleId: 'r', requirementId: 'req' }])).toBe(false);
  });
});

describe('partner reviews', () => {
  const key = { type: 'api_key', id: 'key' } as const;
  const partnerOnly = (overrides: Partial<ApprovalCaseRecord> = {}) => caseWith({ partnerReview: true, stages: [], scopeId: null, bindingRevision: null, ...overrides });

  it('the app\'s approve completes a case without user stages; reject ends it; the first decision is final', () => {
    expect(planPartnerDecision(partnerOnly(), 'approve', key, at(1))).toEqual({ decision: { decision: 'approve', decidedAt: at(1), decidedBy: key }, status: 'completed' });
    expect(planPartnerDecision(partnerOnly(), 'reject', key, at(1))).toMatchObject({ status: 'rejected' });
    const decided = partnerOnly({ partnerDecision: { decision: 'approve', decidedAt: at(1), decidedBy: key } });
    expect(planPartnerDecision(decided, 'reject', key, at(2))).toBeNull();
    expect(planPartnerDecision(partnerOnly({ status: 'rejected' }), 'approve', key, at(2))).toBeNull();
    expect(planPartnerDecision(partnerOnly(), 'approve', key, at(60))).toBeNull();
    expect(planPartnerDecision(caseWith(), 'approve', key, at(1))).toBeNull();
  });

  it('with user stages too: the app\'s approve waits for the stages, and the last stage approval waits for the app', () => {
    const mixed = caseWith({ partnerReview: true, stages: [{ id: 'finance', requirementId: 'req', roles: ['finance'], attributes: {}, requiredApprovals: 1 }] });
    expect(planPartnerDecision(mixed, 'approve', key, at(1))).toMatchObject({ status: null });
    expect(planDecision(mixed, 'u1', 'approve', heldAssignments([{ role: 'finance' }]), at(1))).toMatchObject({ status: null });
    const approved = { ...mixed, partnerDecision: { decision: 'approve' as const, decidedAt: at(1), decidedBy: key } };
    expect(planDecision(approved, 'u1', 'approve', heldAssignments([{ role: 'finance' }]), at(2))).toMatchObject({ status: 'completed' });
    expect(partnerReviewStatus(approved)).toBe('approved');
    expect(partnerReviewStatus(mixed)).toBe('pending');
    const staged = { ...mixed, decisions: [{ stageId: 'finance', userId: 'u1', decision: 'approve' as const, createdAt: at(1) }] };
    expect(planPartnerDecision(staged, 'approve', key, at(2))).toMatchObject({ status: 'completed' });
    // Users never decide a partner-only case, nor a case whose stages are all complete.
    expect(() => planDecision(partnerOnly(), 'u1', 'approve', heldAssignments([]), at(1))).toThrow(/partner review/);
    expect(() => planDecision(staged, 'u2', 'approve', heldAssignments([{ role: 'finance' }]), at(2))).toThrow(/waits for the partner review/);
  });
});
