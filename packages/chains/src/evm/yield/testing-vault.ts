/**
 * Vault liquidity shortage for tests (import from '@wallet/chains/testing'), recipe step 13: a
 * borrowable Morpho market (AdaptiveCurveIrm, mock oracle, mock collateral, LLTV 86 %) gets all of
 * the vault's USDC (`reallocate`), and a borrower takes 95 % of it. A full `redeem` then reverts
 * with NotEnoughLiquidity() (0x4323a555) while small withdrawals still work.
 */
import { maxUint256, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { TEST_USDC_ABI } from '../test-usdc.ts';
import { ERC20_ABI } from './abis.ts';
import { MORPHO, morphoArtifact } from './artifacts.ts';
import type { YieldDeployment } from './deploy.ts';
import { idleMarketParams, marketId, setVaultCap, type MarketParams } from './deploy-vault.ts';
import { rpc } from '../deployments.ts';
import { asDeployer, sender } from './send.ts';

export interface VaultLiquidityShortage {
  borrowerPrivateKey: `0x${string}`;
  borrower: Address;
  /** USDC base units borrowed from the borrowable market. */
  borrowed: bigint;
  /** The borrowable market now holding the vault's USDC. */
  market: MarketParams;
}

const LLTV = 860_000_000_000_000_000n;

/**
 * Moves the vault's USDC into a new borrowable market and borrows `borrowPercent` (default 95) % of
 * it, or all but `leaveBaseUnits` when that is given.
 */
export function createVaultLiquidityShortage(rpcUrl: string, d: YieldDeployment, opts: { borrowPercent?: bigint; leaveBaseUnits?: bigint } = {}): Promise<VaultLiquidityShortage> {
  return asDeployer(rpcUrl, d.chainId, async (s) => {
    const morphoAbi = morphoArtifact(MORPHO.morpho).abi;
    const vaultAbi = morphoArtifact(MORPHO.metaMorpho).abi;
    const irm = await s.deploy(morphoArtifact(MORPHO.adaptiveCurveIrm), [d.vault.morpho], 'AdaptiveCurveIrm');
    const oracle = await s.deploy(morphoArtifact(MORPHO.oracleMock), [], 'OracleMock');
    await s.call(oracle, morphoArtifact(MORPHO.oracleMock).abi, 'setPrice', [10n ** 24n]); // 1 collateral (18 dec) = 1 USDC (6 dec), scale 1e36
    const collateral = await s.deploy(morphoArtifact(MORPHO.erc20Mock), ['Devnet Morpho collateral', 'DMCOL'], 'ERC20Mock');
    const market: MarketParams = { loanToken: d.vault.usdc, collateralToken: collateral, oracle, irm, lltv: LLTV };
    await s.call(d.vault.morpho, morphoAbi, 'enableIrm', [irm]);
    if (!(await s.read<boolean>(d.vault.morpho, morphoAbi, 'isLltvEnabled', [LLTV]))) await s.call(d.vault.morpho, morphoAbi, 'enableLltv', [LLTV]);
    await s.call(d.vault.morpho, morphoAbi, 'createMarket', [market]);
    await setVaultCap(s, d.vault.vault, market, 2n ** 184n - 1n);
    // Everything from the idle market (assets 0 = withdraw all) into the new one (max = the rest).
    await s.call(d.vault.vault, vaultAbi, 'reallocate', [
      [
        { marketParams: idleMarketParams(d.vault.usdc), assets: 0n },
        { marketParams: market, assets: maxUint256 },
      ],
    ]);
    const [totalSupplyAssets] = await s.read<readonly bigint[]>(d.vault.morpho, morphoAbi, 'market', [marketId(market)]);
    const borrowed = opts.leaveBaseUnits !== undefined ? totalSupplyAssets! - opts.leaveBaseUnits : (totalSupplyAssets! * (opts.borrowPercent ?? 95n)) / 100n;
    const borrowerPrivateKey = generatePrivateKey();
    const borrower = privateKeyToAccount(borrowerPrivateKey);
    await rpc(rpcUrl, 'anvil_setBalance', [borrower.address, '0xde0b6b3a7640000']);
    const b = sender(rpcUrl, d.chainId, borrower, 0);
    const collateralAmount = borrowed * 2n * 10n ** 12n;
    await b.call(collateral, morphoArtifact(MORPHO.erc20Mock).abi, 'setBalance', [borrower.address, collateralAmount]);
    await b.call(collateral, ERC20_ABI, 'approve', [d.vault.morpho, collateralAmount]);
    await b.call(d.vault.morpho, morphoAbi, 'supplyCollateral', [market, collateralAmount, borrower.address, '0x']);
    await b.call(d.vault.morpho, morphoAbi, 'borrow', [market, borrowed, 0n, borrower.address, borrower.address]);
    return { borrowerPrivateKey, borrower: borrower.address, borrowed, market };
  });
}

/** Undoes it: the borrower repays all its borrow shares (USDC minted to it) and the vault moves everything back to the idle market. */
export async function endVaultLiquidityShortage(rpcUrl: string, d: YieldDeployment, shortage: VaultLiquidityShortage): Promise<void> {
  await asDeployer(rpcUrl, d.chainId, async (s) => {
    const morphoAbi = morphoArtifact(MORPHO.morpho).abi;
    await s.call(d.vault.usdc, TEST_USDC_ABI, 'mint', [shortage.borrower, shortage.borrowed / 10n + 1_000_000n]);
    const account = privateKeyToAccount(shortage.borrowerPrivateKey);
    const b = sender(rpcUrl, d.chainId, account, await s.public.getTransactionCount({ address: shortage.borrower }));
    const [, borrowShares] = await s.read<readonly bigint[]>(d.vault.morpho, morphoAbi, 'position', [marketId(shortage.market), shortage.borrower]);
    await b.call(d.vault.usdc, ERC20_ABI, 'approve', [d.vault.morpho, maxUint256]);
    await b.call(d.vault.morpho, morphoAbi, 'repay', [shortage.market, 0n, borrowShares, shortage.borrower, '0x']);
    await s.call(d.vault.vault, morphoArtifact(MORPHO.metaMorpho).abi, 'reallocate', [
      [
        { marketParams: shortage.market, assets: 0n },
        { marketParams: idleMarketParams(d.vault.usdc), assets: maxUint256 },
      ],
    ]);
  });
}
