import type { RateLimitStore } from '@wallet/domain';
import type { PrismaClient } from '../generated/prisma/client.ts';

export function createDatabaseRateLimitStore(prisma: PrismaClient): RateLimitStore {
  return {
    async hit(apiKeyId, windowStart) {
      const rows = await prisma.$queryRaw<{ count: number }[]>`
        INSERT INTO rate_limit_counters (api_key_id, window_start, count)
        VALUES (${apiKeyId}::uuid, ${windowStart}, 1)
        ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
        RETURNING count`;
      return Number(rows[0]?.count ?? 0);
    },
    async prune(before, limit) {
      return prisma.$executeRaw`
        DELETE FROM rate_limit_counters WHERE (api_key_id, window_start) IN (
          SELECT api_key_id, window_start FROM rate_limit_counters WHERE window_start < ${before} LIMIT ${limit})`;
    },
  };
}
