import type { ConsoleYieldStore } from '@wallet/domain';
import type { Database } from '../database.ts';
import { OPERATION_SELECT, toOperation, type OperationRow } from './yield-operations.ts';

/** The console's yield operation reads across one partner's projects (the partner check itself is in the domain's PartnerScope). */
export function createConsoleYieldStore({ prisma, query }: Database): ConsoleYieldStore {
  return {
    async findOperation(partnerId, operationId) {
      const [row] = await query<OperationRow>(`${OPERATION_SELECT} WHERE o.id = $1 AND o.partner_id = $2`, [operationId, partnerId]);
      return row ? toOperation(row) : null;
    },

    async listOperations(filter) {
      const values: unknown[] = [];
      const param = (value: unknown) => `$${values.push(value)}`;
      const where = [`o.partner_id = ${param(filter.partnerId)}`];
      if (filter.projectId) {
        where.push(`o.project_id = ${param(filter.projectId)}`);
      } else {
        // The partner's project ids let the (project_id, created_at desc, id desc) index serve a partner-wide list.
        const projects = await prisma.project.findMany({ where: { partnerId: filter.partnerId }, select: { id: true } });
        where.push(`o.project_id = ANY(${param(projects.map((p) => p.id))}::uuid[])`);
      }
      if (filter.walletId) where.push(`o.wallet_id = ${param(filter.walletId)}`);
      if (filter.status) where.push(`o.status = ${param(filter.status)}`);
      if (filter.after) where.push(`(o.created_at, o.id) < (${param(filter.after.createdAt)}, ${param(filter.after.id)}::uuid)`);
      const rows = await query<OperationRow>(`${OPERATION_SELECT} WHERE ${where.join(' AND ')} ORDER BY o.created_at DESC, o.id DESC LIMIT ${param(filter.limit)}`, values);
      return rows.map(toOperation);
    },
  };
}
