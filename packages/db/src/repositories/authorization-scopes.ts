import { randomUUID } from 'node:crypto';
import type { Assignment, AssignmentSetRecord, AuthorizationScopeStore, PolicyActor, WalletBindingRecord } from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { invalidateOpenCases } from './approval-cases.ts';
import { auditData } from './audit.ts';

const actor = (type: string, id: string | null): PolicyActor => (type === 'operator' ? { type: 'operator', id: null } : ({ type, id } as PolicyActor));

// Writes of one key queue on its row (or its primary key while being inserted); give them room.
const transactionOptions = { maxWait: 30_000, timeout: 30_000 };

type AssignmentRow = { scopeId: string; userId: string; revision: number; assignments: Prisma.JsonValue; updatedAt: Date };
const toAssignmentSet = (row: AssignmentRow): AssignmentSetRecord => ({
  scopeId: row.scopeId,
  userId: row.userId,
  revision: row.revision,
  assignments: row.assignments as unknown as Assignment[],
  updatedAt: row.updatedAt,
});

type BindingRow = { walletId: string; scopeId: string | null; revision: number; updatedAt: Date };
const toBinding = (row: BindingRow): WalletBindingRecord => ({ walletId: row.walletId, scopeId: row.scopeId, revision: row.revision, updatedAt: row.updatedAt });

/**
 * The revision check is the write itself: the first revision is an insert that does nothing when
 * the row exists, later ones an update guarded by `revision = expected`. Under READ COMMITTED a
 * concurrent writer with the same expected revision waits for the winner's row, then matches
 * nothing, so exactly one of them writes. Each write invalidates, in its transaction, the open
 * approval cases it affects (an assignment write: the scope's; a binding write: the wallet's).
 */
export function createAuthorizationScopeStore({ prisma }: Database): AuthorizationScopeStore {
  return {
    async userInProject(projectId, userId) {
      return (await prisma.user.count({ where: { id: userId, projectId } })) > 0;
    },

    async findAssignments(at, scopeId, userId) {
      const row = await prisma.authorizationScopeAssignment.findUnique({
        where: { projectId_environment_scopeId_userId: { projectId: at.projectId, environment: at.environment, scopeId, userId } },
      });
      return row ? toAssignmentSet(row) : null;
    },

    async replaceAssignments(at, scopeId, userId, write, audit) {
      const key = { projectId: at.projectId, environment: at.environment, scopeId, userId };
      const assignments = write.assignments as unknown as Prisma.InputJsonArray;
      return prisma.$transaction(async (tx) => {
        const { count } =
          write.expectedRevision === 0
            ? await tx.authorizationScopeAssignment.createMany({ data: [{ ...key, revision: 1, assignments, updatedAt: write.at }], skipDuplicates: true })
            : await tx.authorizationScopeAssignment.updateMany({
                where: { ...key, revision: write.expectedRevision },
                data: { revision: { increment: 1 }, assignments, updatedAt: write.at },
              });
        const row = await tx.authorizationScopeAssignment.findUnique({ where: { projectId_environment_scopeId_userId: key } });
        if (count === 0 || !row) return { ok: false as const, currentRevision: row?.revision ?? 0 };
        await tx.authorizationScopeAssignmentRevision.create({
          data: { id: randomUUID(), ...key, revision: row.revision, assignments, actorType: write.by.type, actorId: write.by.id, requestId: write.requestId, createdAt: write.at },
        });
        const record = toAssignmentSet(row);
        // Approval cases of the scope were opened under the old assignments: they can no longer complete.
        await invalidateOpenCases(tx, { projectId: at.projectId, environment: at.environment, scopeId }, write.at, 'assignments_changed');
        await tx.auditLog.create({ data: auditData(audit(record)) });
        return { ok: true as const, record };
      }, transactionOptions);
    },

    async assignmentHistory(at, scopeId, userId, beforeRevision, take) {
      const rows = await prisma.authorizationScopeAssignmentRevision.findMany({
        where: { projectId: at.projectId, environment: at.environment, scopeId, userId, ...(beforeRevision === undefined ? {} : { revision: { lt: beforeRevision } }) },
        orderBy: { revision: 'desc' },
        take,
      });
      return rows.map((row) => ({
        revision: row.revision,
        assignments: row.assignments as unknown as Assignment[],
        createdAt: row.createdAt,
        createdBy: actor(row.actorType, row.actorId),
        requestId: row.requestId,
      }));
    },

    async members(at, scopeId, afterUserId, take) {
      const rows = await prisma.authorizationScopeAssignment.findMany({
        where: {
          projectId: at.projectId,
          environment: at.environment,
          scopeId,
          NOT: { assignments: { equals: [] } },
          ...(afterUserId === undefined ? {} : { userId: { gt: afterUserId } }),
        },
        orderBy: { userId: 'asc' },
        take,
      });
      return rows.map(toAssignmentSet);
    },

    async findBinding(at, walletId) {
      const row = await prisma.walletAuthorizationScope.findUnique({
        where: { projectId_environment_walletId: { projectId: at.projectId, environment: at.environment, walletId } },
      });
      return row ? toBinding(row) : null;
    },

    async bindWallet(at, walletId, write, audit) {
      const key = { projectId: at.projectId, environment: at.environment, walletId };
      return prisma.$transaction(async (tx) => {
        const { count } =
          write.expectedRevision === 0
            ? await tx.walletAuthorizationScope.createMany({ data: [{ ...key, scopeId: write.scopeId, revision: 1, updatedAt: write.at }], skipDuplicates: true })
            : await tx.walletAuthorizationScope.updateMany({
                where: { ...key, revision: write.expectedRevision },
                data: { revision: { increment: 1 }, scopeId: write.scopeId, updatedAt: write.at },
              });
        const row = await tx.walletAuthorizationScope.findUnique({ where: { projectId_environment_walletId: key } });
        if (count === 0 || !row) return { ok: false as const, currentRevision: row?.revision ?? 0 };
        await tx.walletAuthorizationScopeRevision.create({
          data: { id: randomUUID(), ...key, revision: row.revision, scopeId: write.scopeId, actorType: write.by.type, actorId: write.by.id, requestId: write.requestId, createdAt: write.at },
        });
        const record = toBinding(row);
        // The wallet's approval cases were opened under the old binding: they can no longer complete.
        await invalidateOpenCases(tx, { projectId: at.projectId, environment: at.environment, walletId }, write.at, 'binding_changed');
        await tx.auditLog.create({ data: auditData(audit(record)) });
        return { ok: true as const, record };
      }, transactionOptions);
    },

    async bindingHistory(at, walletId, beforeRevision, take) {
      const rows = await prisma.walletAuthorizationScopeRevision.findMany({
        where: { projectId: at.projectId, environment: at.environment, walletId, ...(beforeRevision === undefined ? {} : { revision: { lt: beforeRevision } }) },
        orderBy: { revision: 'desc' },
        take,
      });
      return rows.map((row) => ({
        revision: row.revision,
        scopeId: row.scopeId,
        createdAt: row.createdAt,
        createdBy: actor(row.actorType, row.actorId),
        requestId: row.requestId,
      }));
    },
  };
}
