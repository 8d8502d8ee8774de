/** Real yield contracts on a local anvil (exported through '@wallet/chains/devnets'); test helpers are in testing.ts. */
export {
  deployYieldMarkets,
  ensureYieldMarkets,
  YIELD_MARKET_IDS,
  type YieldDeployment,
  type DeployYieldOptions,
  type PoolDeployment,
  type VaultDeployment,
  type MarketParams,
} from './deploy.ts';
export { idleMarketParams, marketId, VAULT_SEED_DEPOSIT } from './deploy-vault.ts';
export { AAVE_POOL_ABI, AAVE_DATA_PROVIDER_ABI, ERC4626_VAULT_ABI, BUNDLER_V2_ABI, ERC20_ABI, MARKET_PARAMS_COMPONENTS } from './abis.ts';
