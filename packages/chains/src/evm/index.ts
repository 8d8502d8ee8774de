export { startAnvil, anvilBinaryPath, type AnvilInstance, type StartAnvilOptions } from './anvil.ts';
export {
  compileContracts,
  formatArtifact,
  solcVersion,
  CONTRACTS_DIR,
  ARTIFACTS_DIR,
  SOLC_SETTINGS,
  type ContractArtifact,
  type CompileResult,
} from './compile.ts';
export {
  deployTestUsdc,
  LOCAL_TEST_USDC_ADDRESS,
  LOCAL_FUNDER_PRIVATE_KEY,
  TEST_USDC_ABI,
  TEST_USDC_BYTECODE,
  TEST_USDC_DECIMALS,
} from './test-usdc.ts';
export { fundEvmWallet, type FundEvmWalletParams, type FundEvmWalletResult } from './faucet.ts';
export { localChain } from './dev-account.ts';
export { ensureDeployed, evmGenesisHash } from './deployments.ts';
export * from './yield/index.ts';
export { withAutomine } from './yield/send.ts';
export {
  deploySponsorshipContracts,
  ensureSponsorshipContracts,
  topUpPaymasterDeposit,
  CREATE2_DEPLOYER_ADDRESS,
  SPONSORSHIP_DEPLOYER_PRIVATE_KEY,
  type SponsorshipDeployment,
  type DeploySponsorshipOptions,
} from './sponsorship/deploy.ts';
