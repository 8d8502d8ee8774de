/**
 * GET /v1/wallets/{walletId}/yield/position, the pure half: the query, the contract calls a position
 * needs, their decoding into the response, and the response schema. No chain, no store
 * (position-reader.ts runs the calls).
 *
 * One snapshot block for everything. Pool provider (one round): aToken.balanceOf(wallet),
 * USDC.balanceOf(aToken) and a simulated `withdraw(usdc, maxUint256, wallet)` from the wallet.
 * Vault provider (two rounds at the same block): vault.balanceOf(wallet), then previewRedeem(shares)
 * and a simulated `redeem(shares, wallet, wallet)` from the wallet. The vault's maxWithdraw and
 * maxRedeem are never read (spec yield rule 6: they are zero).
 */
import { decodeFunctionResult, encodeFunctionData, maxUint256, type Abi } from 'viem';
import { z } from 'zod';
import { ApiError } from '../errors.ts';
import type { EvmCallResult, EvmCallSnapshot, Hex } from '../transactions/gateways.ts';
import { AAVE_POOL_ABI, ERC20_ABI, ERC4626_VAULT_ABI } from './abis.ts';
import type { YieldAsset, YieldMarket } from './markets.ts';

/** Query: `marketId` and/or `chainId` (an integer string: that chain's pool-provider market); nothing else. */
export const yieldPositionQuerySchema = z.strictObject({
  marketId: z.string().min(1).optional().meta({ description: 'A market of GET .../yield/markets' }),
  chainId: z
    .string()
    .regex(/^[0-9]+$/, 'must be an integer')
    .transform(Number)
    .optional()
    .meta({ description: "Without marketId: that chain's pool-provider market; with it: must be the market's chain" }),
});

/** Vault shares have 18 decimals (spec: position facts). */
export const VAULT_SHARE_DECIMALS = 18;

/** USDC base units as a decimal string with exactly six decimals: 10_500_000n -> "10.500000". */
export function formatUsdc(baseUnits: bigint): string {
  const sign = baseUnits < 0n ? '-' : '';
  const abs = baseUnits < 0n ? -baseUnits : baseUnits;
  return `${sign}${abs / 1_000_000n}.${(abs % 1_000_000n).toString().padStart(6, '0')}`;
}

interface PositionCommon {
  marketId: string;
  suppliedBalance: string;
  withdrawal: { availableAmount: string | null };
  blockNumber: number;
  blockTimestamp: string;
}

export interface PoolYieldPosition extends PositionCommon {
  protocol: 'poolprov-v3';
  reserve: YieldAsset;
  availableLiquidity: string;
}

export interface VaultYieldPosition extends PositionCommon {
  protocol: 'vaultprov-v2';
  vaultAddress: string;
  shares: { balance: string; decimals: 18 };
}

export type YieldPosition = PoolYieldPosition | VaultYieldPosition;

export type PoolMarket = Extract<YieldMarket, { source: 'poolprov-v3' }>;
export type VaultMarket = Extract<YieldMarket, { source: 'vaultprov-v2' }>;

export interface PositionCall {
  from?: Hex;
  to: Hex;
  data: Hex;
}

/** 502: a plain read (not a simulation) reverted or answered no data; the market's configuration or the chain is wrong. */
export const YIELD_POSITION_READ_FAILED = 'YIELD_POSITION_READ_FAILED';

function readFailed(what: string, blockNumber: bigint, detail: string): ApiError {
  return new ApiError(502, YIELD_POSITION_READ_FAILED, `Reading the position failed: ${what} at block ${blockNumber}: ${detail.slice(0, 200)}`);
}

/** The uint256 a plain read returned; a revert or undecodable data is a 502. */
function decodeUint(abi: Abi, functionName: string, what: string, result: EvmCallResult | undefined, blockNumber: bigint): bigint {
  if (!result) throw readFailed(what, blockNumber, 'no answer');
  if (!result.ok) throw readFailed(what, blockNumber, `reverted (${result.message})`);
  try {
    return decodeFunctionResult({ abi, functionName, data: result.data }) as bigint;
  } catch {
    throw readFailed(what, blockNumber, result.data === '0x' ? 'no data (no contract at this address?)' : 'undecodable answer');
  }
}

const isoTimestamp = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();

/** Pool provider: [aToken.balanceOf(wallet), USDC.balanceOf(aToken), withdraw(usdc, max, wallet) from the wallet]. */
export function poolPositionCalls(market: PoolMarket, wallet: Hex): PositionCall[] {
  const { aToken, pool } = market.contracts;
  const usdc = market.asset.address as Hex;
  return [
    { to: aToken as Hex, data: encodeFunctionData({ abi: ERC20_ABI, functionName: 'balanceOf', args: [wallet] }) },
    { to: usdc, data: encodeFunctionData({ abi: ERC20_ABI, functionName: 'balanceOf', args: [aToken as Hex] }) },
    { from: wallet, to: pool as Hex, data: encodeFunctionData({ abi: AAVE_POOL_ABI, functionName: 'withdraw', args: [usdc, maxUint256, wallet] }) },
  ];
}

/**
 * Rule 6 for the pool: the full balance if withdrawing it all simulates, null if not (no liquidity,
 * or debt the withdrawal would leave uncovered), zero for an empty position.
 */
export function decodePoolPosition(market: PoolMarket, snapshot: EvmCallSnapshot): PoolYieldPosition {
  const [balanceResult, liquidityResult, withdrawResult] = snapshot.results;
  const supplied = decodeUint(ERC20_ABI, 'balanceOf', `aToken ${market.contracts.aToken}.balanceOf(wallet)`, balanceResult, snapshot.blockNumber);
  const liquidity = decodeUint(ERC20_ABI, 'balanceOf', `USDC ${market.asset.address}.balanceOf(aToken)`, liquidityResult, snapshot.blockNumber);
  const available = supplied === 0n ? formatUsdc(0n) : withdrawResult?.ok ? formatUsdc(supplied) : null;
  return {
    marketId: market.id,
    protocol: 'poolprov-v3',
    reserve: { ...market.asset },
    suppliedBalance: formatUsdc(supplied),
    availableLiquidity: formatUsdc(liquidity),
    withdrawal: { availableAmount: available },
    blockNumber: Number(snapshot.blockNumber),
    blockTimestamp: isoTimestamp(snapshot.blockTimestamp),
  };
}

/** Vault provider, first round: the wallet's share balance. */
export function vaultShareCall(market: VaultMarket, wallet: Hex): PositionCall {
  return { to: market.contracts.vault as Hex, data: encodeFunctionData({ abi: ERC4626_VAULT_ABI, functionName: 'balanceOf', args: [wallet] }) };
}

export function decodeVaultShares(market: VaultMarket, snapshot: EvmCallSnapshot): bigint {
  return decodeUint(ERC4626_VAULT_ABI, 'balanceOf', `vault ${market.contracts.vault}.balanceOf(wallet)`, snapshot.results[0], snapshot.blockNumber);
}

/** Vault provider, second round (same block): [previewRedeem(shares), redeem(shares, wallet, wallet) from the wallet]. */
export function vaultRedeemCalls(market: VaultMarket, wallet: Hex, shares: bigint): PositionCall[] {
  const vault = market.contracts.vault as Hex;
  return [
    { to: vault, data: encodeFunctionData({ abi: ERC4626_VAULT_ABI, functionName: 'previewRedeem', args: [shares] }) },
    { from: wallet, to: vault, data: encodeFunctionData({ abi: ERC4626_VAULT_ABI, functionName: 'redeem', args: [shares, wallet, wallet] }) },
  ];
}

/**
 * Rules 3 and 6 for the vault: the supplied balance is previewRedeem(shares); the available amount is
 * that value if redeeming every share simulates, null if not, zero for an empty position. `redeem` is
 * null when there are no shares (nothing to preview or simulate).
 */
export function decodeVaultPosition(market: VaultMarket, shares: bigint, sharesSnapshot: EvmCallSnapshot, redeem: EvmCallSnapshot | null): VaultYieldPosition {
  let supplied = 0n;
  let available: string | null = formatUsdc(0n);
  if (shares > 0n) {
    if (!redeem) throw new Error('decodeVaultPosition: shares without the redeem round');
    const [previewResult, redeemResult] = redeem.results;
    supplied = decodeUint(ERC4626_VAULT_ABI, 'previewRedeem', `vault ${market.contracts.vault}.previewRedeem(${shares})`, previewResult, redeem.blockNumber);
    available = redeemResult?.ok ? formatUsdc(supplied) : null;
  }
  return {
    marketId: market.id,
    protocol: 'vaultprov-v2',
    vaultAddress: market.contracts.vault,
    shares: { balance: shares.toString(), decimals: VAULT_SHARE_DECIMALS },
    suppliedBalance: formatUsdc(supplied),
    withdrawal: { availableAmount: available },
    blockNumber: Number(sharesSnapshot.blockNumber),
    blockTimestamp: isoTimestamp(sharesSnapshot.blockTimestamp),
  };
}

const usdcAmount = z.string().meta({ description: 'USDC as a decimal string with exactly six decimals, e.g. "10.000000"' });
const positionCommon = {
  marketId: z.string(),
  suppliedBalance: usdcAmount.meta({ description: 'Current value of the position in USDC (not earnings); vault: previewRedeem of the share balance' }),
  withdrawal: z.object({
    availableAmount: usdcAmount.nullable().meta({
      description: 'Advisory: the full position value if withdrawing it all simulates at the snapshot block, null if that simulation fails, "0.000000" for an empty position. Not an exact maximum',
    }),
  }),
  blockNumber: z.number().int().meta({ description: 'The snapshot block every field was read at' }),
  blockTimestamp: z.string().meta({ description: "The snapshot block's timestamp, ISO 8601 UTC (e.g. 2026-01-01T00:00:00.000Z)" }),
};

export const yieldPositionSchema = z
  .discriminatedUnion('protocol', [
    z.object({
      ...positionCommon,
      protocol: z.literal('poolprov-v3'),
      reserve: z.object({ symbol: z.literal('USDC'), address: z.string(), decimals: z.literal(6) }).meta({ description: "The market's USDC reserve" }),
      availableLiquidity: usdcAmount.meta({ description: "USDC the pool holds (the reserve's balance of the aToken contract): what all suppliers can withdraw now" }),
    }),
    z.object({
      ...positionCommon,
      protocol: z.literal('vaultprov-v2'),
      vaultAddress: z.string(),
      shares: z.object({
        balance: z.string().meta({ description: 'Raw integer share balance as a decimal string' }),
        decimals: z.literal(VAULT_SHARE_DECIMALS),
      }),
    }),
  ])
  .meta({ id: 'YieldPosition' });
