import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ApiError, forbidden, notFound, unauthorized } from '../errors.ts';
import type { ApiKeyRecord, ApiKeyStore, AuditStore, Plan } from '../ports.ts';
import type { Caller } from '../shared/caller.ts';
import type { Clock } from '../shared/clock.ts';
import { parseInput } from '../shared/zod.ts';
import { isAllowed, validateAllowlist } from './allowlist.ts';
import { environments, plans } from './plans.ts';
import { SECRET_KEY_PATTERN, displayPrefix, generateSecretKey, hashSecretKey, sameHash } from './secrets.ts';

const nameSchema = z.string().trim().min(1).max(100);

export const createApiKeyInput = z.strictObject({
  partner: nameSchema,
  project: nameSchema.default('default'),
  plan: z.enum(plans).default('growth'),
  environment: z.enum(environments).default('development'),
  rateLimitPerMinute: z.number().int().min(0).max(1_000_000).optional(),
  ipAllowlist: z.array(z.string().max(64)).max(100).default([]),
});

/** Who changed a key when it was not the operator CLI: a console staff member (kept in the audit row's details). */
export interface AuditActor {
  staffId: string;
}

export interface IssuedKey {
  apiKey: string;
  apiKeyId: string;
  partnerId: string;
  projectId: string;
}

export interface ApiKeyServiceDeps {
  apiKeys: ApiKeyStore;
  audit: AuditStore;
  clock: Clock;
  /**
   * How long an authenticated key record is reused without reading the database again. Rotation
   * and revocation take effect at once in the process that performs them, and within this time in
   * every other process. 0 disables the cache.
   */
  authCacheMs?: number;
}

const AUTH_CACHE_MAX_ENTRIES = 10_000;

export function createApiKeyService({ apiKeys, audit, clock, authCacheMs = 2_000 }: ApiKeyServiceDeps) {
  const cache = new Map<string, { record: ApiKeyRecord; until: number }>();
  const forget = (apiKeyId: string) => {
    for (const [hash, entry] of cache) if (entry.record.id === apiKeyId) cache.delete(hash);
  };
  async function findByHash(hash: string): Promise<ApiKeyRecord | null> {
    const now = clock.now().getTime();
    const cached = cache.get(hash);
    if (cached && cached.until > now) return cached.record;
    const record = await apiKeys.findByHash(hash);
    if (record && authCacheMs > 0) {
      if (cache.size >= AUTH_CACHE_MAX_ENTRIES) cache.clear();
      cache.set(hash, { record, until: now + authCacheMs });
    }
    return record;
  }

  const auditKey = (record: ApiKeyRecord, action: string, details: Record<string, unknown>, actor: AuditActor | undefined) =>
    audit.append({ projectId: record.projectId, apiKeyId: record.id, walletId: null, requestId: null, action, details: actor ? { ...details, actor } : details });

  const issued = (record: ApiKeyRecord, apiKey: string): IssuedKey => ({
    apiKey,
    apiKeyId: record.id,
    partnerId: record.partnerId,
    projectId: record.projectId,
  });

  return {
    /** Creates partner and project on first use. The secret is returned here only. */
    async create(input: z.input<typeof createApiKeyInput>, actor?: AuditActor): Promise<IssuedKey> {
      const parsed = parseInput(createApiKeyInput, input);
      if (parsed.rateLimitPerMinute !== undefined && parsed.plan !== 'scale') {
        throw new ApiError(400, 'INVALID_REQUEST', 'Invalid request: rateLimitPerMinute applies to the scale plan only');
      }
      const secret = generateSecretKey(parsed.environment);
      const record = await apiKeys.createForProject(parsed.partner, parsed.project, {
        id: randomUUID(),
        environment: parsed.environment,
        plan: parsed.plan,
        rateLimitPerMinute: parsed.rateLimitPerMinute ?? null,
        ipAllowlist: validateAllowlist(parsed.ipAllowlist),
        keyPrefix: displayPrefix(secret),
        keyHash: hashSecretKey(secret),
      });
      await auditKey(record, 'api_key.create', { plan: record.plan, environment: record.environment }, actor);
      return issued(record, secret);
    },

    /** New secret for the same key record: the old secret stops working at once, wallets stay reachable. */
    async rotate(apiKeyId: string, actor?: AuditActor): Promise<IssuedKey> {
      const existing = await apiKeys.findById(apiKeyId);
      if (!existing || existing.revokedAt) throw notFound('API key');
      const secret = generateSecretKey(existing.environment);
      forget(apiKeyId);
      const record = await apiKeys.replaceSecret(apiKeyId, displayPrefix(secret), hashSecretKey(secret));
      if (!record) throw notFound('API key');
      await auditKey(record, 'api_key.rotate', {}, actor);
      return issued(record, secret);
    },

    async revoke(apiKeyId: string, actor?: AuditActor): Promise<{ apiKeyId: string; revokedAt: string }> {
      forget(apiKeyId);
      const record = await apiKeys.revoke(apiKeyId, clock.now());
      if (!record || !record.revokedAt) throw notFound('API key');
      await auditKey(record, 'api_key.revoke', {}, actor);
      return { apiKeyId: record.id, revokedAt: record.revokedAt.toISOString() };
    },

    /**
     * Changes a key's plan, its per-minute limit (scale plan only; null: the plan's default) or its
     * IP allowlist. Moving off the scale plan drops a custom limit. Takes effect like a rotation.
     */
    async update(
      apiKeyId: string,
      change: { plan?: Plan; rateLimitPerMinute?: number | null; ipAllowlist?: string[] },
      actor?: AuditActor,
    ): Promise<ApiKeyRecord> {
      const existing = await apiKeys.findById(apiKeyId);
      if (!existing || existing.revokedAt) throw notFound('API key');
      const plan = change.plan ?? existing.plan;
      let rateLimitPerMinute = change.rateLimitPerMinute === undefined ? existing.rateLimitPerMinute : change.rateLimitPerMinute;
      if (plan !== 'scale') {
        if (change.rateLimitPerMinute !== undefined && change.rateLimitPerMinute !== null) {
          throw new ApiError(400, 'INVALID_REQUEST', 'Invalid request: rateLimitPerMinute applies to the scale plan only');
        }
        rateLimitPerMinute = null;
      }
      const ipAllowlist = change.ipAllowlist === undefined ? existing.ipAllowlist : validateAllowlist(change.ipAllowlist);
      forget(apiKeyId);
      const record = await apiKeys.update(apiKeyId, { plan, rateLimitPerMinute, ipAllowlist });
      if (!record) throw notFound('API key');
      await auditKey(record, 'api_key.update', { plan, rateLimitPerMinute, ipAllowlistEntries: ipAllowlist.length }, actor);
      return record;
    },

    /**
     * Missing key: 401. Unknown, malformed or revoked key: 403. Address outside the allowlist: 401.
     * The lookup is by hash, and the stored hash is compared in constant time.
     */
    async authenticate(secret: string | undefined, remoteAddress: string | undefined): Promise<ApiKeyRecord> {
      if (!secret) throw unauthorized('Missing X-API-Key header');
      if (!SECRET_KEY_PATTERN.test(secret)) throw forbidden('Invalid API key');
      const hash = hashSecretKey(secret);
      const record = await findByHash(hash);
      if (!record || !sameHash(record.keyHash, hash) || record.revokedAt) throw forbidden('Invalid API key');
      if (!isAllowed(record.ipAllowlist, remoteAddress)) {
        throw unauthorized('Request address is not in the API key allowlist');
      }
      return record;
    },
  };
}

export function callerOf(record: ApiKeyRecord, requestId: string | null): Caller {
  return {
    partnerId: record.partnerId,
    projectId: record.projectId,
    apiKeyId: record.id,
    environment: record.environment,
    plan: record.plan,
    requestId,
  };
}

export type ApiKeyService = ReturnType<typeof createApiKeyService>;
