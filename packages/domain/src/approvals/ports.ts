import type { PolicyActor, PolicyLocation } from '../policies/ports.ts';
import type { AuditEntry } from '../ports.ts';
import type { ApprovalRequirementRef, SigningChain, SigningTransfer } from '../signing/pipeline.ts';

export const approvalCaseStatuses = ['pending', 'completed', 'consumed', 'rejected', 'expired', 'invalidated', 'cancelled'] as const;
export type ApprovalCaseStatus = (typeof approvalCaseStatuses)[number];

/** Pending, or completed and not yet used to sign: what invalidations and expiry apply to. */
export const openStatuses: ApprovalCaseStatus[] = ['pending', 'completed'];

/** One stage as the case snapshotted it when it opened (configured values applied). */
export interface ApprovalStage {
  /** The stage id of the policy (qualified `requirementId.stageId` when two requirements share one). */
  id: string;
  requirementId: string;
  roles: string[];
  /** Attribute name -> accepted values; a user must match every one (absent in cases opened before attributes existed). */
  attributes?: Record<string, string[]>;
  requiredApprovals: number;
}

export interface ApprovalDecisionRecord {
  stageId: string;
  userId: string;
  decision: 'approve' | 'reject';
  createdAt: Date;
}

/** What the gated request does, for display (never the key material, never the whole body). */
export interface ApprovalRequestSummary {
  action: string;
  operation: string;
  chain: SigningChain;
  transfer: SigningTransfer | null;
}

/** Who made a partner review's decision: the partner's API key, or a staff member in the console. */
export type PartnerReviewer = Extract<PolicyActor, { type: 'api_key' | 'staff' }>;

/** The app's own decision on a partner review (made once). */
export interface PartnerDecisionRecord {
  decision: 'approve' | 'reject';
  decidedAt: Date;
  decidedBy: PartnerReviewer;
}

export interface ApprovalCaseRecord {
  id: string;
  projectId: string;
  environment: PolicyLocation['environment'];
  walletId: string;
  apiKeyId: string;
  /** The Idempotency-Key, or `payload:<sha256>` of the request without one. */
  caseKey: string;
  idempotencyKey: string | null;
  requestHash: string;
  requirements: ApprovalRequirementRef[];
  /** Null when only partner review rules matched (no user stage, no scope binding needed). */
  scopeId: string | null;
  bindingRevision: number | null;
  stages: ApprovalStage[];
  /** A partner review rule matched: the case completes only once the app approves too. */
  partnerReview: boolean;
  partnerDecision: PartnerDecisionRecord | null;
  status: ApprovalCaseStatus;
  terminalReason: string | null;
  initiatorUserId: string | null;
  request: ApprovalRequestSummary;
  expiresAt: Date;
  createdAt: Date;
  completedAt: Date | null;
  consumedAt: Date | null;
  rejectedAt: Date | null;
  expiredAt: Date | null;
  invalidatedAt: Date | null;
  cancelledAt: Date | null;
  /** In the order they were made. */
  decisions: ApprovalDecisionRecord[];
}

export type NewApprovalCase = Pick<
  ApprovalCaseRecord,
  | 'id'
  | 'projectId'
  | 'environment'
  | 'walletId'
  | 'apiKeyId'
  | 'caseKey'
  | 'idempotencyKey'
  | 'requestHash'
  | 'requirements'
  | 'scopeId'
  | 'bindingRevision'
  | 'stages'
  | 'partnerReview'
  | 'initiatorUserId'
  | 'request'
  | 'expiresAt'
  | 'createdAt'
>;

/** A decision to insert, and the status the case moves to with it (none: it stays pending). */
export interface DecisionPlan {
  decision: ApprovalDecisionRecord;
  status: 'completed' | 'rejected' | null;
}

/** A partner review's status as the app reads it (reviews.ts maps case statuses to these). */
export const partnerReviewStatuses = ['pending', 'approved', 'rejected', 'expired', 'consumed', 'invalidated', 'cancelled'] as const;
export type PartnerReviewStatus = (typeof partnerReviewStatuses)[number];

export interface ApprovalCaseListFilter {
  status?: ApprovalCaseStatus;
  walletId?: string;
  /** Only cases with a partner review, in this review status when given. */
  partnerReview?: { status?: PartnerReviewStatus };
}

/** The partner's decision to write, and the status the case moves to with it (none: it stays pending). */
export interface PartnerDecisionPlan {
  decision: PartnerDecisionRecord;
  status: 'completed' | 'rejected' | null;
}

export interface ApprovalCaseStore {
  /** Inserts a pending case; null when the key already has an open (pending or completed) case. */
  open(record: NewApprovalCase): Promise<ApprovalCaseRecord | null>;
  /** The newest case of the key in the project and environment. */
  latestByKey(at: PolicyLocation, caseKey: string): Promise<ApprovalCaseRecord | null>;
  /** A case by id in any project (callers check the location: a foreign case is a missing one). */
  find(caseId: string): Promise<ApprovalCaseRecord | null>;
  /** Newest first (created_at, id), those older than `before` when given. */
  list(at: PolicyLocation, filter: ApprovalCaseListFilter, before: { createdAt: Date; id: string } | null, take: number): Promise<ApprovalCaseRecord[]>;
  /**
   * Moves the case to `to` only while its status is one of `from`, setting `to`'s timestamp to
   * `at` (and `terminal_reason`); null when the case was not in one of `from` (nothing changed).
   */
  transition(caseId: string, from: ApprovalCaseStatus[], to: ApprovalCaseStatus, at: Date, terminalReason: string | null): Promise<ApprovalCaseRecord | null>;
  /** Every open case of the location whose `expiresAt` <= `now` becomes `expired` at its expiresAt (before listing by status). */
  expireDue(at: PolicyLocation, now: Date): Promise<void>;
  /** completed -> consumed (consumed_at = at) only while completed and `at` < expires_at; true when this call claimed it. */
  claim(caseId: string, at: Date, requestId: string | null): Promise<boolean>;
  /** consumed -> completed (consumed_at and the request id cleared): the claimed signature never happened. */
  unclaim(caseId: string): Promise<void>;
  /**
   * A consumed case taken over by another run of the request that consumed it (the same
   * Idempotency-Key; that run died before recording anything): its request id and consumed_at
   * become this run's, only while `at` < expires_at; true when this call took it.
   */
  reclaim(caseId: string, at: Date, requestId: string | null): Promise<boolean>;
  /** The case a request consumed for a signature of this wallet (its transaction record keeps the request id). */
  findConsumedByRequest(walletId: string, requestId: string): Promise<ApprovalCaseRecord | null>;
  /**
   * In one transaction holding the case's row lock (SELECT ... FOR UPDATE): `plan` sees the
   * locked case with its decisions and returns what to write, or throws (nothing written).
   */
  decide(caseId: string, plan: (locked: ApprovalCaseRecord) => DecisionPlan): Promise<ApprovalCaseRecord>;
  /**
   * The same for the partner's decision: `plan` returns what to write, or null to write nothing
   * (the case as it is comes back); a written decision appends `audit(decided case)` with it.
   */
  decidePartner(caseId: string, plan: (locked: ApprovalCaseRecord) => PartnerDecisionPlan | null, audit: (decided: ApprovalCaseRecord) => AuditEntry): Promise<ApprovalCaseRecord>;
}

/**
 * Configured values of a requirement in a scope (the requirement configuration routes), keyed
 * `stageId.key` (e.g. `"finance.requiredApprovals"`); null when none are configured (the policy's
 * defaults apply).
 */
export type ConfiguredApprovalValues = (
  location: PolicyLocation,
  scopeId: string,
  policyId: string,
  policyVersion: string,
  requirementId: string,
) => Promise<Record<string, number> | null>;
