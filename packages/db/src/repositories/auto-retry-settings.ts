import type { AutoRetrySettingsRecord, AutoRetrySettingsStore, PolicyActor } from '@wallet/domain';
import type { Database } from '../database.ts';
import { auditData } from './audit.ts';

const actor = (type: string, id: string | null): PolicyActor => (type === 'operator' ? { type: 'operator', id: null } : ({ type, id } as PolicyActor));

interface SettingsRow {
  enabled: boolean;
  maxFeePerGas: { toFixed(): string } | null;
  updatedAt: Date;
  updatedByType: string;
  updatedById: string | null;
}

const toRecord = (row: SettingsRow): AutoRetrySettingsRecord => ({
  enabled: row.enabled,
  maxFeePerGas: row.maxFeePerGas === null ? null : BigInt(row.maxFeePerGas.toFixed()),
  updatedAt: row.updatedAt,
  updatedBy: actor(row.updatedByType, row.updatedById),
});

/** The per-project default of managed automatic retry (Prisma). */
export function createAutoRetrySettingsStore({ prisma }: Database): AutoRetrySettingsStore {
  return {
    async find(at) {
      const row = await prisma.autoRetrySettings.findUnique({ where: { projectId_environment: { projectId: at.projectId, environment: at.environment } } });
      return row ? toRecord(row) : null;
    },

    async save(at, settings, audit) {
      const values = {
        enabled: settings.enabled,
        maxFeePerGas: settings.maxFeePerGas === null ? null : settings.maxFeePerGas.toString(),
        updatedAt: settings.updatedAt,
        updatedByType: settings.updatedBy.type,
        updatedById: settings.updatedBy.id,
      };
      return prisma.$transaction(async (tx) => {
        const row = await tx.autoRetrySettings.upsert({
          where: { projectId_environment: { projectId: at.projectId, environment: at.environment } },
          create: { projectId: at.projectId, environment: at.environment, ...values },
          update: values,
        });
        const record = toRecord(row);
        await tx.auditLog.create({ data: auditData(audit(record)) });
        return record;
      });
    },
  };
}
