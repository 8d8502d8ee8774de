import type { FrozenEvmPreparation, FrozenPreparationStore } from '@wallet/domain';
import type { Database } from '../database.ts';

/** Frozen EVM transfer preparations of approval cases (the domain's FrozenPreparationStore). */
export function createApprovalPreparationStore({ prisma }: Database): FrozenPreparationStore {
  return {
    async findOpen(at, caseKey, requestHash) {
      const rows = await prisma.$queryRawUnsafe<{ prepared: FrozenEvmPreparation }[]>(
        `SELECT p.prepared FROM approval_case_preparations p JOIN approval_cases c ON c.id = p.case_id
         WHERE c.project_id = $1::uuid AND c.environment = $2 AND c.case_key = $3 AND c.request_hash = $4
           AND c.status IN ('pending', 'completed')
         ORDER BY c.created_at DESC LIMIT 1`,
        at.projectId,
        at.environment,
        caseKey,
        requestHash,
      );
      return rows[0]?.prepared ?? null;
    },

    async freeze(caseId, prepared, at) {
      await prisma.approvalCasePreparation.createMany({ data: [{ caseId, prepared: { ...prepared }, createdAt: at }], skipDuplicates: true });
    },
  };
}
