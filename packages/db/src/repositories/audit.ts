import type { AuditEntry, AuditStore } from '@wallet/domain';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

export function auditData(entry: AuditEntry): Prisma.AuditLogCreateInput {
  return { ...entry, details: entry.details as Prisma.InputJsonObject };
}

export function createAuditStore(prisma: PrismaClient): AuditStore {
  return {
    async append(entry) {
      await prisma.auditLog.create({ data: auditData(entry) });
    },
  };
}
