import { randomUUID } from 'node:crypto';
import type { ApprovalConfigurationRecord, ApprovalConfigurationStore, ConfigurationValues, PolicyActor, PolicyLocation, RequirementRef, StoreTransaction } from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { auditData } from './audit.ts';

const actor = (type: string, id: string | null): PolicyActor => (type === 'operator' ? { type: 'operator', id: null } : ({ type, id } as PolicyActor));

// Writes of one key queue on its row (or its primary key while being inserted); give them room.
const transactionOptions = { maxWait: 30_000, timeout: 30_000 };

type ConfigurationRow = {
  scopeId: string;
  policyId: string;
  policyVersion: number;
  requirementId: string;
  revision: number;
  values: Prisma.JsonValue;
  updatedAt: Date;
  updatedByType: string;
  updatedById: string | null;
};

const toRecord = (row: ConfigurationRow): ApprovalConfigurationRecord => ({
  scopeId: row.scopeId,
  policyId: row.policyId,
  policyVersion: row.policyVersion,
  requirementId: row.requirementId,
  revision: row.revision,
  values: row.values as ConfigurationValues,
  updatedAt: row.updatedAt,
  updatedBy: actor(row.updatedByType, row.updatedById),
});

const keyOf = (at: PolicyLocation, scopeId: string, ref: RequirementRef) => ({
  projectId: at.projectId,
  environment: at.environment,
  scopeId,
  policyId: ref.policyId,
  policyVersion: ref.policyVersion,
  requirementId: ref.requirementId,
});

/** A refusal inside the write transaction: thrown to roll it back, caught outside. */
class AffectedCases extends Error {
  constructor(readonly ids: string[]) {
    super('approval cases affected');
  }
}

/**
 * Approval requirement configurations per scope, revision-checked like the authorization scope
 * writes: the first revision is an insert that does nothing when the row exists, later ones an
 * update guarded by `revision = expected`, so of concurrent writers exactly one writes. The
 * approval cases a change reaches are the cases port's business (no approval_cases SQL here); it
 * runs inside the write's transaction, after the row is locked.
 */
export function createApprovalConfigurationStore({ prisma }: Database): ApprovalConfigurationStore {
  const find = async (at: PolicyLocation, scopeId: string, ref: RequirementRef) => {
    const row = await prisma.approvalConfiguration.findUnique({
      where: { projectId_environment_scopeId_policyId_policyVersion_requirementId: keyOf(at, scopeId, ref) },
    });
    return row ? toRecord(row) : null;
  };

  return {
    find,

    async configuredValues(at, scopeId, policyId, policyVersion, requirementId) {
      return (await find(at, scopeId, { policyId, policyVersion, requirementId }))?.values ?? null;
    },

    async write(at, scopeId, ref, write, check, audit) {
      const key = keyOf(at, scopeId, ref);
      const values = write.values as Prisma.InputJsonObject;
      const by = { updatedByType: write.by.type, updatedById: write.by.id };
      try {
        return await prisma.$transaction(async (tx) => {
          const { count } =
            write.expectedRevision === 0
              ? await tx.approvalConfiguration.createMany({ data: [{ ...key, revision: 1, values, updatedAt: write.at, ...by }], skipDuplicates: true })
              : await tx.approvalConfiguration.updateMany({
                  where: { ...key, revision: write.expectedRevision },
                  data: { revision: { increment: 1 }, values, updatedAt: write.at, ...by },
                });
          const row = await tx.approvalConfiguration.findUnique({ where: { projectId_environment_scopeId_policyId_policyVersion_requirementId: key } });
          if (count === 0 || !row) return { ok: false as const, currentRevision: row?.revision ?? 0 };
          // The values replaced are those of the expected revision (none before the first write).
          const previous =
            write.expectedRevision === 0
              ? null
              : ((await tx.approvalConfigurationRevision.findUnique({
                  where: { projectId_environment_scopeId_policyId_policyVersion_requirementId_revision: { ...key, revision: write.expectedRevision } },
                }))?.values as ConfigurationValues | undefined) ?? null;
          const handle = tx as unknown as StoreTransaction;
          let invalidated: string[] = [];
          if (check.changesEffective(previous)) {
            const open = await check.cases.openCasesOf(at, scopeId, ref, handle);
            if (open.length > 0 && !check.force) throw new AffectedCases(open);
            if (open.length > 0) await check.cases.invalidateCases(handle, at, open, { at: write.at, reason: 'configuration_changed' });
            invalidated = open;
          }
          await tx.approvalConfigurationRevision.create({
            data: { id: randomUUID(), ...key, revision: row.revision, values, actorType: write.by.type, actorId: write.by.id, requestId: write.requestId, createdAt: write.at },
          });
          const record = toRecord(row);
          await tx.auditLog.create({ data: auditData(audit(record, invalidated)) });
          return { ok: true as const, record, invalidatedCaseIds: invalidated };
        }, transactionOptions);
      } catch (error) {
        if (error instanceof AffectedCases) return { ok: false as const, affectedCaseIds: error.ids };
        throw error;
      }
    },

    async history(at, scopeId, ref, beforeRevision, take) {
      const rows = await prisma.approvalConfigurationRevision.findMany({
        where: { ...keyOf(at, scopeId, ref), ...(beforeRevision === undefined ? {} : { revision: { lt: beforeRevision } }) },
        orderBy: { revision: 'desc' },
        take,
      });
      return rows.map((row) => ({
        revision: row.revision,
        values: row.values as ConfigurationValues,
        createdAt: row.createdAt,
        createdBy: actor(row.actorType, row.actorId),
        requestId: row.requestId,
      }));
    },
  };
}
