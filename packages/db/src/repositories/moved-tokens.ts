import type { MovedTokens } from '@wallet/domain';
import type { Database } from '../database.ts';

/** The most moved tokens one balances answer reads (each costs three eth_calls in the same batch). */
export const MAX_MOVED_TOKENS = 50;

/** ERC-20 `transfer(address,uint256)` and `transferFrom(address,address,uint256)`: a batch call with either moves its target's tokens. */
const TOKEN_MOVES = ['0xa9059cbb', '0x23b872dd'];

/**
 * The balances use case's records port: the ERC-20 contracts the wallet's transaction records on
 * the chain moved (any status, any intent): a record's token, and the targets of a batch's token
 * transfers. Lowercase addresses; at most MAX_MOVED_TOKENS, in address order.
 */
export function createMovedTokens({ query }: Pick<Database, 'query'>): MovedTokens {
  return {
    async erc20(projectId, walletId, chainId) {
      const rows = await query<{ token: string }>(
        `SELECT token FROM (
           SELECT lower(token_address) AS token FROM transaction_records
           WHERE project_id = $1::uuid AND wallet_id = $2::uuid AND wallet_type = 'EVM' AND chain_id = $3 AND token_address IS NOT NULL
           UNION
           SELECT lower(c->>'to') AS token FROM transaction_records r, jsonb_array_elements(r.calls) c
           WHERE r.project_id = $1::uuid AND r.wallet_id = $2::uuid AND r.chain_id = $3 AND r.intent_kind = 'calls'
             AND jsonb_typeof(r.calls) = 'array' AND lower(left(c->>'data', 10)) = ANY($4::text[])
         ) moved
         ORDER BY token LIMIT ${MAX_MOVED_TOKENS}`,
        [projectId, walletId, chainId, TOKEN_MOVES],
      );
      return rows.map((r) => r.token);
    },
  };
}
