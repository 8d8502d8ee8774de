import type { IdempotencyBegin, IdempotencyStore, StoredResponse } from '@wallet/domain';
import type { Prisma } from '../generated/prisma/client.ts';
import type { Database } from '../database.ts';

export function createIdempotencyStore({ prisma, query }: Database): IdempotencyStore {
  return {
    async begin(projectId, key, requestHash, now, expiresAt, lease): Promise<IdempotencyBegin> {
      // One statement, so two retries of a crashed request cannot both take the key over: the
      // second waits for the first's row lock and then re-evaluates the WHERE against its new lease.
      // A different request (hash) never takes over a live record, only an expired one.
      const claimed = await prisma.$executeRaw`
        INSERT INTO idempotency_records AS r (project_id, key, request_hash, state, expires_at, lease_owner, lease_expires_at)
        VALUES (${projectId}::uuid, ${key}, ${requestHash}, 'running', ${expiresAt}, ${lease.owner}, ${lease.expiresAt})
        ON CONFLICT (project_id, key) DO UPDATE SET
          request_hash = EXCLUDED.request_hash, state = 'running', created_at = ${now},
          expires_at = EXCLUDED.expires_at, lease_owner = EXCLUDED.lease_owner, lease_expires_at = EXCLUDED.lease_expires_at,
          response_status = NULL, response_body = NULL, response_headers = NULL
        WHERE r.expires_at <= ${now}
          OR (r.state = 'running' AND r.request_hash = EXCLUDED.request_hash
              AND (r.lease_expires_at IS NULL OR r.lease_expires_at <= ${now}))`;
      if (claimed === 1) return { kind: 'started' };
      const existing = await prisma.idempotencyRecord.findUnique({ where: { projectId_key: { projectId, key } } });
      // Released between the two statements: report it as running so the caller polls and claims again.
      if (!existing) return { kind: 'existing', requestHash, response: null };
      const response: StoredResponse | null =
        existing.state === 'done' && existing.responseStatus !== null
          ? {
              status: existing.responseStatus,
              body: existing.responseBody,
              headers: (existing.responseHeaders ?? {}) as Record<string, string>,
            }
          : null;
      return { kind: 'existing', requestHash: existing.requestHash, response };
    },

    async renew(projectId, key, lease) {
      const { count } = await prisma.idempotencyRecord.updateMany({
        where: { projectId, key, state: 'running', leaseOwner: lease.owner },
        data: { leaseExpiresAt: lease.expiresAt },
      });
      return count === 1;
    },

    async complete(projectId, key, owner, response) {
      const { count } = await prisma.idempotencyRecord.updateMany({
        where: { projectId, key, state: 'running', leaseOwner: owner },
        data: {
          state: 'done',
          leaseOwner: null,
          leaseExpiresAt: null,
          responseStatus: response.status,
          responseBody: response.body as Prisma.InputJsonValue,
          responseHeaders: response.headers ?? {},
        },
      });
      return count === 1;
    },

    async abandon(projectId, key, owner) {
      await prisma.idempotencyRecord.deleteMany({ where: { projectId, key, state: 'running', leaseOwner: owner } });
    },

    async release(projectId, key, owner) {
      // A running record without a lease: begin() hands it to the same request hash at once.
      await prisma.idempotencyRecord.updateMany({
        where: { projectId, key, state: 'running', leaseOwner: owner },
        data: { leaseOwner: null, leaseExpiresAt: null },
      });
    },

    // On the driver, like every statement the idle workers run: a Prisma query would load Prisma's
    // query compiler (WebAssembly, ~45 MB resident) into a process at rest.
    async pruneExpired(now, limit) {
      const rows = await query(
        `DELETE FROM idempotency_records WHERE (project_id, key) IN (
           SELECT project_id, key FROM idempotency_records WHERE expires_at <= $1 LIMIT $2)
         RETURNING 1`,
        [now, limit],
      );
      return rows.length;
    },
  };
}
