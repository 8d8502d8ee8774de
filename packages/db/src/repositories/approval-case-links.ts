import type { ApprovalCaseLinks } from '@wallet/domain';
import type { Database } from '../database.ts';

/**
 * The approval cases a requirement configuration change reaches (the domain's ApprovalCaseLinks).
 * The approval_cases table comes with the cases slice; until then no case is ever open.
 * `tx` is the configuration write's Prisma transaction client (cast from StoreTransaction).
 */
export function createApprovalCaseLinks(_database: Database): ApprovalCaseLinks {
  return {
    // wired to approval_cases at merge: ids of cases of (project, environment, scope_id) whose
    // status is open ('pending' | 'completed', invalidated_at null) and whose `requirements`
    // jsonb holds {policyId, policyVersion (string), requirementId}, oldest first.
    async openCasesOf() {
      return [];
    },
    // wired to approval_cases at merge: set invalidated_at = change.at and terminal_reason =
    // change.reason on those ids, through `tx` so it commits with the configuration write.
    async invalidateCases() {},
  };
}
