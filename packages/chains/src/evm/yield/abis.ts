/** The yield ABI fragments live in the domain (the service's calls); the devnet deploy adds the Morpho Blue market parameters. */
export { AAVE_DATA_PROVIDER_ABI, AAVE_POOL_ABI, BUNDLER_V2_ABI, ERC20_ABI, ERC4626_VAULT_ABI } from '@wallet/domain/yield/abis.ts';

const address = 'address' as const;
const uint256 = 'uint256' as const;

/** Morpho Blue market parameters (the market id is keccak256 of their ABI encoding). */
export const MARKET_PARAMS_COMPONENTS = [
  { name: 'loanToken', type: address },
  { name: 'collateralToken', type: address },
  { name: 'oracle', type: address },
  { name: 'irm', type: address },
  { name: 'lltv', type: uint256 },
] as const;
