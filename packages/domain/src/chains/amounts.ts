/**
 * How the console writes an amount: base units and the asset's symbol and decimals, both from the
 * chain directory (`ChainInfo`: each chain's native currency and its USDC), so `2000000000000000`
 * on an 18-decimal chain reads `0.002 ETH` and `5000000` of USDC reads `5 USDC`. Pure: the console
 * (browser) and the API use the same functions.
 */
import type { ChainInfo } from './service.ts';

export interface AssetUnits {
  symbol: string;
  decimals: number;
}

/** Where a record or request sits and what it moves (`tokenAddress` null: the native asset). */
export interface AmountLocation {
  walletType: string;
  chainId?: string | null;
  network?: string | null;
  tokenAddress?: string | null;
}

const sameAddress = (a: string, b: string) => (a.startsWith('0x') ? a.toLowerCase() === b.toLowerCase() : a === b);

/** The configured chain a record names (EVM by chain id, Solana by network), or undefined. */
export function chainOf(chains: readonly ChainInfo[], at: Pick<AmountLocation, 'walletType' | 'chainId' | 'network'>): ChainInfo | undefined {
  return chains.find((c) => c.type === at.walletType && (c.type === 'EVM' ? c.chainId === (at.chainId ?? undefined) : c.network === (at.network ?? undefined)));
}

/** The native currency or the USDC of the chain; null for a chain or token the directory does not know. */
export function assetOf(chains: readonly ChainInfo[], at: AmountLocation): AssetUnits | null {
  const chain = chainOf(chains, at);
  if (!chain) return null;
  if (!at.tokenAddress) return chain.nativeCurrency;
  if (chain.usdc && sameAddress(chain.usdc.address, at.tokenAddress)) return { symbol: 'USDC', decimals: chain.usdc.decimals };
  return null;
}

/** Base units (a non-negative integer string or bigint) as a decimal string without trailing zeros: `2000000000000000`, 18 → `0.002`. */
export function formatUnits(baseUnits: string | bigint, decimals: number): string {
  const value = typeof baseUnits === 'bigint' ? baseUnits : BigInt(baseUnits);
  const negative = value < 0n;
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  return `${negative ? '-' : ''}${whole}${fraction ? `.${fraction}` : ''}`;
}

/** A decimal string in standard units (`10.5`) as base units; null when it is not one or has more decimals than the asset. */
export function parseUnits(amount: string, decimals: number): bigint | null {
  const match = /^(\d+)(?:\.(\d+))?$/.exec(amount.trim());
  if (!match) return null;
  const fraction = match[2] ?? '';
  if (fraction.replace(/0+$/, '').length > decimals) return null;
  return BigInt(match[1]!) * 10n ** BigInt(decimals) + BigInt(fraction.slice(0, decimals).padEnd(decimals, '0') || '0');
}

/**
 * `0.002 ETH`, `5 USDC`. Without a known asset (a token the directory does not list, an unknown
 * chain) the base units are shown as they are, marked as such: `12345 base units`. A value that is
 * not an integer string is returned unchanged.
 */
export function formatAmount(baseUnits: string | bigint, asset: AssetUnits | null): string {
  if (typeof baseUnits === 'string' && !/^-?\d+$/.test(baseUnits)) return baseUnits;
  if (!asset) return `${baseUnits.toString()} base units`;
  return `${formatUnits(baseUnits, asset.decimals)} ${asset.symbol}`;
}
