/**
 * The pure part of approval cases: the stage snapshot taken when a case opens, how decisions
 * advance its stages (in order), the lazy status refresh, and the view partners read.
 */
import { ApiError, conflict, forbidden } from '../errors.ts';
import type { ApprovalRequirementMatch, ApprovalRequirementRef } from '../signing/pipeline.ts';
import type { ApprovalCaseRecord, ApprovalCaseStatus, ApprovalDecisionRecord, ApprovalStage, DecisionPlan, PartnerDecisionPlan, PartnerReviewer } from './ports.ts';
import { openStatuses } from './ports.ts';

/** A partner review rule's match (no approvalRequirement): no user stage, the app approves. */
export const isPartnerReview = (match: { stages: unknown[] }) => match.stages.length === 0;

const refKey = (r: ApprovalRequirementRef) => [r.policyId, r.policyVersion, r.ruleId, r.requirementId].join('|');

/** Whether two requirement lists name the same requirements (order aside). */
export function sameRequirements(a: ApprovalRequirementRef[], b: ApprovalRequirementRef[]): boolean {
  const left = new Set(a.map(refKey));
  return left.size === new Set(b.map(refKey)).size && b.every((r) => left.has(refKey(r)));
}

/**
 * The stages of every matched requirement, in policy and rule order then stage order; a stage's
 * `requiredApprovals` is the configured `stageId.requiredApprovals` when there is one. Stage ids
 * that two requirements share are qualified with the requirement id.
 */
export function snapshotStages(matches: ApprovalRequirementMatch[], configured: (Record<string, number> | null)[]): ApprovalStage[] {
  const counts = new Map<string, number>();
  for (const m of matches) for (const s of m.stages) counts.set(s.id, (counts.get(s.id) ?? 0) + 1);
  return matches.flatMap((m, i) =>
    m.stages.map((s) => {
      const value = configured[i]?.[`${s.id}.requiredApprovals`];
      return {
        id: (counts.get(s.id) ?? 0) > 1 ? `${m.requirementId}.${s.id}` : s.id,
        requirementId: m.requirementId,
        roles: [...s.roles],
        attributes: s.attributes,
        requiredApprovals: typeof value === 'number' && Number.isInteger(value) && value > 0 ? value : s.requiredApprovals,
      };
    }),
  );
}

export interface StageProgress {
  stage: ApprovalStage;
  approvals: ApprovalDecisionRecord[];
  /** When the stage reached its count (its last approval); null while it has not. */
  completedAt: Date | null;
}

/** Approvals per stage, and the first stage still short of its count (null: every stage is done). */
export function stageProgress(stages: ApprovalStage[], decisions: ApprovalDecisionRecord[]): { stages: StageProgress[]; current: number | null } {
  const progress = stages.map((stage) => {
    const approvals = decisions.filter((d) => d.stageId === stage.id && d.decision === 'approve');
    const done = approvals.length >= stage.requiredApprovals;
    return { stage, approvals, completedAt: done ? approvals[stage.requiredApprovals - 1]!.createdAt : null };
  });
  const current = progress.findIndex((p) => p.completedAt === null);
  return { stages: progress, current: current === -1 ? null : current };
}

/** What a user holds in a scope: roles, and attribute name -> values. */
export interface HeldAssignments {
  roles: ReadonlySet<string>;
  attributes: ReadonlyMap<string, ReadonlySet<string>>;
}

export function heldAssignments(assignments: ({ role: string } | { attribute: string; value: string })[]): HeldAssignments {
  const attributes = new Map<string, Set<string>>();
  for (const a of assignments) if ('attribute' in a) attributes.set(a.attribute, (attributes.get(a.attribute) ?? new Set()).add(a.value));
  return { roles: new Set(assignments.flatMap((a) => ('role' in a ? [a.role] : []))), attributes };
}

/** Why the user may not decide at this stage (null: eligible): one of its roles when it names roles, and every attribute it names with an accepted value. */
export function ineligibility(stage: Pick<ApprovalStage, 'roles' | 'attributes'>, held: HeldAssignments): string | null {
  if (stage.roles.length > 0 && !stage.roles.some((r) => held.roles.has(r))) return `holds none of its roles (${stage.roles.join(', ')})`;
  for (const [name, values] of Object.entries(stage.attributes ?? {})) {
    if (!values.some((v) => held.attributes.get(name)?.has(v))) return `attribute ${name} is not one of ${values.join(', ')}`;
  }
  return null;
}

/** A refused decision: 4xx with the case's status where it matters. */
const notPending = (status: ApprovalCaseStatus) => new ApiError(409, 'CONFLICT', `The case is ${status}; only a pending case takes decisions`, { status });

/**
 * What one user's approval or rejection writes on a (locked, refreshed) case. The user must hold
 * one of the current stage's roles (`roles`: their roles in the case's scope now), must not be
 * the initiator and must not have decided this case before; a reject by an eligible user ends
 * the case, the last approval of the last stage completes it.
 */
export function planDecision(record: ApprovalCaseRecord, userId: string, decision: 'approve' | 'reject', held: HeldAssignments, now: Date): DecisionPlan {
  if (record.status !== 'pending') throw notPending(record.status);
  if (now.getTime() >= record.expiresAt.getTime()) throw notPending('expired');
  if (record.initiatorUserId !== null && record.initiatorUserId.toLowerCase() === userId.toLowerCase()) {
    throw new ApiError(403, 'INITIATOR_CANNOT_REVIEW', 'The user who initiated the request cannot approve or reject its case');
  }
  if (record.decisions.some((d) => d.userId.toLowerCase() === userId.toLowerCase())) {
    throw conflict('This user has already decided this case; decisions are final');
  }
  const { stages, current } = stageProgress(record.stages, record.decisions);
  if (current === null) {
    throw conflict(record.stages.length === 0 ? 'This case is a partner review: the app approves it, no user decides' : 'Every stage of this case is complete; it waits for the partner review');
  }
  const stage = stages[current]!.stage;
  const missing = ineligibility(stage, held);
  if (missing) throw forbidden(`The user is not eligible for the current stage "${stage.id}" in authorization scope ${record.scopeId}: ${missing}`);
  const made: ApprovalDecisionRecord = { stageId: stage.id, userId, decision, createdAt: now };
  if (decision === 'reject') return { decision: made, status: 'rejected' };
  const after = stageProgress(record.stages, [...record.decisions, made]);
  return { decision: made, status: after.current === null && partnerSatisfied(record) ? 'completed' : null };
}

const partnerSatisfied = (record: ApprovalCaseRecord) => !record.partnerReview || record.partnerDecision?.decision === 'approve';

/**
 * What the app's approval or rejection of a partner review writes on a (locked) case: null (no
 * write) when the case has no partner review, is no longer pending, is past its expiry (a refresh
 * ends it) or was already decided by the app (the first decision is final). A reject ends the
 * case; an approve completes it once every user stage is complete too.
 */
export function planPartnerDecision(record: ApprovalCaseRecord, decision: 'approve' | 'reject', by: PartnerReviewer, now: Date): PartnerDecisionPlan | null {
  if (!record.partnerReview || record.partnerDecision || record.status !== 'pending') return null;
  if (now.getTime() >= record.expiresAt.getTime()) return null;
  const made = { decision, decidedAt: now, decidedBy: by };
  if (decision === 'reject') return { decision: made, status: 'rejected' };
  return { decision: made, status: stageProgress(record.stages, record.decisions).current === null ? 'completed' : null };
}

/**
 * The status a stored case has by now, if it moved without anyone writing it: an open case
 * past `expiresAt` expired then; one whose requirement's policy version is no longer active
 * was invalidated. `activeVersions`: `policyId|version` of the active policies.
 */
export function lazyTransition(record: ApprovalCaseRecord, now: Date, activeVersions: ReadonlySet<string>): { to: ApprovalCaseStatus; at: Date; reason: string } | null {
  if (!openStatuses.includes(record.status)) return null;
  if (now.getTime() >= record.expiresAt.getTime()) return { to: 'expired', at: record.expiresAt, reason: 'case_expired' };
  if (record.requirements.some((r) => !activeVersions.has(`${r.policyId}|${r.policyVersion}`))) return { to: 'invalidated', at: now, reason: 'policy_changed' };
  return null;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** A case as partners read it (no `decision`: partners never decide). */
export function approvalCaseView(record: ApprovalCaseRecord) {
  const { stages } = stageProgress(record.stages, record.decisions);
  const rejection = record.decisions.find((d) => d.decision === 'reject');
  return {
    caseId: record.id,
    reviewId: record.id,
    status: record.status,
    terminalReason: record.terminalReason,
    walletId: record.walletId,
    apiKeyId: record.apiKeyId,
    authorizationScopeId: record.scopeId,
    bindingRevision: record.bindingRevision,
    idempotencyKey: record.idempotencyKey,
    requestHash: record.requestHash,
    initiatorUserId: record.initiatorUserId,
    request: record.request,
    requirements: record.requirements,
    stages: stages.map((p) => ({
      id: p.stage.id,
      requirementId: p.stage.requirementId,
      roles: p.stage.roles,
      attributes: p.stage.attributes ?? {},
      requiredApprovals: p.stage.requiredApprovals,
      approvals: p.approvals.map((a) => ({ userId: a.userId, at: a.createdAt.toISOString() })),
      completedAt: iso(p.completedAt),
    })),
    rejectedBy: rejection ? { userId: rejection.userId, stageId: rejection.stageId, at: rejection.createdAt.toISOString() } : null,
    partnerReview: record.partnerReview
      ? {
          decision: record.partnerDecision?.decision ?? null,
          decidedAt: iso(record.partnerDecision?.decidedAt ?? null),
          decidedBy: record.partnerDecision?.decidedBy ?? null,
        }
      : null,
    expiresAt: record.expiresAt.toISOString(),
    createdAt: record.createdAt.toISOString(),
    completedAt: iso(record.completedAt),
    consumedAt: iso(record.consumedAt),
    rejectedAt: iso(record.rejectedAt),
    expiredAt: iso(record.expiredAt),
    invalidatedAt: iso(record.invalidatedAt),
    cancelledAt: iso(record.cancelledAt),
  };
}

export type ApprovalCaseView = ReturnType<typeof approvalCaseView>;
