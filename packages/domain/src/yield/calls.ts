/**
 * The contract calls of a yield operation's steps, and the reading of their simulations. Pure: the
 * worker (runner.ts) reads the chain and signs; this decides what to call and what a revert means.
 */
import { decodeAbiParameters, decodeErrorResult, encodeFunctionData, maxUint256, toFunctionSelector, type Hex } from 'viem';
import type { EvmCallResult } from '../transactions/gateways.ts';
import { AAVE_POOL_ABI, BUNDLER_V2_ABI, ERC20_ABI, ERC4626_VAULT_ABI } from './abis.ts';
import type { YieldMarket } from './markets.ts';
import type { YieldErrorCode, YieldOperationRecord, YieldPhase, YieldPlan } from './operations.ts';

/** Audit actions of yield signatures; the policy action is the suffix (spec: Guardrail enforcement for yield). */
export const YIELD_SIGNING_ACTIONS = {
  approve: 'wallet.sign.yield.approve',
  supply: 'wallet.sign.yield.supply',
  vaultBundlesV1Deposit: 'wallet.sign.yield.vaultBundlesV1Deposit',
  withdraw: 'wallet.sign.yield.withdraw',
  redeem: 'wallet.sign.yield.redeem',
} as const;

/**
 * The signing action of a yield step's calldata (a fee replacement signs the same call again): by
 * the function's selector; null for a call no yield step makes.
 */
export function yieldSigningActionOf(data: Hex | null): string | null {
  const selector = data?.slice(0, 10).toLowerCase();
  const names: Record<string, string> = {
    approve: YIELD_SIGNING_ACTIONS.approve,
    supply: YIELD_SIGNING_ACTIONS.supply,
    multicall: YIELD_SIGNING_ACTIONS.vaultBundlesV1Deposit,
    withdraw: YIELD_SIGNING_ACTIONS.withdraw,
    redeem: YIELD_SIGNING_ACTIONS.redeem,
  };
  for (const abi of [ERC20_ABI, AAVE_POOL_ABI, BUNDLER_V2_ABI, ERC4626_VAULT_ABI]) {
    for (const item of abi) {
      if (item.type === 'function' && names[item.name] && toFunctionSelector(item) === selector) return names[item.name]!;
    }
  }
  return null;
}

/** The vault deposit's price bound: at most 0.03 % more per share than the preview at preparation (yield rule 4). */
const BOUND_NUMERATOR = 10_000n;
const BOUND_DENOMINATOR = 10_003n;

/** ceil(preview × 10000 / 10003): the fewest shares the bundler may mint, enforced on-chain. */
export const minSharesFor = (preview: bigint): bigint => (preview * BOUND_NUMERATOR + BOUND_DENOMINATOR - 1n) / BOUND_DENOMINATOR;

export interface YieldCall {
  phase: YieldPhase;
  signingAction: string;
  to: Hex;
  data: Hex;
}

/** Who the approval names: the pool (pool provider) or the bundler wrapper (vault provider). */
export const approvalSpender = (market: YieldMarket): Hex => (market.source === 'poolprov-v3' ? market.contracts.pool : market.contracts.bundler) as Hex;

export const allowanceRead = (market: YieldMarket, wallet: Hex) => ({
  to: market.asset.address as Hex,
  data: encodeFunctionData({ abi: ERC20_ABI, functionName: 'allowance', args: [wallet, approvalSpender(market)] }),
});

/** Vault: previewDeposit(amount) (the deposit's bound) or balanceOf(wallet) (a full withdrawal's shares). */
export const vaultRead = (market: YieldMarket & { source: 'vaultprov-v2' }, read: { previewDeposit: bigint } | { balanceOf: Hex }) => ({
  to: market.contracts.vault as Hex,
  data:
    'previewDeposit' in read
      ? encodeFunctionData({ abi: ERC4626_VAULT_ABI, functionName: 'previewDeposit', args: [read.previewDeposit] })
      : encodeFunctionData({ abi: ERC4626_VAULT_ABI, functionName: 'balanceOf', args: [read.balanceOf] }),
});

/** A uint256 returned by a read; null when the call reverted. */
export function uintResult(result: EvmCallResult | undefined): bigint | null {
  if (!result?.ok) return null;
  return decodeAbiParameters([{ type: 'uint256' }], result.data)[0];
}

/** approve(spender, exactly the requested amount) on the market's USDC. */
export function approvalCall(market: YieldMarket, amount: bigint): YieldCall {
  return {
    phase: 'approval',
    signingAction: YIELD_SIGNING_ACTIONS.approve,
    to: market.asset.address as Hex,
    data: encodeFunctionData({ abi: ERC20_ABI, functionName: 'approve', args: [approvalSpender(market), amount] }),
  };
}

/**
 * The operation's action: pool supply / withdraw (`all` = the max-uint256 sentinel), vault deposit
 * through the bundler (transferFrom, then deposit with the minimum shares of the plan), vault
 * withdraw(assets) or, for `all`, redeem(the shares captured at preparation).
 */
export function actionCall(market: YieldMarket, operation: Pick<YieldOperationRecord, 'action'>, amount: bigint | null, plan: YieldPlan, wallet: Hex): YieldCall {
  const usdc = market.asset.address as Hex;
  if (market.source === 'poolprov-v3') {
    const pool = market.contracts.pool as Hex;
    if (operation.action === 'deposit') {
      return { phase: 'action', signingAction: YIELD_SIGNING_ACTIONS.supply, to: pool, data: encodeFunctionData({ abi: AAVE_POOL_ABI, functionName: 'supply', args: [usdc, amount!, wallet, 0] }) };
    }
    return { phase: 'action', signingAction: YIELD_SIGNING_ACTIONS.withdraw, to: pool, data: encodeFunctionData({ abi: AAVE_POOL_ABI, functionName: 'withdraw', args: [usdc, amount ?? maxUint256, wallet] }) };
  }
  const vault = market.contracts.vault as Hex;
  if (operation.action === 'deposit') {
    const bundle = [
      encodeFunctionData({ abi: BUNDLER_V2_ABI, functionName: 'erc20TransferFrom', args: [usdc, amount!] }),
      encodeFunctionData({ abi: BUNDLER_V2_ABI, functionName: 'erc4626Deposit', args: [vault, amount!, BigInt(plan.minShares!), wallet] }),
    ];
    return {
      phase: 'action',
      signingAction: YIELD_SIGNING_ACTIONS.vaultBundlesV1Deposit,
      to: market.contracts.bundler as Hex,
      data: encodeFunctionData({ abi: BUNDLER_V2_ABI, functionName: 'multicall', args: [bundle] }),
    };
  }
  if (amount === null) {
    return { phase: 'action', signingAction: YIELD_SIGNING_ACTIONS.redeem, to: vault, data: encodeFunctionData({ abi: ERC4626_VAULT_ABI, functionName: 'redeem', args: [BigInt(plan.shares!), wallet, wallet] }) };
  }
  return { phase: 'action', signingAction: YIELD_SIGNING_ACTIONS.withdraw, to: vault, data: encodeFunctionData({ abi: ERC4626_VAULT_ABI, functionName: 'withdraw', args: [amount, wallet, wallet] }) };
}

/** Aave V3's error string for a supply over the reserve's cap (Errors.SUPPLY_CAP_EXCEEDED). */
const AAVE_SUPPLY_CAP_EXCEEDED = '51';

/** The revert's `Error(string)` reason when it has one. */
export function revertReason(result: Extract<EvmCallResult, { ok: false }>): string | null {
  if (!result.revertData || result.revertData === '0x') return null;
  try {
    const decoded = decodeErrorResult({ abi: [], data: result.revertData });
    if (decoded.errorName === 'Error') return String(decoded.args?.[0]);
    // Solidity panics carry their code (0x11 arithmetic over/underflow, 0x12 division by zero...).
    if (decoded.errorName === 'Panic') return `Panic(0x${BigInt(decoded.args?.[0] as bigint).toString(16)})`;
    return decoded.errorName;
  } catch {
    return null;
  }
}

/** Why a simulated action cannot be signed: the operation goes to `requires_action` with this error. */
export function simulationFailure(market: YieldMarket, operation: Pick<YieldOperationRecord, 'action'>, result: Extract<EvmCallResult, { ok: false }>): { code: YieldErrorCode; message: string } {
  const reason = revertReason(result);
  if (market.source === 'poolprov-v3' && operation.action === 'deposit' && reason === AAVE_SUPPLY_CAP_EXCEEDED) {
    return { code: 'AAVE_SUPPLY_CAP_EXCEEDED', message: 'The deposit would exceed the pool market supply cap; nothing was signed. Retry the same request once the cap allows it' };
  }
  const what = operation.action === 'deposit' ? 'deposit' : 'withdrawal';
  const detail = reason ?? result.message;
  const hint = operation.action === 'withdraw' ? '; a full withdrawal never becomes partial' : '';
  return { code: 'SIGNING_REQUIRES_ACTION', message: `The ${what} would fail if signed now (${detail.slice(0, 200)}); nothing was signed${hint}. Retry the same request once it can execute, or cancel it` };
}

/** The vault deposit's bound no longer holds: the preview now mints fewer shares than the plan's minimum. */
export const boundFailure = (preview: bigint, minShares: bigint) => ({
  code: 'SIGNING_REQUIRES_ACTION' as const,
  message:
    `The vault's share price rose more than 0.03 % since preparation (the deposit would mint ${preview} shares, the bound requires at least ${minShares}); ` +
    'nothing was signed. The bound never changes: cancel this operation and use a new Idempotency-Key for a new deposit',
});
