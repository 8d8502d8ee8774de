import type { ApprovalCaseLinks } from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { invalidateOpenCases } from './approval-cases.ts';

type Tx = Prisma.TransactionClient;

/**
 * The approval cases a requirement configuration change reaches (the domain's ApprovalCaseLinks):
 * the scope's open cases (pending, or completed and not yet used) whose requirements name this
 * policy version's requirement. `tx` is the configuration write's Prisma transaction client (cast
 * from StoreTransaction), so reading and invalidating commit with the write.
 */
export function createApprovalCaseLinks({ prisma }: Database): ApprovalCaseLinks {
  return {
    async openCasesOf(at, scopeId, ref, tx) {
      const client = (tx as unknown as Tx | undefined) ?? prisma;
      const rows = await client.$queryRawUnsafe<{ id: string }[]>(
        `SELECT id FROM approval_cases
         WHERE project_id = $1::uuid AND environment = $2 AND scope_id = $3
           AND status IN ('pending', 'completed') AND requirements @> $4::jsonb
         ORDER BY created_at, id`,
        at.projectId,
        at.environment,
        scopeId,
        JSON.stringify([{ policyId: ref.policyId, policyVersion: String(ref.policyVersion), requirementId: ref.requirementId }]),
      );
      return rows.map((r) => r.id);
    },

    async invalidateCases(tx, at, ids, change) {
      if (ids.length === 0) return;
      await invalidateOpenCases(tx as unknown as Tx, { id: { in: ids }, projectId: at.projectId, environment: at.environment }, change.at, change.reason);
    },
  };
}
