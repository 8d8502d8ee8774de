/**
 * Test helpers for the yield devnet (import from '@wallet/chains/testing'). Each one sends as dev
 * account #0 (the markets' admin and TestUSDC's owner) under its send lock, with automine on for
 * its few transactions, then back to the chain's interval mining.
 */
import { maxUint256, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TEST_USDC_ABI } from '../test-usdc.ts';
import { AAVE_POOL_ABI, ERC20_ABI } from './abis.ts';
import { AAVE, MORPHO, aaveAbi, aaveArtifact, morphoArtifact } from './artifacts.ts';
import type { YieldDeployment } from './deploy.ts';
import { initReserve } from './deploy-pool.ts';
import { idleMarketParams } from './deploy-vault.ts';
import { rpc } from '../deployments.ts';
import { asDeployer, sender, type Sender } from './send.ts';

const configuratorAbi = () => aaveAbi(AAVE.configurator);

/** Sets the pool's USDC supply cap, in whole tokens (0 = no cap); a supply past it reverts with Error("51"). */
export function setSupplyCap(rpcUrl: string, d: YieldDeployment, wholeTokens: bigint | number): Promise<void> {
  return asDeployer(rpcUrl, d.chainId, async (s) => {
    await s.call(d.pool.configurator, configuratorAbi(), 'setSupplyCap', [d.pool.usdc, BigInt(wholeTokens)]);
  });
}

/**
 * Raises the vault's share price: supplies `usdcBaseUnits` (minted to the deployer) to the idle
 * Morpho market on behalf of the vault. A plain USDC transfer to the vault would not count: its
 * totalAssets are its Morpho positions.
 */
export function moveVaultSharePrice(rpcUrl: string, d: YieldDeployment, usdcBaseUnits: bigint): Promise<void> {
  return asDeployer(rpcUrl, d.chainId, async (s) => {
    const morphoAbi = morphoArtifact(MORPHO.morpho).abi;
    await s.call(d.vault.usdc, TEST_USDC_ABI, 'mint', [s.account.address, usdcBaseUnits]);
    await s.call(d.vault.usdc, ERC20_ABI, 'approve', [d.vault.morpho, usdcBaseUnits]);
    await s.call(d.vault.morpho, morphoAbi, 'supply', [idleMarketParams(d.vault.usdc), usdcBaseUnits, 0n, d.vault.vault, '0x']);
  });
}

export interface LiquidityShortage {
  /** Account that borrowed; its key, to repay. */
  borrowerPrivateKey: `0x${string}`;
  borrower: Address;
  /** USDC base units borrowed from the pool. */
  borrowed: bigint;
  /** The collateral reserve's token (18 decimals, 1 USD). */
  collateral: Address;
}

/**
 * The collateral reserve (an 18-decimal mock token at 1 USD, LTV 80 %) and borrowing of USDC.
 * Added on first use, so the deployment itself keeps a single reserve.
 */
async function ensureCollateralReserve(s: Sender, d: YieldDeployment): Promise<Address> {
  const poolAbi = aaveAbi(AAVE.pool);
  const reserves = await s.read<readonly Address[]>(d.pool.poolAddress, poolAbi, 'getReservesList');
  const existing = reserves.find((r) => r !== d.pool.usdc);
  if (existing) return existing;
  const collateral = await s.deploy(aaveArtifact(AAVE.mintableErc20), ['Devnet collateral', 'DCOL', 18], 'collateral token');
  const aggregator = await s.deploy(aaveArtifact(AAVE.aggregator), [10n ** 8n], 'collateral aggregator');
  await s.call(d.pool.oracle, aaveAbi(AAVE.oracle), 'setAssetSources', [[collateral], [aggregator]]);
  await initReserve(s, d.pool, collateral, 18, 'DCOL');
  await s.call(d.pool.configurator, configuratorAbi(), 'configureReserveAsCollateral', [collateral, 8000n, 8250n, 10500n]);
  await s.call(d.pool.configurator, configuratorAbi(), 'setReserveBorrowing', [d.pool.usdc, true]);
  return collateral;
}

/**
 * Pool liquidity shortage: a fresh borrower deposits collateral and borrows all but `leaveBaseUnits`
 * (default 1 %) of the USDC reserve's available liquidity. A full `withdraw` by a supplier then
 * fails (3.0.2: Panic(0x11) in the rate strategy) until `endLiquidityShortage`.
 */
export async function createLiquidityShortage(rpcUrl: string, d: YieldDeployment, opts: { leaveBaseUnits?: bigint } = {}): Promise<LiquidityShortage> {
  return asDeployer(rpcUrl, d.chainId, async (s) => {
    const collateral = await ensureCollateralReserve(s, d);
    const available = await s.read<bigint>(d.pool.usdc, ERC20_ABI, 'balanceOf', [d.pool.aToken]);
    const borrowed = available - (opts.leaveBaseUnits ?? available / 100n);
    if (borrowed <= 0n) throw new Error(`nothing to borrow: the pool holds ${available} USDC base units`);
    const borrowerPrivateKey = generatePrivateKey();
    const borrower = privateKeyToAccount(borrowerPrivateKey);
    await rpc(rpcUrl, 'anvil_setBalance', [borrower.address, '0xde0b6b3a7640000']); // 1 ETH
    const b = sender(rpcUrl, d.chainId, borrower, 0);
    const collateralAmount = borrowed * 2n * 10n ** 12n; // 18 vs 6 decimals, LTV 80 %
    await b.call(collateral, aaveAbi(AAVE.mintableErc20), 'mint', [borrower.address, collateralAmount]);
    await b.call(collateral, ERC20_ABI, 'approve', [d.pool.poolAddress, collateralAmount]);
    await b.call(d.pool.poolAddress, AAVE_POOL_ABI, 'supply', [collateral, collateralAmount, borrower.address, 0]);
    await b.call(d.pool.poolAddress, BORROW_REPAY_ABI, 'borrow', [d.pool.usdc, borrowed, 2n, 0, borrower.address]);
    return { borrowerPrivateKey, borrower: borrower.address, borrowed, collateral };
  });
}

/** Undoes `createLiquidityShortage`: the borrower repays its whole debt (interest included; USDC minted to it). */
export async function endLiquidityShortage(rpcUrl: string, d: YieldDeployment, shortage: LiquidityShortage): Promise<void> {
  await asDeployer(rpcUrl, d.chainId, async (s) => {
    const extra = shortage.borrowed / 100n + 1_000_000n;
    await s.call(d.pool.usdc, TEST_USDC_ABI, 'mint', [shortage.borrower, extra]);
    const b = sender(rpcUrl, d.chainId, privateKeyToAccount(shortage.borrowerPrivateKey), await s.public.getTransactionCount({ address: shortage.borrower }));
    await b.call(d.pool.usdc, ERC20_ABI, 'approve', [d.pool.poolAddress, maxUint256]);
    await b.call(d.pool.poolAddress, BORROW_REPAY_ABI, 'repay', [d.pool.usdc, maxUint256, 2n, shortage.borrower]);
  });
}

const BORROW_REPAY_ABI = [
  {
    type: 'function',
    name: 'borrow',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'asset', type: 'address' },
      { name: 'amount', type: 'uint256' },
      { name: 'interestRateMode', type: 'uint256' },
      { name: 'referralCode', type: 'uint16' },
      { name: 'onBehalfOf', type: 'address' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'repay',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'asset', type: 'address' },
      { name: 'amount', type: 'uint256' },
      { name: 'interestRateMode', type: 'uint256' },
      { name: 'onBehalfOf', type: 'address' },
    ],
    outputs: [{ name: '', type: 'uint256' }],
  },
] as const;
