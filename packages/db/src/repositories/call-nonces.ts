import type { Database } from '../database.ts';

/**
 * The nonce a batch's delegation uses (calls/service.ts): a wallet's own type 4 transaction at
 * nonce N carrying its authorization moves its nonce to N + 2, so N + 1 must never be handed out
 * for another transaction. `burnNonce` takes it out of the allocator in one statement: when the
 * counter's next nonce is exactly it (never handed out), the counter moves past it; else when it
 * sits free in `nonce_reservations` (given back, or a lapsed reservation), that row goes. Otherwise
 * another request or record holds it: false.
 */
export function createCallNonceStore({ query }: Database) {
  return {
    async burnNonce(walletId: string, chainId: string, nonce: number): Promise<boolean> {
      const [row] = await query<{ taken: string | number }>(
        `WITH bumped AS (
           UPDATE nonce_counters SET next_nonce = $3::int + 1
           WHERE wallet_id = $1::uuid AND chain_id = $2 AND next_nonce = $3::int
           RETURNING 1
         ), freed AS (
           DELETE FROM nonce_reservations
           WHERE wallet_id = $1::uuid AND chain_id = $2 AND nonce = $3::int AND (expires_at IS NULL OR expires_at <= now())
             AND NOT EXISTS (SELECT 1 FROM bumped)
           RETURNING 1
         )
         SELECT (SELECT count(*) FROM bumped) + (SELECT count(*) FROM freed) AS taken`,
        [walletId, chainId, nonce],
      );
      return Number(row?.taken ?? 0) > 0;
    },
  };
}
