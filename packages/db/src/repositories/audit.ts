import type { AuditEntry, AuditStore } from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';

export function auditData(entry: AuditEntry): Prisma.AuditLogCreateInput {
  return { ...entry, details: entry.details as Prisma.InputJsonObject };
}

export function createAuditStore({ query }: Database): AuditStore {
  return {
    // On every signing request's path: one statement on the driver, with the events it causes and
    // the settlement of the signature's spend reservation (policy_spend_settle, see its migration).
    async append(entry, events = [], spentReservationId = null) {
      const values: unknown[] = [entry.projectId, entry.apiKeyId, entry.walletId, entry.requestId, entry.action, JSON.stringify(entry.details)];
      const parts = [`audit AS (INSERT INTO audit_log (project_id, api_key_id, wallet_id, request_id, action, details) VALUES ($1, $2, $3, $4, $5, $6))`];
      if (events.length > 0) {
        values.push(
          events.map((e) => e.id),
          events.map((e) => e.projectId),
          events.map((e) => e.type),
          events.map((e) => JSON.stringify(e.data)),
          events.map((e) => e.transactionId ?? null),
        );
        parts.push(`events AS (INSERT INTO events (id, project_id, type, data, transaction_id) SELECT * FROM unnest($7::text[], $8::uuid[], $9::text[], $10::jsonb[], $11::uuid[]))`);
      }
      let settle = 'SELECT 1';
      if (spentReservationId) {
        values.push(spentReservationId);
        settle = `SELECT policy_spend_settle($${values.length}::uuid, 'spent')`;
      }
      await query(`WITH ${parts.join(', ')} ${settle}`, values);
    },
  };
}
