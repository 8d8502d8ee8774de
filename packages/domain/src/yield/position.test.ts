import { decodeFunctionData, encodeAbiParameters, getAddress, maxUint256 } from 'viem';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../errors.ts';
import type { EvmCallResult, EvmCallSnapshot, Hex } from '../transactions/gateways.ts';
import { AAVE_POOL_ABI, ERC20_ABI, ERC4626_VAULT_ABI } from './abis.ts';
import {
  decodePoolPosition,
  decodeVaultPosition,
  decodeVaultShares,
  formatUsdc,
  poolPositionCalls,
  vaultRedeemCalls,
  vaultShareCall,
  yieldPositionQuerySchema,
  yieldPositionSchema,
  type PoolMarket,
  type VaultMarket,
} from './position.ts';

const addr = (n: number) => getAddress(`0x${n.toString(16).padStart(40, '0')}`) as Hex;
const asset = { symbol: 'USDC', address: addr(1), decimals: 6 } as const;
const pool: PoolMarket = { id: 'poolprov-v3:84532:usdc', chainId: 84532, name: 'pool', testOnly: true, asset, source: 'poolprov-v3', contracts: { pool: addr(2), aToken: addr(3) } };
const vault: VaultMarket = { id: 'vaultprov-v2-base-sepolia-demo-usdc', chainId: 84532, name: 'vault', testOnly: true, asset, source: 'vaultprov-v2', contracts: { vault: addr(4), bundler: addr(5) } };
const wallet = addr(0xabc);

const uint = (n: bigint): EvmCallResult => ({ ok: true, data: encodeAbiParameters([{ type: 'uint256' }], [n]) });
const reverted: EvmCallResult = { ok: false, revertData: '0x4323a555', message: 'execution reverted' };
// 2026-01-01T00:00:00Z
const snapshot = (results: EvmCallResult[], blockNumber = 1234n): EvmCallSnapshot => ({ blockNumber, blockTimestamp: 1767225600n, results });
const USDC = 1_000_000n;

const apiError = (fn: () => unknown): ApiError => {
  try {
    fn();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('no error thrown');
};

describe('formatUsdc', () => {
  it('always six decimals', () => {
    expect(formatUsdc(0n)).toBe('0.000000');
    expect(formatUsdc(1n)).toBe('0.000001');
    expect(formatUsdc(10n * USDC)).toBe('10.000000');
    expect(formatUsdc(10_500_001n)).toBe('10.500001');
    expect(formatUsdc(123_456_789_012_345_678n)).toBe('123456789012.345678');
  });
});

describe('the position query', () => {
  it('takes marketId and/or an integer chainId, nothing else', () => {
    expect(yieldPositionQuerySchema.parse({ marketId: 'm' })).toEqual({ marketId: 'm' });
    expect(yieldPositionQuerySchema.parse({ chainId: '84532' })).toEqual({ chainId: 84532 });
    expect(yieldPositionQuerySchema.parse({})).toEqual({});
    for (const bad of [{ chainId: 'base' }, { chainId: '1.5' }, { chainId: '' }, { marketId: '' }, { marketId: 'm', extra: '1' }, { marketId: ['a', 'b'] }]) {
      expect(yieldPositionQuerySchema.safeParse(bad).success, JSON.stringify(bad)).toBe(false);
    }
  });
});

describe('pool-provider position', () => {
  it('reads the aToken balance, the pool liquidity and simulates withdraw(usdc, max, wallet) from the wallet', () => {
    const [balance, liquidity, withdraw] = poolPositionCalls(pool, wallet);
    expect(balance).toMatchObject({ to: pool.contracts.aToken });
    expect(balance!.from).toBeUndefined();
    expect(decodeFunctionData({ abi: ERC20_ABI, data: balance!.data })).toMatchObject({ functionName: 'balanceOf', args: [wallet] });
    expect(liquidity).toMatchObject({ to: asset.address });
    expect(decodeFunctionData({ abi: ERC20_ABI, data: liquidity!.data })).toMatchObject({ functionName: 'balanceOf', args: [pool.contracts.aToken] });
    expect(withdraw).toMatchObject({ from: wallet, to: pool.contracts.pool });
    expect(decodeFunctionData({ abi: AAVE_POOL_ABI, data: withdraw!.data })).toMatchObject({ functionName: 'withdraw', args: [asset.address, maxUint256, wallet] });
  });

  it('the full balance is available when the withdrawal simulates, null when it reverts, zero when empty', () => {
    const ok = decodePoolPosition(pool, snapshot([uint(10n * USDC), uint(500n * USDC), uint(10n * USDC)]));
    expect(ok).toEqual({
      marketId: pool.id,
      protocol: 'poolprov-v3',
      reserve: asset,
      suppliedBalance: '10.000000',
      availableLiquidity: '500.000000',
      withdrawal: { availableAmount: '10.000000' },
      blockNumber: 1234,
      blockTimestamp: '2026-01-01T00:00:00.000Z',
    });
    expect(yieldPositionSchema.parse(ok)).toEqual(ok);
    expect(decodePoolPosition(pool, snapshot([uint(10n * USDC), uint(0n), reverted])).withdrawal.availableAmount).toBeNull();
    // An empty position: zero, even though withdraw(max) of nothing reverts.
    expect(decodePoolPosition(pool, snapshot([uint(0n), uint(5n), reverted])).withdrawal.availableAmount).toBe('0.000000');
  });

  it('a reverting or empty plain read is 502 YIELD_POSITION_READ_FAILED', () => {
    const revert = apiError(() => decodePoolPosition(pool, snapshot([uint(1n), reverted, uint(1n)], 77n)));
    expect(revert).toMatchObject({ status: 502, code: 'YIELD_POSITION_READ_FAILED' });
    expect(revert.message).toMatch(/balanceOf\(aToken\) at block 77: reverted/);
    const noCode = apiError(() => decodePoolPosition(pool, snapshot([{ ok: true, data: '0x' }, uint(1n), uint(1n)])));
    expect(noCode).toMatchObject({ status: 502, code: 'YIELD_POSITION_READ_FAILED' });
    expect(noCode.message).toMatch(/no contract/);
  });
});

describe('vault-provider position', () => {
  it('reads the share balance, then previews and simulates redeem(shares, wallet, wallet) from the wallet', () => {
    const shares = vaultShareCall(vault, wallet);
    expect(shares).toMatchObject({ to: vault.contracts.vault });
    expect(decodeFunctionData({ abi: ERC4626_VAULT_ABI, data: shares.data })).toMatchObject({ functionName: 'balanceOf', args: [wallet] });
    const [preview, redeem] = vaultRedeemCalls(vault, wallet, 42n);
    expect(preview!.from).toBeUndefined();
    expect(decodeFunctionData({ abi: ERC4626_VAULT_ABI, data: preview!.data })).toMatchObject({ functionName: 'previewRedeem', args: [42n] });
    expect(redeem).toMatchObject({ from: wallet, to: vault.contracts.vault });
    expect(decodeFunctionData({ abi: ERC4626_VAULT_ABI, data: redeem!.data })).toMatchObject({ functionName: 'redeem', args: [42n, wallet, wallet] });
  });

  it('the supplied balance is previewRedeem(shares); available when the redeem simulates, null when not, zero when empty', () => {
    const shares = 9_999_999_999_999_999_999n;
    const first = snapshot([uint(shares)]);
    expect(decodeVaultShares(vault, first)).toBe(shares);
    const ok = decodeVaultPosition(vault, shares, first, snapshot([uint(10_012_345n), uint(10_012_345n)]));
    expect(ok).toEqual({
      marketId: vault.id,
      protocol: 'vaultprov-v2',
      vaultAddress: vault.contracts.vault,
      shares: { balance: '9999999999999999999', decimals: 18 },
      suppliedBalance: '10.012345',
      withdrawal: { availableAmount: '10.012345' },
      blockNumber: 1234,
      blockTimestamp: '2026-01-01T00:00:00.000Z',
    });
    expect(yieldPositionSchema.parse(ok)).toEqual(ok);
    expect('reserve' in ok || 'availableLiquidity' in ok).toBe(false);
    expect(decodeVaultPosition(vault, shares, first, snapshot([uint(10_012_345n), reverted])).withdrawal.availableAmount).toBeNull();
    const empty = decodeVaultPosition(vault, 0n, snapshot([uint(0n)]), null);
    expect(empty).toMatchObject({ suppliedBalance: '0.000000', withdrawal: { availableAmount: '0.000000' }, shares: { balance: '0', decimals: 18 } });
    // A reverting preview is a failed read, not an unavailable withdrawal.
    expect(apiError(() => decodeVaultPosition(vault, shares, first, snapshot([reverted, uint(1n)])))).toMatchObject({ status: 502, code: 'YIELD_POSITION_READ_FAILED' });
    expect(apiError(() => decodeVaultShares(vault, snapshot([reverted])))).toMatchObject({ status: 502 });
  });
});
