import type { RateLimitStore } from '@wallet/domain';
import { Redis } from 'ioredis';

/** Rate-limit counters in Redis (REDIS_URL): INCR on a per-window key that expires with the window. */
export function createRedisRateLimitStore(url: string): RateLimitStore & { close(): Promise<void> } {
  const redis = new Redis(url, { lazyConnect: false, maxRetriesPerRequest: 2, enableOfflineQueue: true });
  return {
    async hit(apiKeyId, windowStart) {
      const key = `ratelimit:${apiKeyId}:${windowStart.getTime()}`;
      const [[incrError, count] = [], [expireError] = []] = (await redis.multi().incr(key).pexpire(key, 120_000).exec()) ?? [];
      if (incrError || expireError) throw incrError ?? expireError;
      return Number(count);
    },
    async prune() {
      return 0; // keys expire by themselves
    },
    async close() {
      redis.disconnect();
    },
  };
}
