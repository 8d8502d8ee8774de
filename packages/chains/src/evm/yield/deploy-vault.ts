/**
 * The vault stack from `@morpho-org/morpho-blue-bundlers@1.1.2`: Morpho Blue, a MetaMorpho v1.0
 * vault over an "idle" market (no collateral, no oracle, no IRM: no borrowing, no interest), and
 * Bundler V2 (`BaseBundlerV2` with WETH9) as the deposit wrapper. The deployer owns everything.
 */
import { encodeAbiParameters, hexToBigInt, keccak256, maxUint64, numberToHex, pad, zeroAddress, type Address, type Hex } from 'viem';
import { TEST_USDC_ABI } from '../test-usdc.ts';
import { ERC20_ABI, ERC4626_VAULT_ABI, MARKET_PARAMS_COMPONENTS } from './abis.ts';
import { AAVE, MORPHO, aaveArtifact, morphoArtifact } from './artifacts.ts';
import { rpc } from '../deployments.ts';
import type { Sender } from './send.ts';

export interface MarketParams {
  loanToken: Address;
  collateralToken: Address;
  oracle: Address;
  irm: Address;
  lltv: bigint;
}

export interface VaultDeployment {
  /** Morpho Blue. */
  morpho: Address;
  /** The MetaMorpho v1.0 vault (ERC-4626, 18-decimal shares). */
  vault: Address;
  /** Bundler V2: spender of the user's approval and target of `multicall`. */
  bundler: Address;
  /** Morpho market id of the idle USDC market the vault supplies to. */
  idleMarketId: Hex;
  usdc: Address;
}

/** USDC base units the deployer deposits into a new vault so its share price is not the virtual one. */
export const VAULT_SEED_DEPOSIT = 1_000_000_000n;

/** The idle market: USDC loans, no collateral, oracle, IRM or LLTV. */
export const idleMarketParams = (usdc: Address): MarketParams => ({
  loanToken: usdc,
  collateralToken: zeroAddress,
  oracle: zeroAddress,
  irm: zeroAddress,
  lltv: 0n,
});

export const marketId = (p: MarketParams): Hex => keccak256(encodeAbiParameters([{ type: 'tuple', components: MARKET_PARAMS_COMPONENTS }], [p]));

/** MetaMorpho v1.0 storage slot of `mapping(Id => PendingUint192) pendingCap` (checked against the getter before use). */
const PENDING_CAP_SLOT = 16n;
const MAX_CAP = 2n ** 184n - 1n;

/**
 * `submitCap` then `acceptCap` without waiting the vault's timelock (≥ 1 day in v1.0). Instead of
 * warping chain time a day ahead — which a restart from the state file undoes, sending block
 * timestamps backwards (anvil resumes at wall-clock time) and breaking Morpho's interest accrual —
 * the pending cap's `validAt` is set to the submission time with `anvil_setStorageAt`.
 */
export async function setVaultCap(s: Sender, vault: Address, params: MarketParams, cap: bigint): Promise<void> {
  const abi = morphoArtifact(MORPHO.metaMorpho).abi;
  const id = marketId(params);
  await s.call(vault, abi, 'submitCap', [params, cap]);
  const [value, validAt] = await s.read<readonly [bigint, bigint]>(vault, abi, 'pendingCap', [id]);
  if (validAt === 0n) return; // a decrease applies at once
  const slot = keccak256(encodeAbiParameters([{ type: 'bytes32' }, { type: 'uint256' }], [id, PENDING_CAP_SLOT]));
  const stored = hexToBigInt(await rpc<Hex>(s.rpcUrl, 'eth_getStorageAt', [vault, slot, 'latest']));
  if (stored !== (value | (validAt << 192n))) throw new Error('MetaMorpho pendingCap is not at the expected storage slot');
  const timelock = await s.read<bigint>(vault, abi, 'timelock');
  const now = validAt - timelock;
  if (now < 0n || now > maxUint64) throw new Error(`unexpected pendingCap.validAt ${validAt}`);
  await rpc(s.rpcUrl, 'anvil_setStorageAt', [vault, slot, pad(numberToHex(value | (now << 192n)), { size: 32 })]);
  await s.call(vault, abi, 'acceptCap', [params]);
}

export async function deployMorphoVault(s: Sender, usdc: Address): Promise<VaultDeployment> {
  const admin = s.account.address;
  const morphoArt = morphoArtifact(MORPHO.morpho);
  const morpho = await s.deploy(morphoArt, [admin], 'Morpho');
  const idle = idleMarketParams(usdc);
  await s.call(morpho, morphoArt.abi, 'enableIrm', [zeroAddress]);
  await s.call(morpho, morphoArt.abi, 'enableLltv', [0n]);
  await s.call(morpho, morphoArt.abi, 'createMarket', [idle]);
  const idleMarketId = marketId(idle);

  const vaultArt = morphoArtifact(MORPHO.metaMorpho);
  const vault = await s.deploy(vaultArt, [admin, morpho, 86_400n, usdc, 'Devnet demo USDC vault', 'dvUSDC'], 'MetaMorpho');
  await setVaultCap(s, vault, idle, MAX_CAP);
  await s.call(vault, vaultArt.abi, 'setSupplyQueue', [[idleMarketId]]);

  const weth = await s.deploy(aaveArtifact(AAVE.weth9), [], 'WETH9');
  const bundler = await s.deploy(morphoArtifact(MORPHO.bundler), [morpho, weth], 'BaseBundlerV2');

  // TestUSDC mint is owner-only: the deployer (dev account #0) deployed it.
  await s.call(usdc, TEST_USDC_ABI, 'mint', [admin, VAULT_SEED_DEPOSIT]);
  await s.call(usdc, ERC20_ABI, 'approve', [vault, VAULT_SEED_DEPOSIT]);
  await s.call(vault, ERC4626_VAULT_ABI, 'deposit', [VAULT_SEED_DEPOSIT, admin]);
  return { morpho, vault, bundler, idleMarketId, usdc };
}
