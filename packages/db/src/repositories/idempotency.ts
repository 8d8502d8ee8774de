import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from '@wallet/domain';
import type { Prisma, PrismaClient } from '../generated/prisma/client.ts';

export function createIdempotencyStore(prisma: PrismaClient): IdempotencyStore {
  return {
    async begin(projectId, key, requestHash, now, expiresAt): Promise<IdempotencyBegin> {
      for (let attempt = 0; attempt < 3; attempt++) {
        const inserted = await prisma.$executeRaw`
          INSERT INTO idempotency_records (project_id, key, request_hash, state, expires_at)
          VALUES (${projectId}::uuid, ${key}, ${requestHash}, 'running', ${expiresAt})
          ON CONFLICT (project_id, key) DO NOTHING`;
        if (inserted === 1) return { kind: 'started' };
        const existing = await prisma.idempotencyRecord.findUnique({
          where: { projectId_key: { projectId, key } },
        });
        if (!existing) continue;
        if (existing.expiresAt <= now) {
          await prisma.idempotencyRecord.deleteMany({ where: { projectId, key, expiresAt: { lte: now } } });
          continue;
        }
        const response: StoredResponse | null =
          existing.state === 'done' && existing.responseStatus !== null
            ? {
                status: existing.responseStatus,
                body: existing.responseBody,
                headers: (existing.responseHeaders ?? {}) as Record<string, string>,
              }
            : null;
        return { kind: 'existing', requestHash: existing.requestHash, response };
      }
      throw new Error('idempotency record kept changing under this request');
    },

    async complete(projectId, key, response) {
      await prisma.idempotencyRecord.update({
        where: { projectId_key: { projectId, key } },
        data: {
          state: 'done',
          responseStatus: response.status,
          responseBody: response.body as Prisma.InputJsonValue,
          responseHeaders: response.headers ?? {},
        },
      });
    },

    async abandon(projectId, key) {
      await prisma.idempotencyRecord.deleteMany({ where: { projectId, key, state: 'running' } });
    },
  };
}
