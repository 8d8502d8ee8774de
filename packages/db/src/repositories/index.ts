import type { PrismaClient } from '../generated/prisma/client.ts';
import { createApiKeyStore } from './api-keys.ts';
import { createAuditStore } from './audit.ts';
import { createIdempotencyStore } from './idempotency.ts';
import { createDatabaseRateLimitStore } from './rate-limits.ts';
import { createWalletStore } from './wallets.ts';

export { createRedisRateLimitStore } from './redis-rate-limits.ts';

/** Every store port of the domain, implemented over one Prisma client. */
export function createStores(prisma: PrismaClient) {
  return {
    apiKeys: createApiKeyStore(prisma),
    wallets: createWalletStore(prisma),
    audit: createAuditStore(prisma),
    idempotency: createIdempotencyStore(prisma),
    rateLimits: createDatabaseRateLimitStore(prisma),
  };
}

export type Stores = ReturnType<typeof createStores>;
