/**
 * Real yield contracts on a local anvil (Aave V3 pool + Morpho vault stack) over the devnet's
 * TestUSDC, deployed by dev account #0 with automine (about a second instead of a minute at one
 * transaction per 1-second block), then back to the chain's interval mining.
 */
import { getAddress, type Address, type Hex } from 'viem';
import { writeFileAtomic } from '../../atomic-file.ts';
import { evmGenesisHash, hasCode, readRecord, rpc } from '../deployments.ts';
import { deployAavePool, type PoolDeployment } from './deploy-pool.ts';
import { deployMorphoVault, type VaultDeployment } from './deploy-vault.ts';
import { asDeployer } from './send.ts';

export type { PoolDeployment } from './deploy-pool.ts';
export type { VaultDeployment, MarketParams } from './deploy-vault.ts';

/** Market ids of the spec's local-test yield markets (chain 84532) these contracts serve. */
export const YIELD_MARKET_IDS = { pool: 'poolprov-v3:84532:usdc', vault: 'vaultprov-v2-base-sepolia-demo-usdc' } as const;

export interface YieldDeployment {
  chainId: number;
  /** `poolprov-v3:84532:usdc`: Aave V3 (3.0.2) with one USDC reserve. */
  pool: PoolDeployment;
  /** `vaultprov-v2-base-sepolia-demo-usdc`: MetaMorpho v1.0 over an idle Morpho market, Bundler V2. */
  vault: VaultDeployment;
}

export interface DeployYieldOptions {
  /** The devnet's TestUSDC (owner: dev account #0), the reserve's and vault's asset. */
  usdc: Address;
  /** Default: the node's eth_chainId. */
  chainId?: number;
}

/**
 * Deploys both markets from dev account #0 (holding its send lock). Needs automine or whole-second
 * interval mining (anvil restores the interval only in whole seconds).
 */
export async function deployYieldMarkets(rpcUrl: string, opts: DeployYieldOptions): Promise<YieldDeployment> {
  const chainId = opts.chainId ?? Number(BigInt(await rpc<Hex>(rpcUrl, 'eth_chainId')));
  const usdc = getAddress(opts.usdc);
  return asDeployer(rpcUrl, chainId, async (s) => {
    const pool = await deployAavePool(s, usdc);
    const vault = await deployMorphoVault(s, usdc);
    return { chainId, pool, vault };
  });
}

interface YieldRecord {
  genesisHash: Hex;
  deployment: YieldDeployment;
}

/**
 * The yield deployment recorded in `file` when it belongs to this chain (same genesis hash, same
 * USDC) and its contracts have code; otherwise a new one, then recorded (like `ensureDeployed`,
 * one record for the whole deployment).
 */
export async function ensureYieldMarkets(
  rpcUrl: string,
  file: string,
  opts: DeployYieldOptions,
): Promise<{ deployment: YieldDeployment; reused: boolean }> {
  const genesisHash = await evmGenesisHash(rpcUrl);
  const recorded = readRecord<YieldRecord>(file);
  const known = recorded?.genesisHash === genesisHash ? recorded.deployment : undefined;
  if (known && known.pool.usdc === getAddress(opts.usdc)) {
    const addresses = [known.pool.poolAddress, known.pool.dataProvider, known.pool.aToken, known.vault.vault, known.vault.bundler, known.vault.morpho];
    const present = await Promise.all(addresses.map((a) => hasCode(rpcUrl, a)));
    if (present.every(Boolean)) return { deployment: known, reused: true };
  }
  const deployment = await deployYieldMarkets(rpcUrl, opts);
  writeFileAtomic(file, `${JSON.stringify({ genesisHash, deployment } satisfies YieldRecord, null, 2)}\n`);
  return { deployment, reused: false };
}
