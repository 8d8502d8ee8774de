import type { Database } from '../database.ts';

const FREE = '(expires_at IS NULL OR expires_at <= now())';

/**
 * The nonce a batch's delegation uses (calls/service.ts): a wallet's own type 4 transaction at
 * nonce N carrying its authorization moves its nonce to N + 2, so N + 1 must never be handed out
 * for another transaction. `burnNonce` takes it out of the allocator:
 *
 * 1. when the counter's next nonce is exactly it (never handed out), the counter moves past it, in
 *    one statement whose condition is checked again on the counter row a concurrent allocation
 *    may hold;
 * 2. otherwise, in a second statement (which sees every allocation committed meanwhile), when no
 *    live reservation and no record holds it and the counter is past it: a free row of it (given
 *    back, or a lapsed reservation) goes, and it is taken. This is also how the retry of a request
 *    killed after taking it (before its record existed) takes it again.
 *
 * False when another request or record holds it.
 */
export function createCallNonceStore({ query }: Database) {
  return {
    async burnNonce(walletId: string, chainId: string, nonce: number): Promise<boolean> {
      const bumped = await query(
        `UPDATE nonce_counters SET next_nonce = $3::int + 1 WHERE wallet_id = $1::uuid AND chain_id = $2 AND next_nonce = $3::int RETURNING 1 AS taken`,
        [walletId, chainId, nonce],
      );
      if (bumped.length > 0) return true;
      const [row] = await query<{ taken: boolean }>(
        `WITH held AS (
           SELECT 1 FROM nonce_reservations WHERE wallet_id = $1::uuid AND chain_id = $2 AND nonce = $3::int AND NOT ${FREE}
           UNION ALL
           SELECT 1 FROM transaction_records WHERE wallet_id = $1::uuid AND chain_id = $2 AND nonce = $3::int AND status <> 'failed'
         ), past AS (
           SELECT 1 FROM nonce_counters WHERE wallet_id = $1::uuid AND chain_id = $2 AND next_nonce > $3::int
         ), freed AS (
           DELETE FROM nonce_reservations
           WHERE wallet_id = $1::uuid AND chain_id = $2 AND nonce = $3::int AND ${FREE} AND NOT EXISTS (SELECT 1 FROM held) AND EXISTS (SELECT 1 FROM past)
           RETURNING 1
         )
         SELECT (NOT EXISTS (SELECT 1 FROM held) AND EXISTS (SELECT 1 FROM past)) AS taken, (SELECT count(*) FROM freed) AS freed`,
        [walletId, chainId, nonce],
      );
      return row?.taken === true;
    },
  };
}
