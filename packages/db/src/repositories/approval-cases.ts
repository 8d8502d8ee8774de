import type {
  ApprovalCaseListFilter,
  ApprovalCaseRecord,
  ApprovalCaseStatus,
  ApprovalCaseStore,
  ApprovalDecisionRecord,
  ApprovalRequirementRef,
  ApprovalStage,
  Environment,
  PartnerDecisionRecord,
  PartnerReviewStatus,
} from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { auditData } from './audit.ts';

// Decisions on one case queue on its row lock; give them room.
const transactionOptions = { maxWait: 30_000, timeout: 30_000 };

type CaseRow = Prisma.ApprovalCaseGetPayload<{ include: { decisions: true } }>;

const withDecisions = { decisions: { orderBy: [{ createdAt: 'asc' as const }, { userId: 'asc' as const }] } };

function toRecord(row: CaseRow): ApprovalCaseRecord {
  return {
    id: row.id,
    projectId: row.projectId,
    environment: row.environment as Environment,
    walletId: row.walletId,
    apiKeyId: row.apiKeyId,
    caseKey: row.caseKey,
    idempotencyKey: row.idempotencyKey,
    requestHash: row.requestHash,
    requirements: row.requirements as unknown as ApprovalRequirementRef[],
    scopeId: row.scopeId,
    bindingRevision: row.bindingRevision,
    stages: row.stages as unknown as ApprovalStage[],
    partnerReview: row.partnerReview,
    partnerDecision:
      row.partnerDecision && row.partnerDecidedAt && row.partnerDecidedByType && row.partnerDecidedById
        ? {
            decision: row.partnerDecision as PartnerDecisionRecord['decision'],
            decidedAt: row.partnerDecidedAt,
            decidedBy: { type: row.partnerDecidedByType as PartnerDecisionRecord['decidedBy']['type'], id: row.partnerDecidedById },
          }
        : null,
    status: row.status as ApprovalCaseStatus,
    terminalReason: row.terminalReason,
    initiatorUserId: row.initiatorUserId,
    request: row.request as unknown as ApprovalCaseRecord['request'],
    expiresAt: row.expiresAt,
    createdAt: row.createdAt,
    completedAt: row.completedAt,
    consumedAt: row.consumedAt,
    rejectedAt: row.rejectedAt,
    expiredAt: row.expiredAt,
    invalidatedAt: row.invalidatedAt,
    cancelledAt: row.cancelledAt,
    decisions: row.decisions.map(
      (d): ApprovalDecisionRecord => ({ stageId: d.stageId, userId: d.userId, decision: d.decision as ApprovalDecisionRecord['decision'], createdAt: d.createdAt }),
    ),
  };
}

/** The column that keeps the time a case reached each status. */
const stampOf: Record<ApprovalCaseStatus, keyof Prisma.ApprovalCaseUpdateManyMutationInput | null> = {
  pending: null,
  completed: 'completedAt',
  consumed: 'consumedAt',
  rejected: 'rejectedAt',
  expired: 'expiredAt',
  invalidated: 'invalidatedAt',
  cancelled: 'cancelledAt',
};

type Tx = Prisma.TransactionClient;

/** A partner review's status (the domain's partnerReviewStatus) as a condition on case rows. */
function reviewStatusWhere(status: PartnerReviewStatus): Prisma.ApprovalCaseWhereInput {
  if (status === 'pending') return { status: 'pending', partnerDecision: null };
  if (status === 'approved') return { OR: [{ status: 'completed' }, { status: 'pending', partnerDecision: 'approve' }] };
  return { status };
}

function listWhere(filter: ApprovalCaseListFilter): Prisma.ApprovalCaseWhereInput[] {
  const where: Prisma.ApprovalCaseWhereInput[] = [];
  if (filter.status) where.push({ status: filter.status });
  if (filter.walletId) where.push({ walletId: filter.walletId });
  if (filter.partnerReview) where.push({ partnerReview: true });
  if (filter.partnerReview?.status) where.push(reviewStatusWhere(filter.partnerReview.status));
  return where;
}

/**
 * Eager invalidation, in the transaction of the write that causes it (slice-1 repository):
 * every open case matching `where` becomes `invalidated` (or `expired` at its expiry when that
 * has already passed), with `reason`. Every such change is about scopes (assignments, bindings,
 * requirement configurations), so a partner review without user stages (no scope) is never hit.
 */
export async function invalidateOpenCases(tx: Tx, where: Prisma.ApprovalCaseWhereInput, at: Date, reason: string): Promise<void> {
  const open = { AND: [where, { scopeId: { not: null } }], status: { in: ['pending', 'completed'] } };
  const expired = await tx.approvalCase.findMany({ where: { ...open, expiresAt: { lte: at } }, select: { id: true, expiresAt: true } });
  for (const row of expired) {
    await tx.approvalCase.updateMany({ where: { id: row.id, status: { in: ['pending', 'completed'] } }, data: { status: 'expired', expiredAt: row.expiresAt, terminalReason: 'case_expired' } });
  }
  await tx.approvalCase.updateMany({ where: { ...open, expiresAt: { gt: at } }, data: { status: 'invalidated', invalidatedAt: at, terminalReason: reason } });
}

export function createApprovalCaseStore({ prisma }: Database): ApprovalCaseStore {
  const find = async (id: string) => {
    const row = await prisma.approvalCase.findUnique({ where: { id }, include: withDecisions });
    return row ? toRecord(row) : null;
  };

  return {
    async open(record) {
      // ON CONFLICT DO NOTHING on approval_cases_one_open: a key has at most one open case.
      const { count } = await prisma.approvalCase.createMany({
        data: [
          {
            ...record,
            requirements: record.requirements as unknown as Prisma.InputJsonArray,
            stages: record.stages as unknown as Prisma.InputJsonArray,
            request: record.request as unknown as Prisma.InputJsonObject,
            status: 'pending',
          },
        ],
        skipDuplicates: true,
      });
      return count === 0 ? null : find(record.id);
    },

    async latestByKey(at, caseKey) {
      const row = await prisma.approvalCase.findFirst({
        where: { projectId: at.projectId, environment: at.environment, caseKey },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        include: withDecisions,
      });
      return row ? toRecord(row) : null;
    },

    find,

    async list(at, filter, before, take) {
      const rows = await prisma.approvalCase.findMany({
        where: {
          projectId: at.projectId,
          environment: at.environment,
          AND: [...listWhere(filter), ...(before ? [{ OR: [{ createdAt: { lt: before.createdAt } }, { createdAt: before.createdAt, id: { lt: before.id } }] }] : [])],
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take,
        include: withDecisions,
      });
      return rows.map(toRecord);
    },

    async transition(caseId, from, to, at, terminalReason) {
      const stamp = stampOf[to];
      const { count } = await prisma.approvalCase.updateMany({
        where: { id: caseId, status: { in: from } },
        data: { status: to, ...(stamp ? { [stamp]: at } : {}), ...(terminalReason ? { terminalReason } : {}) },
      });
      return count === 0 ? null : find(caseId);
    },

    async expireDue(at, now) {
      await prisma.$executeRaw`
        UPDATE approval_cases SET status = 'expired', expired_at = expires_at, terminal_reason = 'case_expired'
        WHERE project_id = ${at.projectId}::uuid AND environment = ${at.environment} AND status IN ('pending', 'completed') AND expires_at <= ${now}`;
    },

    async claim(caseId, at, requestId) {
      const { count } = await prisma.approvalCase.updateMany({
        where: { id: caseId, status: 'completed', expiresAt: { gt: at } },
        data: { status: 'consumed', consumedAt: at, consumedRequestId: requestId },
      });
      return count === 1;
    },

    async reclaim(caseId, at, requestId) {
      const { count } = await prisma.approvalCase.updateMany({
        where: { id: caseId, status: 'consumed', expiresAt: { gt: at } },
        data: { consumedAt: at, consumedRequestId: requestId },
      });
      return count === 1;
    },

    async unclaim(caseId) {
      await prisma.approvalCase.updateMany({ where: { id: caseId, status: 'consumed' }, data: { status: 'completed', consumedAt: null, consumedRequestId: null } });
    },

    async findConsumedByRequest(walletId, requestId) {
      const row = await prisma.approvalCase.findFirst({
        where: { walletId, consumedRequestId: requestId, status: 'consumed' },
        orderBy: { consumedAt: 'desc' },
        include: withDecisions,
      });
      return row && toRecord(row);
    },

    async decide(caseId, plan) {
      return prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM approval_cases WHERE id = ${caseId}::uuid FOR UPDATE`;
        const row = await tx.approvalCase.findUnique({ where: { id: caseId }, include: withDecisions });
        if (!row) throw new Error(`approval case ${caseId} vanished`);
        const { decision, status } = plan(toRecord(row));
        await tx.approvalCaseDecision.create({ data: { caseId, ...decision } });
        if (status) {
          await tx.approvalCase.update({
            where: { id: caseId },
            data: { status, ...(status === 'completed' ? { completedAt: decision.createdAt } : { rejectedAt: decision.createdAt, terminalReason: 'case_rejected' }) },
          });
        }
        return toRecord((await tx.approvalCase.findUnique({ where: { id: caseId }, include: withDecisions }))!);
      }, transactionOptions);
    },

    async decidePartner(caseId, plan, audit) {
      return prisma.$transaction(async (tx) => {
        await tx.$queryRaw`SELECT id FROM approval_cases WHERE id = ${caseId}::uuid FOR UPDATE`;
        const row = await tx.approvalCase.findUnique({ where: { id: caseId }, include: withDecisions });
        if (!row) throw new Error(`approval case ${caseId} vanished`);
        const planned = plan(toRecord(row));
        if (!planned) return toRecord(row);
        const { decision, status } = planned;
        const at = decision.decidedAt;
        const moved = status === 'completed' ? { status, completedAt: at } : status === 'rejected' ? { status, rejectedAt: at, terminalReason: 'review_rejected' } : {};
        await tx.approvalCase.update({
          where: { id: caseId },
          data: { partnerDecision: decision.decision, partnerDecidedAt: at, partnerDecidedByType: decision.decidedBy.type, partnerDecidedById: decision.decidedBy.id, ...moved },
        });
        const decided = toRecord((await tx.approvalCase.findUnique({ where: { id: caseId }, include: withDecisions }))!);
        await tx.auditLog.create({ data: auditData(audit(decided)) });
        return decided;
      }, transactionOptions);
    },
  };
}
