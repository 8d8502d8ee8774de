'use client';

import { useQuery } from '@tanstack/react-query';
import { assetOf, formatAmount, parseUnits, type AmountLocation } from '@wallet/domain/chains/amounts.ts';
import type { CaseRequest } from '@/lib/approval-cases';
import { useTRPC } from '@/lib/trpc';
import { None } from './values';

/** The deployment's configured chains (symbols and decimals); they change only with a restart. */
export function useChains() {
  const trpc = useTRPC();
  return useQuery(trpc.chains.list.queryOptions(undefined, { staleTime: Infinity })).data ?? [];
}

/** An amount in base units as `0.002 ETH` / `5 USDC`, with the base units in its tooltip. */
export function Amount({ value, at }: { value: string | null | undefined; at: AmountLocation }) {
  const chains = useChains();
  if (value === null || value === undefined) return <None />;
  return (
    <span className="whitespace-nowrap" title={`${value} base units`}>
      {formatAmount(value, assetOf(chains, at))}
    </span>
  );
}

/** A yield amount (decimal USDC, or `all`) as `10.5 USDC`, with the USDC decimals of the chain. */
export function UsdcAmount({ amount, chainId }: { amount: string | null | undefined; chainId: number | string }) {
  const chains = useChains();
  if (amount === null || amount === undefined) return <None />;
  const asset = assetOf(chains, { walletType: 'EVM', chainId: String(chainId), tokenAddress: chains.find((c) => c.chainId === String(chainId))?.usdc?.address ?? null });
  const base = asset?.symbol === 'USDC' ? parseUnits(amount, asset.decimals) : null;
  return <span className="whitespace-nowrap">{base === null || !asset ? `${amount} USDC` : formatAmount(base, asset)}</span>;
}

/** A case's declared transfer amount, formatted; none when the request moves nothing it declares. */
export function CaseAmount({ request }: { request: CaseRequest }) {
  if (!request.transfer) return <None />;
  return <Amount value={request.transfer.value} at={{ ...request.chain, tokenAddress: request.transfer.tokenAddress }} />;
}
