import { randomUUID } from 'node:crypto';
import type { NonceGapCandidate, NonceGapStore } from '@wallet/domain';
import type { Database } from '../database.ts';

/** A record that still holds its nonce (not resolved). */
const UNRESOLVED = `status IN ('pending', 'submitted')`;

/** What the nonce-gap repair reads and reserves (the domain's NonceGapStore). */
export function createNonceGapStore({ query }: Database): NonceGapStore {
  return {
    async candidates(before, limit, walletId) {
      return query<NonceGapCandidate>(
        `WITH unresolved AS (
           SELECT wallet_id, chain_id, nonce, created_at, api_key_id FROM transaction_records
           WHERE wallet_type = 'EVM' AND ${UNRESOLVED} AND nonce IS NOT NULL AND chain_id IS NOT NULL
             AND ($3::uuid IS NULL OR wallet_id = $3::uuid)
         ), lowest AS (
           SELECT DISTINCT ON (wallet_id, chain_id) wallet_id, chain_id, nonce, created_at, api_key_id
           FROM unresolved ORDER BY wallet_id, chain_id, nonce, created_at
         ), counts AS (
           SELECT wallet_id, chain_id, count(*)::int AS waiting FROM unresolved GROUP BY wallet_id, chain_id
         )
         SELECT l.wallet_id AS "walletId", w.project_id AS "projectId", p.partner_id AS "partnerId", w.address,
                l.chain_id AS "chainId", l.nonce AS "lowestUnresolved", c.waiting, l.api_key_id AS "apiKeyId",
                COALESCE(k.environment, 'production') AS environment
         FROM lowest l
         JOIN counts c ON c.wallet_id = l.wallet_id AND c.chain_id = l.chain_id
         JOIN wallets w ON w.id = l.wallet_id
         JOIN projects p ON p.id = w.project_id
         LEFT JOIN api_keys k ON k.id = l.api_key_id
         WHERE l.created_at < $1
         ORDER BY l.created_at LIMIT $2`,
        [before, limit, walletId ?? null],
      );
    },

    async heldNonces(walletId, chainId, from, to) {
      const rows = await query<{ nonce: number }>(
        `SELECT nonce FROM transaction_records
           WHERE wallet_id = $1::uuid AND chain_id = $2 AND nonce >= $3 AND nonce < $4 AND ${UNRESOLVED}
         UNION SELECT nonce FROM nonce_reservations
           WHERE wallet_id = $1::uuid AND chain_id = $2 AND nonce >= $3 AND nonce < $4 AND expires_at > now()
         UNION SELECT p.nonce FROM approval_case_preparations p JOIN approval_cases c ON c.id = p.case_id
           WHERE c.wallet_id = $1::uuid AND p.chain_id::text = $2 AND p.nonce >= $3 AND p.nonce < $4 AND p.nonce_released_at IS NULL
             -- A case just consumed: its resend may be writing its record right now.
             AND (c.status IN ('pending', 'completed') OR (c.status = 'consumed' AND c.consumed_at > now() - interval '10 minutes'))
         UNION SELECT (o.plan->'prepared'->>'nonce')::int FROM yield_operations o
           WHERE o.wallet_id = $1::uuid AND o.chain_id::text = $2 AND o.status IN ('pending', 'submitted')
             AND (o.plan->'prepared'->>'nonce')::int >= $3 AND (o.plan->'prepared'->>'nonce')::int < $4`,
        [walletId, chainId, from, to],
      );
      return rows.map((r) => Number(r.nonce));
    },

    async claimNonce(walletId, chainId, nonce, leaseMs) {
      const reservationId = randomUUID();
      // One statement: reserved only when no unresolved record holds it and no live reservation
      // does; the counter moves past it, so no allocation hands it out from the counter.
      const rows = await query<{ n: number }>(
        `WITH free AS (
           SELECT 1 WHERE NOT EXISTS (SELECT 1 FROM transaction_records WHERE wallet_id = $1::uuid AND chain_id = $2 AND nonce = $3 AND ${UNRESOLVED})
         ), claimed AS (
           INSERT INTO nonce_reservations (wallet_id, chain_id, nonce, reservation_id, expires_at)
           SELECT $1::uuid, $2, $3, $4::uuid, now() + $5::int * interval '1 millisecond' FROM free
           ON CONFLICT (wallet_id, chain_id, nonce) DO UPDATE SET reservation_id = EXCLUDED.reservation_id, expires_at = EXCLUDED.expires_at
           WHERE nonce_reservations.expires_at IS NULL OR nonce_reservations.expires_at <= now()
           RETURNING 1
         ), counter AS (
           INSERT INTO nonce_counters (wallet_id, chain_id, next_nonce) SELECT $1::uuid, $2, $3 + 1 FROM claimed
           ON CONFLICT (wallet_id, chain_id) DO UPDATE SET next_nonce = GREATEST(nonce_counters.next_nonce, EXCLUDED.next_nonce)
         )
         SELECT count(*)::int AS n FROM claimed`,
        [walletId, chainId, nonce, reservationId, leaseMs],
      );
      if (rows[0]!.n !== 1) return null;
      // The statement above read the records as of its start: a record that took this nonce from its
      // reservation while it waited for that row is only visible now. Then the nonce was not free.
      const [taken] = await query<{ n: number }>(
        `SELECT count(*)::int AS n FROM transaction_records WHERE wallet_id = $1::uuid AND chain_id = $2 AND nonce = $3 AND ${UNRESOLVED}`,
        [walletId, chainId, nonce],
      );
      if (taken!.n === 0) return reservationId;
      await query(`DELETE FROM nonce_reservations WHERE wallet_id = $1::uuid AND chain_id = $2 AND nonce = $3 AND reservation_id = $4::uuid`, [walletId, chainId, nonce, reservationId]);
      return null;
    },
  };
}
