/**
 * Hand-written ABI fragments (ours, `as const` so viem types the calls) for what the yield service
 * calls on Aave V3 pools, MetaMorpho v1.0 vaults and Morpho Bundler V2. They match the real
 * contracts' ABIs (checked by packages/chains/src/evm/yield/abis.test.ts against the npm artifacts).
 */

const address = 'address' as const;
const uint256 = 'uint256' as const;

/** Aave V3 Pool (3.0.x). */
export const AAVE_POOL_ABI = [
  {
    type: 'function',
    name: 'supply',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'asset', type: address },
      { name: 'amount', type: uint256 },
      { name: 'onBehalfOf', type: address },
      { name: 'referralCode', type: 'uint16' },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'withdraw',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'asset', type: address },
      { name: 'amount', type: uint256 },
      { name: 'to', type: address },
    ],
    outputs: [{ name: '', type: uint256 }],
  },
  {
    type: 'function',
    name: 'getReserveData',
    stateMutability: 'view',
    inputs: [{ name: 'asset', type: address }],
    outputs: [
      {
        name: '',
        type: 'tuple',
        components: [
          { name: 'configuration', type: 'tuple', components: [{ name: 'data', type: uint256 }] },
          { name: 'liquidityIndex', type: 'uint128' },
          { name: 'currentLiquidityRate', type: 'uint128' },
          { name: 'variableBorrowIndex', type: 'uint128' },
          { name: 'currentVariableBorrowRate', type: 'uint128' },
          { name: 'currentStableBorrowRate', type: 'uint128' },
          { name: 'lastUpdateTimestamp', type: 'uint40' },
          { name: 'id', type: 'uint16' },
          { name: 'aTokenAddress', type: address },
          { name: 'stableDebtTokenAddress', type: address },
          { name: 'variableDebtTokenAddress', type: address },
          { name: 'interestRateStrategyAddress', type: address },
          { name: 'accruedToTreasury', type: 'uint128' },
          { name: 'unbacked', type: 'uint128' },
          { name: 'isolationModeTotalDebt', type: 'uint128' },
        ],
      },
    ],
  },
  {
    type: 'function',
    name: 'getReserveNormalizedIncome',
    stateMutability: 'view',
    inputs: [{ name: 'asset', type: address }],
    outputs: [{ name: '', type: uint256 }],
  },
] as const;

/** Aave V3 AaveProtocolDataProvider (3.0.x). */
export const AAVE_DATA_PROVIDER_ABI = [
  {
    type: 'function',
    name: 'getReserveCaps',
    stateMutability: 'view',
    inputs: [{ name: 'asset', type: address }],
    outputs: [
      { name: 'borrowCap', type: uint256 },
      { name: 'supplyCap', type: uint256 },
    ],
  },
  {
    type: 'function',
    name: 'getReserveData',
    stateMutability: 'view',
    inputs: [{ name: 'asset', type: address }],
    outputs: [
      { name: 'unbacked', type: uint256 },
      { name: 'accruedToTreasuryScaled', type: uint256 },
      { name: 'totalAToken', type: uint256 },
      { name: 'totalStableDebt', type: uint256 },
      { name: 'totalVariableDebt', type: uint256 },
      { name: 'liquidityRate', type: uint256 },
      { name: 'variableBorrowRate', type: uint256 },
      { name: 'stableBorrowRate', type: uint256 },
      { name: 'averageStableBorrowRate', type: uint256 },
      { name: 'liquidityIndex', type: uint256 },
      { name: 'variableBorrowIndex', type: uint256 },
      { name: 'lastUpdateTimestamp', type: 'uint40' },
    ],
  },
] as const;

const view1 = <N extends string>(name: N, input: string) =>
  ({
    type: 'function',
    name,
    stateMutability: 'view',
    inputs: [{ name: input, type: uint256 }],
    outputs: [{ name: '', type: uint256 }],
  }) as const;

/** ERC-4626 (MetaMorpho v1.0): previews, balance and the direct deposit/withdraw/redeem calls. */
export const ERC4626_VAULT_ABI = [
  view1('previewDeposit', 'assets'),
  view1('previewRedeem', 'shares'),
  view1('previewWithdraw', 'assets'),
  view1('convertToAssets', 'shares'),
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'account', type: address }],
    outputs: [{ name: '', type: uint256 }],
  },
  { type: 'function', name: 'totalAssets', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: uint256 }] },
  { type: 'function', name: 'asset', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: address }] },
  { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint8' }] },
  {
    type: 'function',
    name: 'deposit',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'assets', type: uint256 },
      { name: 'receiver', type: address },
    ],
    outputs: [{ name: 'shares', type: uint256 }],
  },
  {
    type: 'function',
    name: 'withdraw',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'assets', type: uint256 },
      { name: 'receiver', type: address },
      { name: 'owner', type: address },
    ],
    outputs: [{ name: 'shares', type: uint256 }],
  },
  {
    type: 'function',
    name: 'redeem',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'shares', type: uint256 },
      { name: 'receiver', type: address },
      { name: 'owner', type: address },
    ],
    outputs: [{ name: 'assets', type: uint256 }],
  },
] as const;

/** Morpho Bundler V2 (BaseBundlerV2 from @morpho-org/morpho-blue-bundlers 1.1.2): the deposit wrapper. */
export const BUNDLER_V2_ABI = [
  {
    type: 'function',
    name: 'multicall',
    stateMutability: 'payable',
    inputs: [{ name: 'data', type: 'bytes[]' }],
    outputs: [],
  },
  {
    type: 'function',
    name: 'erc20TransferFrom',
    stateMutability: 'payable',
    inputs: [
      { name: 'asset', type: address },
      { name: 'amount', type: uint256 },
    ],
    outputs: [],
  },
  {
    type: 'function',
    name: 'erc4626Deposit',
    stateMutability: 'payable',
    inputs: [
      { name: 'vault', type: address },
      { name: 'assets', type: uint256 },
      { name: 'minShares', type: uint256 },
      { name: 'receiver', type: address },
    ],
    outputs: [],
  },
] as const;

/** The ERC-20 calls around a yield operation (TestUSDC, aTokens). */
export const ERC20_ABI = [
  {
    type: 'function',
    name: 'approve',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'spender', type: address },
      { name: 'amount', type: uint256 },
    ],
    outputs: [{ name: '', type: 'bool' }],
  },
  {
    type: 'function',
    name: 'allowance',
    stateMutability: 'view',
    inputs: [
      { name: 'owner', type: address },
      { name: 'spender', type: address },
    ],
    outputs: [{ name: '', type: uint256 }],
  },
  {
    type: 'function',
    name: 'balanceOf',
    stateMutability: 'view',
    inputs: [{ name: 'account', type: address }],
    outputs: [{ name: '', type: uint256 }],
  },
  { type: 'function', name: 'totalSupply', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: uint256 }] },
] as const;
