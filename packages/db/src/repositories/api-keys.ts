import { randomUUID } from 'node:crypto';
import { API_KEY_REVOKED, type ApiKeyRecord, type ApiKeyStore, type Environment, type NewApiKey, type Plan } from '@wallet/domain';
import type { Database } from '../database.ts';
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

export const withPartner = { project: { select: { partnerId: true } } } as const;

export function toApiKeyRecord(row: Row): ApiKeyRecord {
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

export function createApiKeyStore({ prisma, query }: Database): ApiKeyStore {
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
      return toApiKeyRecord(row);
    },
    // On every request's path: one statement on the driver.
    async findByHash(keyHash) {
      const [row] = await query<Omit<Row, 'project'> & { partnerId: string }>(
        `SELECT k.id, k.project_id AS "projectId", p.partner_id AS "partnerId", k.environment, k.plan,
                k.rate_limit_per_minute AS "rateLimitPerMinute", k.ip_allowlist AS "ipAllowlist",
                k.key_prefix AS "keyPrefix", k.key_hash AS "keyHash", k.created_at AS "createdAt", k.revoked_at AS "revokedAt"
           FROM api_keys k JOIN projects p ON p.id = k.project_id
          WHERE k.key_hash = $1`,
        [keyHash],
      );
      return row ? toApiKeyRecord({ ...row, ipAllowlist: row.ipAllowlist ?? [], project: { partnerId: row.partnerId } }) : null;
    },
    async findById(id) {
      const row = await prisma.apiKey.findUnique({ where: { id }, include: withPartner });
      return row ? toApiKeyRecord(row) : null;
    },
    async replaceSecret(id, keyPrefix, keyHash) {
      const updated = await prisma.apiKey.updateManyAndReturn({
        where: { id, revokedAt: null },
        data: { keyPrefix, keyHash },
        include: withPartner,
      });
      return updated[0] ? toApiKeyRecord(updated[0]) : null;
    },
    async update(id, patch) {
      const updated = await prisma.apiKey.updateManyAndReturn({ where: { id, revokedAt: null }, data: patch, include: withPartner });
      return updated[0] ? toApiKeyRecord(updated[0]) : null;
    },
    async revoke(id, at) {
      // One statement: the key, its webhook endpoint (disabled, lease dropped so a worker serving it
      // stops) and the endpoint's pending deliveries (failed: never sent).
      await query(
        `WITH revoked AS (
           UPDATE api_keys SET revoked_at = $2 WHERE id = $1 AND revoked_at IS NULL RETURNING id
         ), endpoint AS (
           UPDATE webhook_endpoints SET enabled = false, disabled_at = $2, disabled_reason = $3,
                  lease_owner = NULL, lease_until = NULL, updated_at = now()
           WHERE api_key_id IN (SELECT id FROM revoked) RETURNING id
         )
         UPDATE webhook_deliveries SET status = 'failed', next_attempt_at = NULL, last_error = $3, updated_at = now()
         WHERE endpoint_id IN (SELECT id FROM endpoint) AND status = 'pending'`,
        [id, at, API_KEY_REVOKED],
      );
      const row = await prisma.apiKey.findUnique({ where: { id }, include: withPartner });
      return row ? toApiKeyRecord(row) : null;
    },
  };
}
