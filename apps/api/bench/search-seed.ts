/**
 * The bench's data, written with `INSERT … SELECT generate_series` (seconds, not minutes):
 * PARTNERS partners of PROJECTS_PER_PARTNER projects each; `records` transaction records over
 * records / 5 wallets (EVM, Solana, Cosmos, Stellar and Sui in turn, EVM and Stellar stored
 * upper-case, Solana base58-like mixed case), a signed-up user for every other identifier, and
 * records / 10 approval cases, webhook events and request log rows. Every value is a function of
 * its row number, so the bench picks its queries by number.
 */
import type { Database } from '@wallet/db';

export const PARTNERS = 10;
export const PROJECTS_PER_PARTNER = 2;
const PROJECTS = PARTNERS * PROJECTS_PER_PARTNER;
export const FIRST_NAMES = ['alice', 'bob', 'carol', 'dave', 'erin', 'frank', 'grace', 'heidi', 'ivan', 'judy'];

/** SQL of row `i`'s values; the bench computes the same in TypeScript from these strings' results. */
const sql = {
  projectOf: (i: string) => `(${i} % ${PROJECTS})`,
  walletId: (i: string) => `md5('w' || ${i})::uuid`,
  identifier: (i: string) => `(ARRAY[${FIRST_NAMES.map((n) => `'${n}'`).join(',')}])[(${i} / 2) % ${FIRST_NAMES.length} + 1] || (${i} / 2) || '@example.com'`,
  hex64: (i: string) => `md5('a' || ${i}) || md5('b' || ${i})`,
};

export function sizes(records: number) {
  return { records, wallets: Math.floor(records / 5), cases: Math.floor(records / 10), events: Math.floor(records / 10), requests: Math.floor(records / 10) };
}

export async function seed(database: Database, records: number) {
  const n = sizes(records);
  const q = (text: string) => database.query(text);
  await q(`INSERT INTO partners (id, name) SELECT md5('p' || p)::uuid, 'partner ' || p FROM generate_series(0, ${PARTNERS - 1}) p`);
  await q(`INSERT INTO projects (id, partner_id, name) SELECT md5('j' || j)::uuid, md5('p' || (j / ${PROJECTS_PER_PARTNER}))::uuid, 'project ' || j FROM generate_series(0, ${PROJECTS - 1}) j`);
  await q(`
    INSERT INTO wallets (id, project_id, type, scheme, address, public_key, status, user_identifier, user_identifier_type, updated_at)
    SELECT ${sql.walletId('i')}, md5('j' || ${sql.projectOf('i')})::uuid, t.type, t.scheme, t.address, t.address, 'ready', ${sql.identifier('i')}, 'EMAIL', now()
      FROM generate_series(0, ${n.wallets - 1}) i
      CROSS JOIN LATERAL (SELECT ${sql.hex64('i')} AS hex) h
      CROSS JOIN LATERAL (SELECT CASE i % 5
        WHEN 0 THEN 'EVM' WHEN 1 THEN 'SOLANA' WHEN 2 THEN 'COSMOS' WHEN 3 THEN 'STELLAR' ELSE 'SUI' END AS type,
        CASE WHEN i % 5 IN (0, 2) THEN 'DKLS' ELSE 'ED25519' END AS scheme,
        CASE i % 5
          WHEN 0 THEN '0x' || upper(substr(h.hex, 1, 40))
          WHEN 1 THEN upper(substr(translate(h.hex, '0', 'z'), 1, 10)) || substr(translate(h.hex, '0', 'z'), 11, 34)
          WHEN 2 THEN 'cosmos1' || substr(translate(h.hex, '1b', 'qz'), 1, 38)
          WHEN 3 THEN 'G' || upper(substr(translate(h.hex || md5('c' || i), '0189', 'wxyz'), 1, 55))
          ELSE '0x' || h.hex END AS address) t`);
  await q(`INSERT INTO users (id, project_id, identifier, identifier_type)
    SELECT md5('u' || i)::uuid, md5('j' || ${sql.projectOf('i')})::uuid, ${sql.identifier('i')}, 'EMAIL' FROM generate_series(0, ${n.wallets - 1}, 4) i`);
  await q(`
    INSERT INTO transaction_records (id, project_id, partner_id, wallet_id, wallet_type, intent_kind, status, chain_id, from_address, hash, nonce, updated_at, created_at)
    SELECT md5('t' || r)::uuid, md5('j' || ${sql.projectOf('w')})::uuid, md5('p' || (${sql.projectOf('w')} / ${PROJECTS_PER_PARTNER}))::uuid, ${sql.walletId('w')},
           'EVM', 'transfer', 'confirmed', '84532', '0x0000000000000000000000000000000000000001', '0x' || md5('h' || r) || md5('g' || r), r / ${n.wallets},
           now(), now() - make_interval(secs => r)
      FROM generate_series(0, ${records - 1}) r CROSS JOIN LATERAL (SELECT r % ${n.wallets} AS w) x`);
  await q(`
    INSERT INTO approval_cases (id, project_id, environment, wallet_id, api_key_id, case_key, request_hash, requirements, scope_id, binding_revision, stages, status,
                                partner_review, request, expires_at, created_at)
    SELECT md5('c' || c)::uuid, md5('j' || ${sql.projectOf('c')})::uuid, 'production', ${sql.walletId('c')}, md5('k')::uuid, 'case ' || c, 'h', '[]',
           CASE WHEN c % 2 = 0 THEN 'scope' END, CASE WHEN c % 2 = 0 THEN 1 END, '[]', 'expired', c % 2 = 1, '{}', now(), now()
      FROM generate_series(0, ${n.cases - 1}) c`);
  await q(`INSERT INTO events (id, project_id, type, data, dispatched_at)
    SELECT 'evt_bench' || e, md5('j' || ${sql.projectOf('e')})::uuid, 'send.broadcasted', '{}', now() FROM generate_series(0, ${n.events - 1}) e`);
  await q(`INSERT INTO request_log (project_id, request_id, method, route, status, latency_ms, at)
    SELECT md5('j' || ${sql.projectOf('l')})::uuid, md5('r' || l)::uuid, 'POST', '/v1/wallets/:walletId/transfer', 200, 5, now() FROM generate_series(0, ${n.requests - 1}) l`);
  await q('ANALYZE');
}
