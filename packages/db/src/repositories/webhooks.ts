import type {
  DueDelivery,
  StoredEvent,
  WebhookDeliveryLog,
  WebhookDeliveryStatus,
  WebhookEndpointRecord,
  WebhookStore,
} from '@wallet/domain';
import { WebhookEndpointExistsError } from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { isUniqueViolation } from './prisma-errors.ts';

/** A delivery with its endpoint and attempts, as the delivery log shows it. */
export const deliveryLogInclude = {
  endpoint: { select: { apiKeyId: true, url: true } },
  log: { orderBy: { id: 'asc' } },
} as const satisfies Prisma.WebhookDeliveryInclude;

export function toDeliveryLog(row: Prisma.WebhookDeliveryGetPayload<{ include: typeof deliveryLogInclude }>): WebhookDeliveryLog {
  return {
    deliveryId: row.id.toString(),
    eventId: row.eventId,
    endpointId: row.endpointId,
    apiKeyId: row.endpoint.apiKeyId,
    url: row.endpoint.url,
    status: row.status as WebhookDeliveryStatus,
    attempts: row.attempts,
    nextAttemptAt: row.nextAttemptAt,
    lastStatusCode: row.lastStatusCode,
    lastError: row.lastError,
    deliveredAt: row.deliveredAt,
    createdAt: row.createdAt,
    log: row.log.map((a) => ({ id: a.id.toString(), attemptedAt: a.attemptedAt, statusCode: a.statusCode, latencyMs: a.latencyMs, error: a.error })),
  };
}

type EndpointRow = Prisma.WebhookEndpointGetPayload<object>;

const bytes = (value: Uint8Array) => new Uint8Array(value);

function toEndpoint(row: EndpointRow | WebhookEndpointRecord): WebhookEndpointRecord {
  return {
    id: row.id,
    apiKeyId: row.apiKeyId,
    projectId: row.projectId,
    url: row.url,
    enabled: row.enabled,
    eventTypes: [...row.eventTypes],
    secretKekId: row.secretKekId,
    secret: bytes(row.secret),
    previousSecretKekId: row.previousSecretKekId,
    previousSecret: row.previousSecret ? bytes(row.previousSecret) : null,
    previousSecretExpiresAt: row.previousSecretExpiresAt,
    failingSince: row.failingSince,
    disabledAt: row.disabledAt,
    disabledReason: row.disabledReason,
    createdAt: row.createdAt,
    updatedAt: row.updatedAt,
  };
}

/** The endpoint columns under their record names, for statements that return endpoints. */
const ENDPOINT_COLUMNS = `id, api_key_id AS "apiKeyId", project_id AS "projectId", url, enabled, event_types AS "eventTypes",
  secret_kek_id AS "secretKekId", secret, previous_secret_kek_id AS "previousSecretKekId", previous_secret AS "previousSecret",
  previous_secret_expires_at AS "previousSecretExpiresAt", failing_since AS "failingSince", disabled_at AS "disabledAt",
  disabled_reason AS "disabledReason", created_at AS "createdAt", updated_at AS "updatedAt"`;

const EVENT_COLUMNS = `id, project_id AS "projectId", type, data, seq::text AS seq, created_at AS "createdAt", dispatched_at AS "dispatchedAt"`;

const DUE_COLUMNS = `d.id::text AS id, d.event_id AS "eventId", d.event_seq::text AS "eventSeq", d.attempts, e.type, e.created_at AS "createdAt", e.data`;

/**
 * Webhook endpoints, the fan-out of outbox events to delivery rows, endpoint leases and the attempt
 * log. Dispatch, leasing, recording a batch of attempts and resend are single SQL statements, so
 * they stay atomic across worker processes without an interactive transaction.
 */
export function createWebhookStore({ prisma, query }: Database): WebhookStore {
  return {
    async findByApiKey(apiKeyId) {
      const row = await prisma.webhookEndpoint.findUnique({ where: { apiKeyId } });
      return row ? toEndpoint(row) : null;
    },

    async findById(endpointId) {
      const row = await prisma.webhookEndpoint.findUnique({ where: { id: endpointId } });
      return row ? toEndpoint(row) : null;
    },

    async create(endpoint) {
      try {
        const row = await prisma.webhookEndpoint.create({
          data: {
            ...endpoint,
            secret: Buffer.from(endpoint.secret),
            previousSecret: endpoint.previousSecret ? Buffer.from(endpoint.previousSecret) : null,
          },
        });
        return toEndpoint(row);
      } catch (error) {
        if (isUniqueViolation(error)) throw new WebhookEndpointExistsError();
        throw error;
      }
    },

    async update(endpointId, patch) {
      const { secret, previousSecret, ...rest } = patch;
      const row = await prisma.webhookEndpoint.update({
        where: { id: endpointId },
        data: {
          ...rest,
          ...(secret !== undefined ? { secret: Buffer.from(secret) } : {}),
          ...(previousSecret !== undefined ? { previousSecret: previousSecret ? Buffer.from(previousSecret) : null } : {}),
        },
      });
      return toEndpoint(row);
    },

    async rearmPending(endpointId, now) {
      const rows = await query<{ id: string }>(
        `UPDATE webhook_deliveries SET next_attempt_at = $2, attempts = 0, updated_at = now()
         WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at IS NOT NULL RETURNING id::text AS id`,
        [endpointId, now],
      );
      return rows.length;
    },

    async dispatch(now, limit) {
      const rows = await query<{ events: number; deliveries: number }>(
        `WITH batch AS (
           SELECT id, project_id, type, seq FROM events
           WHERE dispatched_at IS NULL ORDER BY seq LIMIT $2 FOR UPDATE SKIP LOCKED
         ), marked AS (
           UPDATE events SET dispatched_at = $1 WHERE id IN (SELECT id FROM batch)
         ), fanned AS (
           INSERT INTO webhook_deliveries (event_id, endpoint_id, event_seq, status, next_attempt_at)
           SELECT b.id, w.id, b.seq, 'pending', $1
           FROM batch b
           JOIN webhook_endpoints w ON w.project_id = b.project_id AND w.enabled AND b.type = ANY (w.event_types)
           JOIN api_keys k ON k.id = w.api_key_id AND k.revoked_at IS NULL
           ORDER BY b.seq
           ON CONFLICT (event_id, endpoint_id) DO NOTHING
           RETURNING 1
         )
         SELECT (SELECT count(*) FROM batch)::int AS events, (SELECT count(*) FROM fanned)::int AS deliveries`,
        [now, limit],
      );
      return { events: Number(rows[0]?.events ?? 0), deliveries: Number(rows[0]?.deliveries ?? 0) };
    },

    async leaseEndpoints(owner, now, leaseUntil, limit) {
      const rows = await query<WebhookEndpointRecord>(
        `UPDATE webhook_endpoints SET lease_owner = $1, lease_until = $3
         WHERE id IN (
           SELECT w.id FROM webhook_endpoints w
           JOIN api_keys k ON k.id = w.api_key_id AND k.revoked_at IS NULL
           WHERE w.enabled AND (w.lease_until IS NULL OR w.lease_until < $2)
             AND w.id IN (SELECT endpoint_id FROM webhook_deliveries WHERE status = 'pending' AND next_attempt_at <= $2)
           ORDER BY w.lease_until NULLS FIRST, w.id LIMIT $4 FOR UPDATE OF w SKIP LOCKED)
         RETURNING ${ENDPOINT_COLUMNS}`,
        [owner, now, leaseUntil, limit],
      );
      return rows.map(toEndpoint);
    },

    async renewLease(owner, endpointId, leaseUntil) {
      const rows = await query<WebhookEndpointRecord>(
        `UPDATE webhook_endpoints SET lease_until = $3 WHERE id = $2 AND lease_owner = $1 RETURNING ${ENDPOINT_COLUMNS}`,
        [owner, endpointId, leaseUntil],
      );
      return rows[0] ? toEndpoint(rows[0]) : null;
    },

    async releaseLease(owner, endpointId) {
      await query(`UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE id = $2 AND lease_owner = $1`, [owner, endpointId]);
    },

    async dueDeliveries(endpointId, now, limit, afterSeq) {
      return query<DueDelivery>(
        `SELECT ${DUE_COLUMNS} FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
         WHERE d.endpoint_id = $1 AND d.status = 'pending' AND d.next_attempt_at <= $2 AND d.event_seq > $4::bigint
         ORDER BY d.event_seq LIMIT $3`,
        [endpointId, now, limit, afterSeq ?? '0'],
      );
    },

    async recordAttempts(endpointId, results, health) {
      if (results.length === 0 && !health) return { failingSince: null, enabled: true };
      const rows = await query<{ failingSince: Date | null; enabled: boolean }>(
        `WITH r AS (
           SELECT * FROM unnest($2::bigint[], $3::timestamptz[], $4::int[], $5::int[], $6::text[], $7::text[], $8::timestamptz[])
             WITH ORDINALITY AS r(delivery_id, attempted_at, status_code, latency_ms, error, status, next_attempt_at, ord)
         ), logged AS (
           INSERT INTO webhook_attempts (delivery_id, attempted_at, status_code, latency_ms, error)
           SELECT delivery_id, attempted_at, status_code, latency_ms, error FROM r ORDER BY ord
         ), applied AS (
           UPDATE webhook_deliveries d SET
             status = CASE WHEN d.status = 'delivered' THEN 'delivered'
                           WHEN d.status = 'failed' AND r.status <> 'delivered' THEN 'failed' ELSE r.status END,
             attempts = d.attempts + 1,
             next_attempt_at = CASE WHEN d.status IN ('delivered', 'failed') THEN NULL ELSE r.next_attempt_at END,
             last_status_code = r.status_code,
             last_error = r.error,
             delivered_at = COALESCE(d.delivered_at, CASE WHEN r.status = 'delivered' THEN r.attempted_at END),
             updated_at = now()
           FROM r WHERE d.id = r.delivery_id
         ), health AS (
           UPDATE webhook_endpoints SET failing_since = CASE $9::text
               WHEN 'healthy' THEN NULL
               WHEN 'failing' THEN $10::timestamptz
               ELSE COALESCE(failing_since, $10::timestamptz) END
           WHERE id = $1 AND $9::text IS NOT NULL
           RETURNING failing_since
         )
         SELECT (SELECT failing_since FROM health) AS "failingSince", enabled FROM webhook_endpoints WHERE id = $1`,
        [
          endpointId,
          results.map((r) => r.deliveryId),
          results.map((r) => r.attemptedAt),
          results.map((r) => r.statusCode),
          results.map((r) => r.latencyMs),
          results.map((r) => r.error),
          results.map((r) => r.status),
          results.map((r) => r.nextAttemptAt),
          health?.kind ?? null,
          health?.kind === 'failing' ? health.since : health?.kind === 'still-failing' ? health.firstFailureAt : null,
        ],
      );
      return { failingSince: rows[0]?.failingSince ?? null, enabled: rows[0]?.enabled ?? false };
    },

    async disableIfFailingSince(endpointId, failingBefore, at, reason) {
      const rows = await query<{ id: string }>(
        `UPDATE webhook_endpoints SET enabled = false, disabled_at = $3, disabled_reason = $4, lease_owner = NULL, lease_until = NULL, updated_at = now()
         WHERE id = $1 AND enabled AND failing_since IS NOT NULL AND failing_since <= $2 RETURNING id`,
        [endpointId, failingBefore, at, reason],
      );
      return rows.length > 0;
    },

    async createPing(event, endpointId, now) {
      const rows = await query<DueDelivery>(
        `WITH e AS (
           INSERT INTO events (id, project_id, type, data, dispatched_at) VALUES ($1, $2, $3, $4::jsonb, $5)
           RETURNING id, seq, type, created_at, data
         ), d AS (
           INSERT INTO webhook_deliveries (event_id, endpoint_id, event_seq, status, next_attempt_at)
           SELECT id, $6, seq, 'pending', NULL FROM e
           RETURNING id, event_id, event_seq, attempts
         )
         SELECT ${DUE_COLUMNS} FROM d JOIN e ON e.id = d.event_id`,
        [event.id, event.projectId, event.type, JSON.stringify(event.data), now, endpointId],
      );
      const row = rows[0];
      if (!row) throw new Error('test ping was not recorded');
      return row;
    },

    async findEvent(eventId) {
      const rows = await query<StoredEvent>(`SELECT ${EVENT_COLUMNS} FROM events WHERE id = $1`, [eventId]);
      return rows[0] ?? null;
    },

    async findEventsByTxHash(hash, projectId) {
      const hashes = [...new Set([hash, hash.startsWith('0x') ? hash.toLowerCase() : hash])];
      return query<StoredEvent>(
        `SELECT ${EVENT_COLUMNS} FROM events
         WHERE (data->>'txHash' = ANY ($1::text[]) OR data->>'hash' = ANY ($1::text[])) AND ($2::uuid IS NULL OR project_id = $2::uuid)
         ORDER BY seq`,
        [hashes, projectId],
      );
    },

    async resend(eventIds, apiKeyId, now) {
      if (eventIds.length === 0) return [];
      return query<{ deliveryId: string; eventId: string; endpointId: string }>(
        `INSERT INTO webhook_deliveries (event_id, endpoint_id, event_seq, status, attempts, next_attempt_at)
         SELECT e.id, w.id, e.seq, 'pending', 0, $3
         FROM events e JOIN webhook_endpoints w ON w.project_id = e.project_id
         JOIN api_keys k ON k.id = w.api_key_id AND k.revoked_at IS NULL
         WHERE e.id = ANY ($1::text[]) AND w.enabled AND ($2::uuid IS NULL OR w.api_key_id = $2::uuid)
           AND (e.type = ANY (w.event_types)
                OR EXISTS (SELECT 1 FROM webhook_deliveries x WHERE x.event_id = e.id AND x.endpoint_id = w.id))
         ORDER BY e.seq
         ON CONFLICT (event_id, endpoint_id) DO UPDATE
           SET status = 'pending', attempts = 0, next_attempt_at = EXCLUDED.next_attempt_at, updated_at = now()
         RETURNING id::text AS "deliveryId", event_id AS "eventId", endpoint_id::text AS "endpointId"`,
        [eventIds, apiKeyId, now],
      );
    },

    async deliveryLog(eventId, apiKeyId) {
      const rows = await prisma.webhookDelivery.findMany({
        where: { eventId, ...(apiKeyId ? { endpoint: { apiKeyId } } : {}) },
        include: deliveryLogInclude,
        orderBy: { id: 'asc' },
      });
      return rows.map(toDeliveryLog);
    },
  };
}
