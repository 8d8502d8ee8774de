import type { Database } from '@wallet/db';
import type { MovedTokens } from '@wallet/domain';

/** The most moved tokens one balances answer reads (each costs three eth_calls in the same batch). */
export const MAX_MOVED_TOKENS = 50;

/**
 * The balances use case's records port: the ERC-20 contracts named by the wallet's transaction
 * records on the chain (any status, any intent), over the (walletId, …) index. Here rather than in
 * packages/db's transaction store because it is the route's only query.
 */
export function createMovedTokens(database: Pick<Database, 'prisma'>): MovedTokens {
  return {
    async erc20(projectId, walletId, chainId) {
      const rows = await database.prisma.transactionRecord.findMany({
        where: { projectId, walletId, walletType: 'EVM', chainId, tokenAddress: { not: null } },
        distinct: ['tokenAddress'],
        select: { tokenAddress: true },
        orderBy: { tokenAddress: 'asc' },
        take: MAX_MOVED_TOKENS,
      });
      return rows.flatMap((r) => (r.tokenAddress ? [r.tokenAddress] : []));
    },
  };
}
