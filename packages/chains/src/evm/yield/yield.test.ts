import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicClient, createWalletClient, encodeFunctionData, http, maxUint256, parseEther, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilInstance } from '../anvil.ts';
import { localChain } from '../dev-account.ts';
import { fundEvmWallet } from '../faucet.ts';
import { deployTestUsdc } from '../test-usdc.ts';
import { AAVE_DATA_PROVIDER_ABI, AAVE_POOL_ABI, BUNDLER_V2_ABI, ERC20_ABI, ERC4626_VAULT_ABI } from './abis.ts';
import { ensureYieldMarkets, type YieldDeployment } from './deploy.ts';
import { VAULT_SEED_DEPOSIT } from './deploy-vault.ts';
import { createVaultLiquidityShortage, endVaultLiquidityShortage } from './testing-vault.ts';
import { createLiquidityShortage, endLiquidityShortage, moveVaultSharePrice, setSupplyCap } from './testing.ts';

const USDC = 1_000_000n;
const dir = mkdtempSync(path.join(tmpdir(), 'yield-devnet-'));
const statePath = path.join(dir, 'anvil.json');
const recordFile = path.join(dir, 'yield.json');

let anvil: AnvilInstance;
let d: YieldDeployment;
let usdc: Address;
let pub: PublicClient;

beforeAll(async () => {
  anvil = await startAnvil({ blockTimeSeconds: 1, statePath });
  pub = createPublicClient({ chain: localChain(anvil.rpcUrl, anvil.chainId), transport: http(anvil.rpcUrl), pollingInterval: 50 });
  usdc = await deployTestUsdc(anvil.rpcUrl, anvil.chainId);
  const t0 = performance.now();
  const res = await ensureYieldMarkets(anvil.rpcUrl, recordFile, { usdc });
  console.log(`yield markets deployed in ${(performance.now() - t0).toFixed(0)} ms`);
  expect(res.reused).toBe(false);
  d = res.deployment;
});
afterAll(async () => {
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A fresh wallet with 1 ETH and `usdcAmount` TestUSDC from the faucet. */
async function fundedUser(usdcAmount: bigint) {
  const account = privateKeyToAccount(generatePrivateKey());
  await fundEvmWallet({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, usdcAddress: usdc, to: account.address, nativeWei: parseEther('1'), usdcBaseUnits: usdcAmount });
  const wallet = createWalletClient({ account, chain: localChain(anvil.rpcUrl, anvil.chainId), transport: http(anvil.rpcUrl) });
  const mined = async (hash: `0x${string}`) => {
    const r = await pub.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(r.status).toBe('success');
    return r;
  };
  /**
   * Estimate + 25 % (pitfall 1): an estimate made in the block of the previous step skips the
   * interest accrual the next block does — measured: Aave's withdraw(max) ran out of gas inside
   * the USDC transfer with the bare estimate, as does MetaMorpho's redeem.
   */
  const send = async (call: Parameters<typeof pub.estimateContractGas>[0]) => {
    const gas = ((await pub.estimateContractGas({ ...call, account })) * 125n) / 100n;
    return mined(await wallet.writeContract({ ...(call as Parameters<typeof wallet.writeContract>[0]), gas }));
  };
  return { account, address: account.address, wallet, mined, send };
}
type User = Awaited<ReturnType<typeof fundedUser>>;

const usdcBalance = (who: Address) => pub.readContract({ address: usdc, abi: ERC20_ABI, functionName: 'balanceOf', args: [who] });
const readVault = <F extends 'previewDeposit' | 'previewRedeem' | 'balanceOf'>(functionName: F, arg: F extends 'balanceOf' ? Address : bigint) =>
  pub.readContract({ address: d.vault.vault, abi: ERC4626_VAULT_ABI, functionName, args: [arg] } as never) as Promise<bigint>;

async function poolSupply(user: User, amount: bigint) {
  await user.send({ address: usdc, abi: ERC20_ABI, functionName: 'approve', args: [d.pool.poolAddress, amount] });
  await user.send({ address: d.pool.poolAddress, abi: AAVE_POOL_ABI, functionName: 'supply', args: [usdc, amount, user.address, 0] });
}

/** The wrapper flow: exact approval to the bundler, then multicall([erc20TransferFrom, erc4626Deposit]) with a 0.03 % bound. */
async function vaultDeposit(user: User, amount: bigint, deployment = d) {
  const { vault, bundler } = deployment.vault;
  await user.send({ address: usdc, abi: ERC20_ABI, functionName: 'approve', args: [bundler, amount] });
  const preview = await readVault('previewDeposit', amount);
  const minShares = (preview * 10_000n + 10_002n) / 10_003n; // ceil(preview × 10000 / 10003)
  const data = [
    encodeFunctionData({ abi: BUNDLER_V2_ABI, functionName: 'erc20TransferFrom', args: [usdc, amount] }),
    encodeFunctionData({ abi: BUNDLER_V2_ABI, functionName: 'erc4626Deposit', args: [vault, amount, minShares, user.address] }),
  ];
  await user.send({ address: bundler, abi: BUNDLER_V2_ABI, functionName: 'multicall', args: [data] });
  return { preview, minShares };
}

describe('yield contracts on anvil', () => {
  it('deploys one USDC reserve and a seeded vault over the devnet TestUSDC, without moving chain time ahead', async () => {
    const caps = await pub.readContract({ address: d.pool.dataProvider, abi: AAVE_DATA_PROVIDER_ABI, functionName: 'getReserveCaps', args: [usdc] });
    expect(caps).toEqual([0n, 0n]);
    const reserve = await pub.readContract({ address: d.pool.poolAddress, abi: AAVE_POOL_ABI, functionName: 'getReserveData', args: [usdc] });
    expect(reserve.aTokenAddress).toBe(d.pool.aToken);
    expect(d.pool.usdc).toBe(usdc);
    expect(d.vault.usdc).toBe(usdc);
    expect(await pub.readContract({ address: d.vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'asset' })).toBe(usdc);
    expect(await pub.readContract({ address: d.vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'decimals' })).toBe(18);
    expect(await pub.readContract({ address: d.vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'totalAssets' })).toBe(VAULT_SEED_DEPOSIT);
    const head = await pub.getBlock({ blockTag: 'latest' });
    expect(Number(head.timestamp)).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 1);
    // Back to 1-second interval mining.
    const n = await pub.getBlockNumber({ cacheTime: 0 });
    await new Promise((r) => setTimeout(r, 1_300));
    expect(await pub.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(n);
  });

  it('pool: exact approve + supply gives the aToken balance; withdraw(max) returns everything', async () => {
    const user = await fundedUser(600n * USDC);
    await poolSupply(user, 600n * USDC);
    expect(await pub.readContract({ address: d.pool.aToken, abi: ERC20_ABI, functionName: 'balanceOf', args: [user.address] })).toBe(600n * USDC);
    expect(await usdcBalance(user.address)).toBe(0n);
    await user.send({ address: d.pool.poolAddress, abi: AAVE_POOL_ABI, functionName: 'withdraw', args: [usdc, maxUint256, user.address] });
    expect(await pub.readContract({ address: d.pool.aToken, abi: ERC20_ABI, functionName: 'balanceOf', args: [user.address] })).toBe(0n);
    expect(await usdcBalance(user.address)).toBe(600n * USDC);
  });

  it('vault: bundler deposit mints at least minShares; redeem(all) pays previewRedeem', async () => {
    const user = await fundedUser(100n * USDC);
    const { minShares } = await vaultDeposit(user, 100n * USDC);
    const shares = await readVault('balanceOf', user.address);
    expect(shares).toBeGreaterThanOrEqual(minShares);
    expect(shares).toBeGreaterThan(0n);
    const expected = await readVault('previewRedeem', shares);
    expect(expected).toBeGreaterThan(99n * USDC);
    await user.send({ address: d.vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'redeem', args: [shares, user.address, user.address] });
    expect(await readVault('balanceOf', user.address)).toBe(0n);
    expect(await usdcBalance(user.address)).toBe(expected);
  });

  it('setSupplyCap: a supply past the cap reverts with Error("51")', async () => {
    const user = await fundedUser(20n * USDC);
    // No borrows yet, so the supplied total is the aToken supply: cap it 10–11 USDC above.
    const supplied = await pub.readContract({ address: d.pool.aToken, abi: ERC20_ABI, functionName: 'totalSupply' });
    const cap = supplied / USDC + 11n;
    await setSupplyCap(anvil.rpcUrl, d, cap);
    try {
      const caps = await pub.readContract({ address: d.pool.dataProvider, abi: AAVE_DATA_PROVIDER_ABI, functionName: 'getReserveCaps', args: [usdc] });
      expect(caps[1]).toBe(cap);
      await user.send({ address: usdc, abi: ERC20_ABI, functionName: 'approve', args: [d.pool.poolAddress, 20n * USDC] });
      const supply = (amount: bigint) =>
        pub.simulateContract({ account: user.account, address: d.pool.poolAddress, abi: AAVE_POOL_ABI, functionName: 'supply', args: [usdc, amount, user.address, 0] });
      await expect(supply(11n * USDC + 1n)).rejects.toThrow(/following reason:\s*51\b/);
      await expect(supply(10n * USDC)).resolves.toBeDefined();
    } finally {
      await setSupplyCap(anvil.rpcUrl, d, 0);
    }
  });

  it('moveVaultSharePrice raises previewRedeem by the supplied amount over the share supply', async () => {
    const shares = 10n ** 21n; // ~1000 USDC worth at the seed price
    const before = await readVault('previewRedeem', shares);
    const total = await pub.readContract({ address: d.vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'totalAssets' });
    await moveVaultSharePrice(anvil.rpcUrl, d, 100n * USDC);
    expect(await pub.readContract({ address: d.vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'totalAssets' })).toBe(total + 100n * USDC);
    const after = await readVault('previewRedeem', shares);
    expect(after).toBeGreaterThan(before);
    // All shares gain the same fraction (within rounding).
    const expected = (before * (total + 100n * USDC)) / total;
    expect(after - expected <= 1n && expected - after <= 1n).toBe(true);
  });

  it('createLiquidityShortage blocks a full pool withdrawal; endLiquidityShortage lifts it', async () => {
    const user = await fundedUser(150n * USDC);
    await poolSupply(user, 150n * USDC);
    const withdrawAll = () =>
      pub.simulateContract({ account: user.account, address: d.pool.poolAddress, abi: AAVE_POOL_ABI, functionName: 'withdraw', args: [usdc, maxUint256, user.address] });
    await expect(withdrawAll()).resolves.toBeDefined();
    const available = await usdcBalance(d.pool.aToken);
    expect(available).toBeGreaterThanOrEqual(150n * USDC);
    const shortage = await createLiquidityShortage(anvil.rpcUrl, d);
    expect(shortage.borrowed).toBe(available - available / 100n);
    expect(await usdcBalance(d.pool.aToken)).toBe(available - shortage.borrowed);
    await expect(withdrawAll()).rejects.toThrow();
    await endLiquidityShortage(anvil.rpcUrl, d, shortage);
    expect(await usdcBalance(d.pool.aToken)).toBeGreaterThanOrEqual(available);
    await expect(withdrawAll()).resolves.toBeDefined();
  });

  it('createVaultLiquidityShortage makes a full redeem revert with NotEnoughLiquidity; endVaultLiquidityShortage lifts it', async () => {
    const user = await fundedUser(100n * USDC);
    await vaultDeposit(user, 100n * USDC);
    const shares = await readVault('balanceOf', user.address);
    const redeem = (amount: bigint) =>
      pub.simulateContract({ account: user.account, address: d.vault.vault, abi: ERC4626_VAULT_ABI, functionName: 'redeem', args: [amount, user.address, user.address] });
    await expect(redeem(shares)).resolves.toBeDefined();
    const shortage = await createVaultLiquidityShortage(anvil.rpcUrl, d);
    expect(shortage.borrowed).toBeGreaterThan(0n);
    await expect(redeem(shares)).rejects.toThrow(/0x4323a555/); // NotEnoughLiquidity()
    await expect(redeem(shares / 100n)).resolves.toBeDefined();
    await endVaultLiquidityShortage(anvil.rpcUrl, d, shortage);
    await expect(redeem(shares)).resolves.toBeDefined();
  });

  it('a restart from the state file reuses the deployment, keeps block time monotonic, and deposits still work', async () => {
    const head = await pub.getBlock({ blockTag: 'latest' });
    await anvil.stop();
    anvil = await startAnvil({ blockTimeSeconds: 1, statePath });
    pub = createPublicClient({ chain: localChain(anvil.rpcUrl, anvil.chainId), transport: http(anvil.rpcUrl), pollingInterval: 50 });
    const t0 = performance.now();
    const again = await ensureYieldMarkets(anvil.rpcUrl, recordFile, { usdc });
    console.log(`yield markets reused in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(again.reused).toBe(true);
    expect(again.deployment).toEqual(d);
    const user = await fundedUser(80n * USDC);
    const next = await pub.getBlock({ blockTag: 'latest' });
    expect(next.number).toBeGreaterThan(head.number);
    expect(next.timestamp).toBeGreaterThanOrEqual(head.timestamp);
    const { minShares } = await vaultDeposit(user, 50n * USDC, again.deployment);
    expect(await readVault('balanceOf', user.address)).toBeGreaterThanOrEqual(minShares);
    await poolSupply(user, 30n * USDC);
    expect(await pub.readContract({ address: d.pool.aToken, abi: ERC20_ABI, functionName: 'balanceOf', args: [user.address] })).toBe(30n * USDC);
  });
});
