import type { AuditEntry, AuditStore } from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';

export function auditData(entry: AuditEntry): Prisma.AuditLogCreateInput {
  return { ...entry, details: entry.details as Prisma.InputJsonObject };
}

export function createAuditStore({ query }: Database): AuditStore {
  return {
    // On every signing request's path: one statement on the driver, with the events it causes.
    async append(entry, events = []) {
      const auditValues = [entry.projectId, entry.apiKeyId, entry.walletId, entry.requestId, entry.action, JSON.stringify(entry.details)];
      if (events.length === 0) {
        await query(`INSERT INTO audit_log (project_id, api_key_id, wallet_id, request_id, action, details) VALUES ($1, $2, $3, $4, $5, $6)`, auditValues);
        return;
      }
      await query(
        `WITH audit AS (
           INSERT INTO audit_log (project_id, api_key_id, wallet_id, request_id, action, details) VALUES ($1, $2, $3, $4, $5, $6))
         INSERT INTO events (id, project_id, type, data, transaction_id)
         SELECT * FROM unnest($7::text[], $8::uuid[], $9::text[], $10::jsonb[], $11::uuid[])`,
        [
          ...auditValues,
          events.map((e) => e.id),
          events.map((e) => e.projectId),
          events.map((e) => e.type),
          events.map((e) => JSON.stringify(e.data)),
          events.map((e) => e.transactionId ?? null),
        ],
      );
    },
  };
}
