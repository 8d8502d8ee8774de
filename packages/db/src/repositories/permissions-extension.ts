import type { PermissionsExtensionStore, PolicyActor } from '@wallet/domain';
import type { Database } from '../database.ts';
import { auditData } from './audit.ts';

const actor = (type: string, id: string | null): PolicyActor => (type === 'operator' ? { type: 'operator', id: null } : ({ type, id } as PolicyActor));

export function createPermissionsExtensionStore({ prisma }: Database): PermissionsExtensionStore {
  return {
    async find(at) {
      const row = await prisma.permissionsExtension.findUnique({ where: { projectId_environment: { projectId: at.projectId, environment: at.environment } } });
      return row ? { enabled: row.enabled, updatedAt: row.updatedAt, updatedBy: actor(row.updatedByType, row.updatedById) } : null;
    },

    async set(at, state, audit) {
      const data = { enabled: state.enabled, updatedAt: state.updatedAt, updatedByType: state.updatedBy.type, updatedById: state.updatedBy.id };
      await prisma.$transaction([
        prisma.permissionsExtension.upsert({
          where: { projectId_environment: { projectId: at.projectId, environment: at.environment } },
          create: { projectId: at.projectId, environment: at.environment, ...data },
          update: data,
        }),
        prisma.auditLog.create({ data: auditData(audit) }),
      ]);
      return state;
    },
  };
}
