import type { RateLimitStore } from '@wallet/domain';
import type { Database } from '../database.ts';

// On the driver: the counter is on every request's path and the prune on the idle prune worker's,
// where Prisma's per-query runtime (and, at rest, loading its WebAssembly query compiler) costs more
// than the statement.
export function createDatabaseRateLimitStore({ query }: Database): RateLimitStore {
  return {
    async hit(apiKeyId, windowStart) {
      const rows = await query<{ count: number }>(
        `INSERT INTO rate_limit_counters (api_key_id, window_start, count)
         VALUES ($1::uuid, $2, 1)
         ON CONFLICT (api_key_id, window_start) DO UPDATE SET count = rate_limit_counters.count + 1
         RETURNING count`,
        [apiKeyId, windowStart],
      );
      return Number(rows[0]?.count ?? 0);
    },
    async prune(before, limit) {
      const rows = await query(
        `DELETE FROM rate_limit_counters WHERE (api_key_id, window_start) IN (
           SELECT api_key_id, window_start FROM rate_limit_counters WHERE window_start < $1 LIMIT $2)
         RETURNING 1`,
        [before, limit],
      );
      return rows.length;
    },
  };
}
