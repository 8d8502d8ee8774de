import type { FrozenEvmPreparation, FrozenPreparationStore } from '@wallet/domain';
import type { Database } from '../database.ts';

/** Frozen EVM transfer preparations of approval cases and the nonces they hold (the domain's FrozenPreparationStore). */
export function createApprovalPreparationStore({ query }: Database): FrozenPreparationStore {
  return {
    async findOpen(at, caseKey, requestHash, includeConsumed = false) {
      const rows = await query<{ caseId: string; prepared: FrozenEvmPreparation; nonce: number | null }>(
        `SELECT p.case_id AS "caseId", p.prepared, CASE WHEN p.nonce_released_at IS NULL THEN p.nonce END AS nonce
         FROM approval_case_preparations p JOIN approval_cases c ON c.id = p.case_id
         WHERE c.project_id = $1::uuid AND c.environment = $2 AND c.case_key = $3 AND c.request_hash = $4
           AND (c.status IN ('pending', 'completed') OR ($5 AND c.status = 'consumed'))
         ORDER BY c.created_at DESC LIMIT 1`,
        [at.projectId, at.environment, caseKey, requestHash, includeConsumed],
      );
      return rows[0] ?? null;
    },

    async freeze(caseId, prepared, at, hold) {
      // One statement: the preparation, and the nonce moved from the transfer's reservation to the
      // case only when that reservation still holds it and this preparation is the one written.
      const [row] = await query<{ n: number }>(
        `WITH reserved AS (
           SELECT nonce FROM nonce_reservations
           WHERE wallet_id = $4::uuid AND chain_id = $5::text AND nonce = $6::int AND reservation_id = $7::uuid
           FOR UPDATE
         ), written AS (
           INSERT INTO approval_case_preparations (case_id, prepared, created_at, chain_id, nonce)
           SELECT $1::uuid, $2::jsonb, $3::timestamptz, CASE WHEN EXISTS (SELECT 1 FROM reserved) THEN $5::int END, (SELECT nonce FROM reserved)
           ON CONFLICT (case_id) DO NOTHING
           RETURNING nonce
         ), taken AS (
           DELETE FROM nonce_reservations
           WHERE wallet_id = $4::uuid AND chain_id = $5::text AND nonce = $6::int AND reservation_id = $7::uuid
             AND EXISTS (SELECT 1 FROM written WHERE nonce IS NOT NULL)
         )
         SELECT count(*)::int AS n FROM written`,
        [caseId, JSON.stringify(prepared), at, hold?.walletId ?? null, hold?.chainId ?? null, hold?.nonce ?? null, hold?.reservationId ?? null],
      );
      return row!.n === 1;
    },

    async nonceHolds(walletId, chainId) {
      return query<{ caseId: string; nonce: number }>(
        `SELECT p.case_id AS "caseId", p.nonce FROM approval_case_preparations p JOIN approval_cases c ON c.id = p.case_id
         WHERE c.wallet_id = $1::uuid AND p.chain_id = $2 AND p.nonce IS NOT NULL AND p.nonce_released_at IS NULL AND c.status <> 'consumed'
         ORDER BY p.nonce`,
        [walletId, chainId],
      );
    },

    async releaseNonce(caseId, at) {
      await query(
        `WITH released AS (
           UPDATE approval_case_preparations p SET nonce_released_at = $2
           FROM approval_cases c
           WHERE p.case_id = $1::uuid AND c.id = p.case_id AND p.nonce IS NOT NULL AND p.nonce_released_at IS NULL
           RETURNING c.wallet_id, p.chain_id::text AS chain_id, p.nonce
         )
         INSERT INTO nonce_reservations (wallet_id, chain_id, nonce) SELECT wallet_id, chain_id, nonce FROM released
         ON CONFLICT (wallet_id, chain_id, nonce) DO UPDATE SET reservation_id = NULL, expires_at = NULL`,
        [caseId, at],
      );
    },
  };
}
