/**
 * Solana balances, the pure half: SOL, then the network's USDC (listed even without a token
 * account), then every other mint of the wallet's token accounts, accounts of one mint summed.
 */
import { formatUnits } from '../chains/amounts.ts';
import type { ChainInfo } from '../chains/service.ts';
import { TOKEN_PROGRAM, type SolanaBalanceSnapshot } from './ports.ts';
import type { SolanaBalance } from './schemas.ts';

export function decodeSolanaBalances(chain: ChainInfo, snapshot: SolanaBalanceSnapshot): SolanaBalance[] {
  const { symbol, decimals } = chain.nativeCurrency;
  const native: SolanaBalance = {
    asset: 'native',
    tokenAddress: null,
    tokenProgram: null,
    symbol,
    decimals,
    rawBalance: snapshot.lamports.toString(),
    balance: formatUnits(snapshot.lamports, decimals),
    slot: Number(snapshot.slot),
  };
  const byMint = new Map<string, { program: string; amount: bigint; decimals: number; slot: bigint }>();
  for (const account of snapshot.tokenAccounts) {
    const seen = byMint.get(account.mint);
    byMint.set(account.mint, seen ? { ...seen, amount: seen.amount + account.amount } : { ...account });
  }
  const usdc = chain.usdc;
  if (usdc && !byMint.has(usdc.address)) {
    byMint.set(usdc.address, { program: TOKEN_PROGRAM, amount: 0n, decimals: usdc.decimals, slot: snapshot.programSlots[TOKEN_PROGRAM] ?? snapshot.slot });
  }
  const mints = [...byMint.keys()].sort((a, b) => (a === usdc?.address ? -1 : b === usdc?.address ? 1 : a < b ? -1 : a > b ? 1 : 0));
  return [
    native,
    ...mints.map((mint): SolanaBalance => {
      const t = byMint.get(mint)!;
      return {
        asset: 'spl',
        tokenAddress: mint,
        tokenProgram: t.program,
        // SPL mints carry no symbol on chain (metadata programs are not read): the configured USDC is named, others by their mint.
        symbol: mint === usdc?.address ? 'USDC' : mint,
        decimals: t.decimals,
        rawBalance: t.amount.toString(),
        balance: formatUnits(t.amount, t.decimals),
        slot: Number(t.slot),
      };
    }),
  ];
}
