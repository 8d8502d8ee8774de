import type { DecidingRule, RequestLogEntry, RequestLogStore } from '@wallet/domain';
import type { Database } from '../database.ts';

interface Row {
  project_id: string | null;
  request_id: string;
  method: string;
  route: string;
  status: number;
  code: string | null;
  api_key_id: string | null;
  wallet_id: string | null;
  transaction_id: string | null;
  case_id: string | null;
  latency_ms: number;
  denied_by: DecidingRule[] | null;
  at: Date;
}

const COLUMNS = 'project_id, request_id, method, route, status, code, api_key_id, wallet_id, transaction_id, case_id, latency_ms, denied_by, at';

export function createRequestLogStore({ query }: Database): RequestLogStore {
  return {
    // Off the request path, but on every state change: one statement on the driver per batch,
    // the columns as arrays (a fixed parameter count whatever the batch size).
    async append(entries) {
      if (entries.length === 0) return;
      const column = <T,>(pick: (e: RequestLogEntry) => T) => entries.map(pick);
      await query(
        `INSERT INTO request_log (${COLUMNS})
         SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::int[], $6::text[], $7::uuid[], $8::uuid[], $9::uuid[], $10::uuid[], $11::float8[], $12::jsonb[], $13::timestamptz[])`,
        [
          column((e) => e.projectId),
          column((e) => e.requestId),
          column((e) => e.method),
          column((e) => e.route),
          column((e) => e.status),
          column((e) => e.code),
          column((e) => e.apiKeyId),
          column((e) => e.walletId),
          column((e) => e.transactionId),
          column((e) => e.caseId),
          column((e) => e.latencyMs),
          column((e) => (e.deniedBy ? JSON.stringify(e.deniedBy) : null)),
          column((e) => e.at),
        ],
      );
    },

    async list(filter) {
      const values: unknown[] = [filter.partnerId];
      const where = ['project_id IN (SELECT id FROM projects WHERE partner_id = $1)'];
      const add = (sql: string, value: unknown) => {
        values.push(value);
        where.push(sql.replace('?', `$${values.length}`));
      };
      if (filter.requestId !== undefined) add('request_id = ?::uuid', filter.requestId);
      if (filter.walletId !== undefined) add('wallet_id = ?::uuid', filter.walletId);
      if (filter.apiKeyId !== undefined) add('api_key_id = ?::uuid', filter.apiKeyId);
      if (filter.status !== undefined) add('status = ?', filter.status);
      if (filter.code !== undefined) add('code = ?', filter.code);
      if (filter.from !== undefined) add('at >= ?', filter.from);
      if (filter.to !== undefined) add('at < ?', filter.to);
      if (filter.before !== undefined) {
        values.push(filter.before.at, filter.before.requestId);
        where.push(`(at, request_id) < ($${values.length - 1}, $${values.length}::uuid)`);
      }
      values.push(filter.limit);
      const rows = await query<Row>(`SELECT ${COLUMNS} FROM request_log WHERE ${where.join(' AND ')} ORDER BY at DESC, request_id DESC LIMIT $${values.length}`, values);
      return rows.map((r) => ({
        projectId: r.project_id,
        requestId: r.request_id,
        method: r.method,
        route: r.route,
        status: Number(r.status),
        code: r.code,
        apiKeyId: r.api_key_id,
        walletId: r.wallet_id,
        transactionId: r.transaction_id,
        caseId: r.case_id,
        latencyMs: Number(r.latency_ms),
        deniedBy: typeof r.denied_by === 'string' ? (JSON.parse(r.denied_by) as DecidingRule[]) : r.denied_by,
        at: new Date(r.at),
      }));
    },

    async prune(before, limit) {
      const rows = await query<{ n: number }>(
        'WITH gone AS (DELETE FROM request_log WHERE id IN (SELECT id FROM request_log WHERE at < $1 LIMIT $2) RETURNING 1) SELECT count(*)::int AS n FROM gone',
        [before, limit],
      );
      return Number(rows[0]?.n ?? 0);
    },
  };
}
