import type { SearchHit, SearchLookup, SearchStore } from '@wallet/domain';
import type { Database } from '../database.ts';
import { identifierPrefixScan } from './identifier-prefix.ts';

/**
 * The partner's project ids, evaluated once per statement (an init plan), so every lookup below
 * is an index condition `project_id = ANY(...)` on an index that leads with project_id.
 */
const PARTNER_PROJECTS = 'ARRAY(SELECT id FROM projects WHERE partner_id = $1)';

/**
 * Index entries read per project before a user identifier prefix is made distinct: 20 distinct
 * identifiers of up to 5 wallets each (one per chain). A short prefix (`ali`) matches thousands of
 * rows, so the cost must not grow with the matches: it is this many index entries per project.
 */
const USER_ROWS_PER_PROJECT = 100;


interface Row {
  [column: string]: unknown;
}
type Query = Database['query'];

async function byId(query: Query, partnerId: string, id: string, limit: number): Promise<SearchHit[]> {
  const [records, wallets, cases, requests] = await Promise.all([
    query<Row>(
      `SELECT id, hash, status, wallet_type FROM transaction_records WHERE id = $2::uuid AND partner_id = $1::uuid`,
      [partnerId, id],
    ),
    query<Row>(
      `SELECT w.id, w.address, w.type, w.user_identifier FROM wallets w JOIN projects p ON p.id = w.project_id
        WHERE w.id = $2::uuid AND p.partner_id = $1::uuid`,
      [partnerId, id],
    ),
    query<Row>(
      `SELECT c.id, c.project_id, c.environment, c.status, c.partner_review FROM approval_cases c JOIN projects p ON p.id = c.project_id
        WHERE c.id = $2::uuid AND p.partner_id = $1::uuid`,
      [partnerId, id],
    ),
    query<Row>(
      `SELECT request_id, method, route, status FROM request_log
        WHERE request_id = $2::uuid AND project_id = ANY(${PARTNER_PROJECTS}) ORDER BY at DESC LIMIT $3`,
      [partnerId, id, limit],
    ),
  ]);
  return [...records.map(transactionHit), ...wallets.map(walletHit), ...cases.map(caseHit), ...requests.map(requestHit)];
}

const transactionHit = (r: Row): SearchHit => ({
  kind: 'TRANSACTION',
  id: String(r.id),
  hash: r.hash === null ? null : String(r.hash),
  status: String(r.status),
  walletType: String(r.wallet_type),
});
const walletHit = (r: Row): SearchHit => ({
  kind: 'WALLET',
  id: String(r.id),
  address: String(r.address),
  type: String(r.type),
  userIdentifier: String(r.user_identifier),
});
const caseHit = (r: Row): SearchHit => ({
  kind: 'CASE',
  id: String(r.id),
  projectId: String(r.project_id),
  environment: String(r.environment),
  status: String(r.status),
  partnerReview: r.partner_review === true,
});
const requestHit = (r: Row): SearchHit => ({ kind: 'REQUEST', id: String(r.request_id), method: String(r.method), route: String(r.route), status: Number(r.status) });

/**
 * The search's lookups in hand-written SQL, each served by an index: primary keys for ids,
 * `transaction_records (project_id, hash)`, `wallets (lower(address))`,
 * `request_log (request_id)`, and `(project_id, lower(identifier) COLLATE "C")` on wallets
 * and users for identifier prefixes.
 */
export function createSearchStore({ query }: Database): SearchStore {
  return {
    async find(partnerId, lookup: SearchLookup, limit) {
      switch (lookup.kind) {
        case 'id':
          return byId(query, partnerId, lookup.id, limit);
        case 'eventId': {
          const rows = await query<Row>(
            `SELECT id, project_id, type, transaction_id FROM events WHERE id = $2 AND project_id = ANY(${PARTNER_PROJECTS})`,
            [partnerId, lookup.id],
          );
          return rows.map((r) => ({
            kind: 'WEBHOOK_EVENT',
            id: String(r.id),
            projectId: String(r.project_id),
            type: String(r.type),
            transactionId: r.transaction_id === null ? null : String(r.transaction_id),
          }));
        }
        case 'hash': {
          const rows = await query<Row>(
            `SELECT id, hash, status, wallet_type FROM transaction_records
              WHERE project_id = ANY(${PARTNER_PROJECTS}) AND hash = $2 AND partner_id = $1::uuid
              ORDER BY created_at DESC, id DESC LIMIT $3`,
            [partnerId, lookup.hash, limit],
          );
          return rows.map(transactionHit);
        }
        case 'address': {
          const rows = await query<Row>(
            `SELECT w.id, w.address, w.type, w.user_identifier FROM wallets w JOIN projects p ON p.id = w.project_id
              WHERE lower(w.address) = $2 AND p.partner_id = $1::uuid ${lookup.exact !== undefined ? 'AND w.address = $4' : ''}
              ORDER BY w.created_at DESC, w.id DESC LIMIT $3`,
            [partnerId, lookup.lower, limit, ...(lookup.exact !== undefined ? [lookup.exact] : [])],
          );
          return rows.map(walletHit);
        }
        case 'userPrefix': {
          const scan = { projects: PARTNER_PROJECTS, prefix: '$2', limit: String(USER_ROWS_PER_PROJECT) };
          const rows = await query<Row>(
            `SELECT DISTINCT identifier, project_id FROM (
               SELECT m.identifier, p.id AS project_id FROM ${identifierPrefixScan({ ...scan, table: 'wallets', column: 'user_identifier', select: 'user_identifier AS identifier', alias: 'm' })}
               UNION ALL
               SELECT u.identifier, p.id FROM ${identifierPrefixScan({ ...scan, table: 'users', column: 'identifier', select: 'identifier', alias: 'u' })}
             ) found WHERE starts_with(lower(identifier), lower($2)) ORDER BY identifier, project_id LIMIT $3`,
            [partnerId, lookup.prefix, limit],
          );
          return rows.map((r) => ({ kind: 'USER', identifier: String(r.identifier), projectId: String(r.project_id) }));
        }
      }
    },
  };
}
