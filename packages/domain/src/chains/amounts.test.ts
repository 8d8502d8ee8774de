import { describe, expect, it } from 'vitest';
import { assetOf, formatAmount, formatUnits, parseUnits } from './amounts.ts';
import type { ChainInfo } from './service.ts';

const chains: ChainInfo[] = [
  { type: 'EVM', chainId: '31337', name: 'Local EVM', nativeCurrency: { symbol: 'ETH', decimals: 18 }, usdc: { address: '0xAbC0000000000000000000000000000000000001', decimals: 6 }, isDevnet: true },
  { type: 'EVM', chainId: '137', name: 'Polygon', nativeCurrency: { symbol: 'POL', decimals: 18 }, usdc: null, isDevnet: false },
  { type: 'SOLANA', network: 'SOLANA_DEVNET', name: 'Solana devnet', nativeCurrency: { symbol: 'SOL', decimals: 9 }, usdc: { address: 'UsdcMint111', decimals: 6 }, isDevnet: true },
];

describe('formatUnits', () => {
  it('places the decimal point and drops trailing zeros', () => {
    expect(formatUnits('2000000000000000', 18)).toBe('0.002');
    expect(formatUnits('5000000', 6)).toBe('5');
    expect(formatUnits('1234567', 6)).toBe('1.234567');
    expect(formatUnits(0n, 18)).toBe('0');
    expect(formatUnits('1', 18)).toBe('0.000000000000000001');
    expect(formatUnits('123', 0)).toBe('123');
    expect(formatUnits('-1500000', 6)).toBe('-1.5');
  });

  it('keeps every digit of amounts beyond a double', () => {
    expect(formatUnits('123456789012345678901234567890', 18)).toBe('123456789012.34567890123456789');
  });
});

describe('parseUnits', () => {
  it('reads standard units back to base units', () => {
    expect(parseUnits('10.5', 6)).toBe(10_500_000n);
    expect(parseUnits('0.000000', 6)).toBe(0n);
    expect(parseUnits('3', 9)).toBe(3_000_000_000n);
  });

  it('refuses what is not an amount of the asset', () => {
    expect(parseUnits('all', 6)).toBeNull();
    expect(parseUnits('1.0000001', 6)).toBeNull();
    expect(parseUnits('-1', 6)).toBeNull();
  });
});

describe('assetOf', () => {
  it('is the native currency of the chain without a token', () => {
    expect(assetOf(chains, { walletType: 'EVM', chainId: '31337', tokenAddress: null })).toEqual({ symbol: 'ETH', decimals: 18 });
    expect(assetOf(chains, { walletType: 'EVM', chainId: '137' })).toEqual({ symbol: 'POL', decimals: 18 });
    expect(assetOf(chains, { walletType: 'SOLANA', network: 'SOLANA_DEVNET' })).toEqual({ symbol: 'SOL', decimals: 9 });
  });

  it("is USDC for the chain's USDC address (EVM case-insensitively, Solana exactly)", () => {
    expect(assetOf(chains, { walletType: 'EVM', chainId: '31337', tokenAddress: '0xabc0000000000000000000000000000000000001' })).toEqual({ symbol: 'USDC', decimals: 6 });
    expect(assetOf(chains, { walletType: 'SOLANA', network: 'SOLANA_DEVNET', tokenAddress: 'UsdcMint111' })).toEqual({ symbol: 'USDC', decimals: 6 });
    expect(assetOf(chains, { walletType: 'SOLANA', network: 'SOLANA_DEVNET', tokenAddress: 'usdcmint111' })).toBeNull();
  });

  it('is null for an unknown token or chain', () => {
    expect(assetOf(chains, { walletType: 'EVM', chainId: '31337', tokenAddress: '0x0000000000000000000000000000000000000002' })).toBeNull();
    expect(assetOf(chains, { walletType: 'EVM', chainId: '1' })).toBeNull();
    expect(assetOf(chains, { walletType: 'SOLANA', network: 'SOLANA_MAINNET' })).toBeNull();
  });
});

describe('formatAmount', () => {
  it('writes the amount with the symbol', () => {
    expect(formatAmount('2000000000000000', { symbol: 'ETH', decimals: 18 })).toBe('0.002 ETH');
    expect(formatAmount(5_000_000n, { symbol: 'USDC', decimals: 6 })).toBe('5 USDC');
    expect(formatAmount('0', { symbol: 'SOL', decimals: 9 })).toBe('0 SOL');
  });

  it('marks base units of an unknown asset, and leaves a non-integer value as it is', () => {
    expect(formatAmount('12345', null)).toBe('12345 base units');
    expect(formatAmount('all', { symbol: 'USDC', decimals: 6 })).toBe('all');
  });
});
