import type { AuditEntry, AuditStore } from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';

export function auditData(entry: AuditEntry): Prisma.AuditLogCreateInput {
  return { ...entry, details: entry.details as Prisma.InputJsonObject };
}

export function createAuditStore({ query }: Database): AuditStore {
  return {
    // On every signing request's path: one statement on the driver.
    async append(entry) {
      await query(
        `INSERT INTO audit_log (project_id, api_key_id, wallet_id, request_id, action, details) VALUES ($1, $2, $3, $4, $5, $6)`,
        [entry.projectId, entry.apiKeyId, entry.walletId, entry.requestId, entry.action, JSON.stringify(entry.details)],
      );
    },
  };
}
