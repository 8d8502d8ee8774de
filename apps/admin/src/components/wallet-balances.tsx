'use client';

import { useQueries, useQuery } from '@tanstack/react-query';
import { apiFailure, useTRPC, type RouterOutputs } from '@/lib/trpc';
import { Empty, ErrorBox, Loading, Mono, Table, Td } from './ui';

type Chain = RouterOutputs['chains']['list'][number];
type Balances = RouterOutputs['balances']['get'];

const chainKey = (chain: Chain) => chain.chainId ?? chain.network ?? chain.name;
const sameToken = (a: string, b: string) => (a.startsWith('0x') ? a.toLowerCase() === b.toLowerCase() : a === b);

/** `native`, `usdc` for the chain's configured USDC, else the token address or mint. */
function assetKey(chain: Chain, entry: Balances['balances'][number]): string {
  if (entry.tokenAddress === null) return 'native';
  return chain.usdc && sameToken(chain.usdc.address, entry.tokenAddress) ? 'usdc' : entry.tokenAddress;
}

/**
 * The wallet's balances on every configured chain of its type, each chain read with the balances
 * use case (REST GET /v1/wallets/{walletId}/balances, here tRPC `balances.get`) and refreshed every
 * 15 s; a chain that does not answer shows as unavailable with its error code.
 */
export function WalletBalances({ walletId }: { walletId: string }) {
  const trpc = useTRPC();
  const wallet = useQuery(trpc.wallets.get.queryOptions({ walletId }));
  const chains = useQuery(trpc.chains.list.queryOptions());
  const ofType = (chains.data ?? []).filter((c) => c.type === wallet.data?.type);
  const reads = useQueries({
    queries: ofType.map((chain) =>
      trpc.balances.get.queryOptions(
        chain.type === 'EVM' ? { walletId, chainId: chain.chainId } : { walletId, network: chain.network },
        { refetchInterval: 15_000, retry: false },
      ),
    ),
  });
  if (wallet.isPending || chains.isPending) return <Loading label="Reading balances…" />;
  if (wallet.error || chains.error) return <ErrorBox title="Balances could not be read" error={wallet.error ?? chains.error} />;
  if (ofType.length === 0) return <Empty title={`No configured chain for ${wallet.data.type} wallets`} />;
  return (
    <Table head={['Chain', 'Asset', 'Balance', 'Read at']}>
      {ofType.flatMap((chain, i) => {
        const read = reads[i]!;
        const where = (
          <Td>
            {chain.name}
            <div className="text-xs text-slate-400">{chainKey(chain)}</div>
          </Td>
        );
        if (read.isPending) {
          return [
            <tr key={chainKey(chain)} data-testid={`balance-${chainKey(chain)}-reading`}>
              {where}
              <Td className="text-slate-400">reading…</Td>
              <Td />
              <Td />
            </tr>,
          ];
        }
        if (read.error) {
          const failure = apiFailure(read.error);
          return [
            <tr key={chainKey(chain)} data-testid={`balance-${chainKey(chain)}-unavailable`}>
              {where}
              <Td>—</Td>
              <Td>
                <span className="text-amber-700" title={failure.message}>
                  unavailable ({failure.code})
                </span>
              </Td>
              <Td />
            </tr>,
          ];
        }
        return read.data.balances.map((entry) => (
          <tr key={`${chainKey(chain)}-${assetKey(chain, entry)}`} data-testid={`balance-${chainKey(chain)}-${assetKey(chain, entry)}`}>
            {where}
            <Td>
              {entry.symbol === entry.tokenAddress ? <Mono title={entry.tokenAddress}>{entry.symbol}</Mono> : entry.symbol}
              {entry.tokenAddress && entry.symbol !== entry.tokenAddress ? <div className="text-xs text-slate-400">{entry.tokenAddress}</div> : null}
            </Td>
            <Td>
              <span title={`${entry.rawBalance} base units`}>{`${entry.balance} ${entry.symbol === entry.tokenAddress ? '' : entry.symbol}`.trim()}</span>
            </Td>
            <Td className="text-xs text-slate-500">{'blockNumber' in entry ? `block ${entry.blockNumber}` : `slot ${entry.slot}`}</Td>
          </tr>
        ));
      })}
    </Table>
  );
}
