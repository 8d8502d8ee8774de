/**
 * The real Aave V3 core (protocol 3.0.2, `@aave/core-v3@1.19.3` artifacts) with one reserve: the
 * devnet's TestUSDC. The deployer is the addresses provider's owner, ACL admin and pool admin.
 * A price oracle (mock aggregator, 1 USD) is set too, so borrowing (test helpers) works.
 */
import { zeroAddress, type Address } from 'viem';
import { AAVE, aaveAbi, aaveArtifact } from './artifacts.ts';
import type { Sender } from './send.ts';

export interface PoolDeployment {
  /** The Pool proxy: supply, withdraw, getReserveData. */
  poolAddress: Address;
  /** AaveProtocolDataProvider: getReserveCaps, getReserveData. */
  dataProvider: Address;
  /** The USDC reserve's aToken. */
  aToken: Address;
  /** PoolConfigurator proxy (pool admin: the deployer, dev account #0): setSupplyCap etc. */
  configurator: Address;
  usdc: Address;
  addressesProvider: Address;
  oracle: Address;
}

const RAY = 10n ** 27n;
const ray = (percent: number) => (BigInt(Math.round(percent * 100)) * RAY) / 10_000n;

/** A usual stablecoin curve (3.0.2 DefaultReserveInterestRateStrategy constructor order). */
const STABLE_RATE_STRATEGY = [ray(90), 0n, ray(4), ray(60), ray(0.5), ray(60), ray(1), ray(8), ray(20)] as const;

const LIBRARIES = ['SupplyLogic', 'BorrowLogic', 'LiquidationLogic', 'EModeLogic', 'BridgeLogic', 'PoolLogic'] as const;

/** Reserve tokens (aToken + debt tokens) and the rate strategy for `asset`, then `initReserves`. */
export async function initReserve(
  s: Sender,
  p: { addressesProvider: Address; poolAddress: Address; configurator: Address },
  asset: Address,
  decimals: number,
  symbol: string,
): Promise<void> {
  const impl = {
    aTokenImpl: await s.deploy(aaveArtifact(AAVE.aToken), [p.poolAddress], 'AToken impl'),
    stableDebtTokenImpl: await s.deploy(aaveArtifact(AAVE.stableDebtToken), [p.poolAddress], 'StableDebtToken impl'),
    variableDebtTokenImpl: await s.deploy(aaveArtifact(AAVE.variableDebtToken), [p.poolAddress], 'VariableDebtToken impl'),
  };
  const strategy = await s.deploy(aaveArtifact(AAVE.rateStrategy), [p.addressesProvider, ...STABLE_RATE_STRATEGY], 'rate strategy');
  const input = {
    ...impl,
    underlyingAssetDecimals: decimals,
    interestRateStrategyAddress: strategy,
    underlyingAsset: asset,
    treasury: s.account.address,
    incentivesController: zeroAddress,
    aTokenName: `Aave devnet ${symbol}`,
    aTokenSymbol: `a${symbol}`,
    variableDebtTokenName: `Aave devnet variable debt ${symbol}`,
    variableDebtTokenSymbol: `variableDebt${symbol}`,
    stableDebtTokenName: `Aave devnet stable debt ${symbol}`,
    stableDebtTokenSymbol: `stableDebt${symbol}`,
    params: '0x',
  };
  await s.call(p.configurator, aaveAbi(AAVE.configurator), 'initReserves', [[input]]);
}

export async function deployAavePool(s: Sender, usdc: Address): Promise<PoolDeployment> {
  const admin = s.account.address;
  const providerArt = aaveArtifact(AAVE.addressesProvider);
  const addressesProvider = await s.deploy(providerArt, ['poolprov-v3:84532:usdc', admin], 'PoolAddressesProvider');
  await s.call(addressesProvider, providerArt.abi, 'setACLAdmin', [admin]);
  const aclArt = aaveArtifact(AAVE.aclManager);
  const aclManager = await s.deploy(aclArt, [addressesProvider], 'ACLManager');
  await s.call(addressesProvider, providerArt.abi, 'setACLManager', [aclManager]);
  await s.call(aclManager, aclArt.abi, 'addPoolAdmin', [admin]);

  const libs: Record<string, Address> = {};
  for (const name of LIBRARIES) libs[name] = await s.deploy(aaveArtifact(AAVE.logic(name)), [], name);
  libs.FlashLoanLogic = await s.deploy(aaveArtifact(AAVE.logic('FlashLoanLogic'), libs), [], 'FlashLoanLogic');
  const poolImpl = await s.deploy(aaveArtifact(AAVE.pool, libs), [addressesProvider], 'Pool impl');
  await s.call(addressesProvider, providerArt.abi, 'setPoolImpl', [poolImpl]);
  const poolAddress = await s.read<Address>(addressesProvider, providerArt.abi, 'getPool');

  const configuratorLogic = await s.deploy(aaveArtifact(AAVE.logic('ConfiguratorLogic')), [], 'ConfiguratorLogic');
  const configuratorImpl = await s.deploy(aaveArtifact(AAVE.configurator, { ConfiguratorLogic: configuratorLogic }), [], 'PoolConfigurator impl');
  // After setPoolImpl: the configurator's initialize caches the pool.
  await s.call(addressesProvider, providerArt.abi, 'setPoolConfiguratorImpl', [configuratorImpl]);
  const configurator = await s.read<Address>(addressesProvider, providerArt.abi, 'getPoolConfigurator');

  const usdAggregator = await s.deploy(aaveArtifact(AAVE.aggregator), [10n ** 8n], 'USDC aggregator');
  const oracle = await s.deploy(aaveArtifact(AAVE.oracle), [addressesProvider, [usdc], [usdAggregator], zeroAddress, zeroAddress, 10n ** 8n], 'AaveOracle');
  await s.call(addressesProvider, providerArt.abi, 'setPriceOracle', [oracle]);
  const dataProviderArt = aaveArtifact(AAVE.dataProvider);
  const dataProvider = await s.deploy(dataProviderArt, [addressesProvider], 'AaveProtocolDataProvider');
  await s.call(addressesProvider, providerArt.abi, 'setPoolDataProvider', [dataProvider]);

  await initReserve(s, { addressesProvider, poolAddress, configurator }, usdc, 6, 'USDC');
  const [aToken] = await s.read<readonly [Address, Address, Address]>(dataProvider, dataProviderArt.abi, 'getReserveTokensAddresses', [usdc]);
  return { poolAddress, dataProvider, aToken, configurator, usdc, addressesProvider, oracle };
}
