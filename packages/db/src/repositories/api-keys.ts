import { randomUUID } from 'node:crypto';
import type { ApiKeyRecord, ApiKeyStore, Environment, NewApiKey, Plan } from '@wallet/domain';
import type { PrismaClient } from '../generated/prisma/client.ts';
import { isUniqueViolation } from './prisma-errors.ts';

type Row = {
  id: string;
  projectId: string;
  environment: string;
  plan: string;
  rateLimitPerMinute: number | null;
  ipAllowlist: string[];
  keyPrefix: string;
  keyHash: string;
  createdAt: Date;
  revokedAt: Date | null;
  project: { partnerId: string };
};

const withPartner = { project: { select: { partnerId: true } } } as const;

function toRecord(row: Row): ApiKeyRecord {
  return {
    id: row.id,
    projectId: row.projectId,
    partnerId: row.project.partnerId,
    environment: row.environment as Environment,
    plan: row.plan as Plan,
    rateLimitPerMinute: row.rateLimitPerMinute,
    ipAllowlist: row.ipAllowlist,
    keyPrefix: row.keyPrefix,
    keyHash: row.keyHash,
    createdAt: row.createdAt,
    revokedAt: row.revokedAt,
  };
}

export function createApiKeyStore(prisma: PrismaClient): ApiKeyStore {
  async function findOrCreateProject(partnerName: string, projectName: string) {
    // Two CLIs creating the same partner at once: the loser of the unique race reads the winner's row.
    for (let attempt = 0; ; attempt++) {
      try {
        const partner = await prisma.partner.upsert({
          where: { name: partnerName },
          create: { id: randomUUID(), name: partnerName },
          update: {},
        });
        return await prisma.project.upsert({
          where: { partnerId_name: { partnerId: partner.id, name: projectName } },
          create: { id: randomUUID(), partnerId: partner.id, name: projectName },
          update: {},
        });
      } catch (error) {
        if (!isUniqueViolation(error) || attempt > 2) throw error;
      }
    }
  }

  return {
    async createForProject(partnerName, projectName, key: NewApiKey) {
      const project = await findOrCreateProject(partnerName, projectName);
      const row = await prisma.apiKey.create({ data: { ...key, projectId: project.id }, include: withPartner });
      return toRecord(row);
    },
    async findByHash(keyHash) {
      const row = await prisma.apiKey.findUnique({ where: { keyHash }, include: withPartner });
      return row ? toRecord(row) : null;
    },
    async findById(id) {
      const row = await prisma.apiKey.findUnique({ where: { id }, include: withPartner });
      return row ? toRecord(row) : null;
    },
    async replaceSecret(id, keyPrefix, keyHash) {
      const updated = await prisma.apiKey.updateManyAndReturn({
        where: { id, revokedAt: null },
        data: { keyPrefix, keyHash },
        include: withPartner,
      });
      return updated[0] ? toRecord(updated[0]) : null;
    },
    async revoke(id, at) {
      await prisma.apiKey.updateMany({ where: { id, revokedAt: null }, data: { revokedAt: at } });
      const row = await prisma.apiKey.findUnique({ where: { id }, include: withPartner });
      return row ? toRecord(row) : null;
    },
  };
}
