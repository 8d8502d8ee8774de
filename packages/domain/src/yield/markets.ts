import { z } from 'zod';
import type { ChainDirectory } from '../chains/service.ts';
import { invalidRequest } from '../errors.ts';
import type { WalletRecord } from '../ports.ts';
import { fieldError } from '../shared/zod.ts';
import type { ConfiguredYieldMarket } from './config.ts';

/** The API environments (APP_ENV); the 84532 markets exist only in `local`. */
export type YieldAppEnv = 'local' | 'beta' | 'production';

export type YieldSource = 'poolprov-v3' | 'vaultprov-v2';

/** One row of the spec's market table: what a market id means, independent of addresses. */
export interface YieldMarketDefinition {
  id: string;
  chainId: number;
  source: YieldSource;
  name: string;
  /** Base Sepolia (84532): sandbox and local test only, never in beta or production (spec rule 3). */
  testOnly: boolean;
}

/** The spec's market table, in its order (the catalog keeps this order). */
export const YIELD_MARKET_DEFINITIONS = [
  { id: 'poolprov-v3:1:usdc', chainId: 1, source: 'poolprov-v3', name: 'Pool-provider V3, Ethereum', testOnly: false },
  { id: 'poolprov-v3:8453:usdc', chainId: 8453, source: 'poolprov-v3', name: 'Pool-provider V3, Base', testOnly: false },
  { id: 'poolprov-v3:11155111:usdc', chainId: 11155111, source: 'poolprov-v3', name: 'Pool-provider V3, Sepolia', testOnly: false },
  { id: 'vaultprov-v2-ethereum-prime-usdc', chainId: 1, source: 'vaultprov-v2', name: 'Vault-provider V2 prime USDC vault, Ethereum', testOnly: false },
  { id: 'vaultprov-v2-base-prime-usdc', chainId: 8453, source: 'vaultprov-v2', name: 'Vault-provider V2 prime USDC vault, Base', testOnly: false },
  { id: 'poolprov-v3:84532:usdc', chainId: 84532, source: 'poolprov-v3', name: 'Pool-provider V3, Base Sepolia', testOnly: true },
  { id: 'vaultprov-v2-base-sepolia-demo-usdc', chainId: 84532, source: 'vaultprov-v2', name: 'Vault-provider V2 demo vault, Base Sepolia', testOnly: true },
] as const satisfies readonly YieldMarketDefinition[];

export type YieldMarketId = (typeof YIELD_MARKET_DEFINITIONS)[number]['id'];

/** Every market id of the spec table (not `YIELD_MARKET_IDS` of `@wallet/chains/devnets`, which names the two devnet markets). */
export const ALL_YIELD_MARKET_IDS = YIELD_MARKET_DEFINITIONS.map((m) => m.id) as [YieldMarketId, ...YieldMarketId[]];
export const POOL_YIELD_MARKET_IDS = YIELD_MARKET_DEFINITIONS.filter((m) => m.source === 'poolprov-v3').map((m) => m.id) as [YieldMarketId, ...YieldMarketId[]];
export const VAULT_YIELD_MARKET_IDS = YIELD_MARKET_DEFINITIONS.filter((m) => m.source === 'vaultprov-v2').map((m) => m.id) as [YieldMarketId, ...YieldMarketId[]];

export const yieldMarketDefinition = (id: string): YieldMarketDefinition | undefined => YIELD_MARKET_DEFINITIONS.find((m) => m.id === id);

/** USDC of a market: native USDC on mainnets, the provider's test USDC on test chains (spec rule 1). */
export interface YieldAsset {
  symbol: 'USDC';
  address: string;
  decimals: 6;
}

export interface PoolContracts {
  /** The pool: supply, withdraw, getReserveData. */
  pool: string;
  /** The USDC reserve's aToken (the position's balance). */
  aToken: string;
}

export interface VaultContracts {
  /** The ERC-4626 vault: withdraw and redeem go here. */
  vault: string;
  /** The official bundler wrapper: deposits go through it, and approvals name it as spender. */
  bundler: string;
}

interface YieldMarketCommon extends Omit<YieldMarketDefinition, 'source'> {
  asset: YieldAsset;
}

/** A market of this environment's catalog, with its addresses. The same shape is the REST body. */
export type YieldMarket =
  | (YieldMarketCommon & { source: 'poolprov-v3'; contracts: PoolContracts })
  | (YieldMarketCommon & { source: 'vaultprov-v2'; contracts: VaultContracts });

/**
 * The yield contracts the local EVM devnet deployed (structurally the `YieldDeployment` of
 * `@wallet/chains/devnets`, which the domain may not import).
 */
export interface LocalYieldContracts {
  chainId: number;
  pool: { poolAddress: string; aToken: string; usdc: string };
  vault: { vault: string; bundler: string; usdc: string };
}

export interface YieldCatalogDeps {
  appEnv: YieldAppEnv;
  /** Markets with their addresses from YIELD_MARKETS (parsed by `yieldMarketsConfigSchema`). */
  configured: ConfiguredYieldMarket[];
  /** The chain registry: a configured market is listed only where its chain is configured. */
  directory: ChainDirectory;
  /** Local mode: the devnet's contracts, which are the two 84532 markets. */
  local?: LocalYieldContracts;
}

const asset = (address: string): YieldAsset => ({ symbol: 'USDC', address, decimals: 6 });

function fromConfigured(entry: ConfiguredYieldMarket): YieldMarket {
  const definition = yieldMarketDefinition(entry.id)!;
  const common = { id: definition.id, chainId: definition.chainId, name: definition.name, testOnly: definition.testOnly, asset: asset(entry.usdc) };
  return 'pool' in entry
    ? { ...common, source: 'poolprov-v3', contracts: { pool: entry.pool, aToken: entry.aToken } }
    : { ...common, source: 'vaultprov-v2', contracts: { vault: entry.vault, bundler: entry.bundler } };
}

/** The two local-test markets over the devnet's contracts (their ids are the 84532 ones). */
function fromLocal(local: LocalYieldContracts): YieldMarket[] {
  const [pool, vault] = [yieldMarketDefinition('poolprov-v3:84532:usdc')!, yieldMarketDefinition('vaultprov-v2-base-sepolia-demo-usdc')!];
  return [
    { id: pool.id, chainId: local.chainId, name: `${pool.name} (local devnet)`, testOnly: true, asset: asset(local.pool.usdc), source: 'poolprov-v3', contracts: { pool: local.pool.poolAddress, aToken: local.pool.aToken } },
    { id: vault.id, chainId: local.chainId, name: `${vault.name} (local devnet)`, testOnly: true, asset: asset(local.vault.usdc), source: 'vaultprov-v2', contracts: { vault: local.vault.vault, bundler: local.vault.bundler } },
  ];
}

/**
 * The markets of this environment, in the spec table's order:
 * - `local`: the devnet's two 84532 markets (their addresses from the deployment), plus configured
 *   markets whose chain is configured (a configured 84532 entry only without a devnet deployment);
 * - `beta`, `production`: configured markets whose chain is configured, never an 84532 one.
 */
export function buildYieldMarkets({ appEnv, configured, directory, local }: YieldCatalogDeps): YieldMarket[] {
  const evmChains = new Set(directory.list().filter((c) => c.type === 'EVM' && c.chainId !== undefined).map((c) => Number(c.chainId)));
  const byId = new Map<string, YieldMarket>();
  for (const entry of configured) {
    const market = fromConfigured(entry);
    if (market.testOnly && appEnv !== 'local') continue;
    if (!evmChains.has(market.chainId)) continue;
    byId.set(market.id, market);
  }
  if (appEnv === 'local' && local) for (const market of fromLocal(local)) byId.set(market.id, market);
  return ALL_YIELD_MARKET_IDS.map((id) => byId.get(id)).filter((m): m is YieldMarket => m !== undefined);
}

/** What a later yield POST body names: a market id, a chain id, or both. */
export interface YieldMarketSelector {
  marketId?: string | undefined;
  chainId?: number | undefined;
}

/**
 * The market a request means (spec: yield POST bodies; public-shapes-2): `marketId` must be a market
 * of this environment's catalog; `chainId` alone picks the pool-provider market of that chain; with
 * both, they must agree. Anything else is 400 INVALID_REQUEST before any work starts.
 */
export function resolveYieldMarket(markets: readonly YieldMarket[], selector: YieldMarketSelector): YieldMarket {
  const { marketId, chainId } = selector;
  if (marketId === undefined && chainId === undefined) {
    throw invalidRequest('Invalid request: marketId or chainId is required', { details: [{ path: 'marketId', message: 'marketId or chainId is required' }] });
  }
  if (marketId !== undefined) {
    const market = markets.find((m) => m.id === marketId);
    if (!market) throw fieldError('marketId', 'is not a market of this environment; GET /v1/wallets/{walletId}/yield/markets lists them');
    if (chainId !== undefined && chainId !== market.chainId) throw fieldError('chainId', `does not match market ${market.id} (chain ${market.chainId})`);
    return market;
  }
  const market = markets.find((m) => m.chainId === chainId && m.source === 'poolprov-v3');
  if (!market) throw fieldError('chainId', `has no pool-provider market in this environment`);
  return market;
}

/**
 * Yield works on EVM wallets only (spec yield rule 9); any other wallet gets 400 INVALID_REQUEST,
 * as public-shapes-2 shows for the operation routes. The markets route uses the same rule.
 */
export function requireEvmYieldWallet(wallet: WalletRecord): WalletRecord {
  if (wallet.type !== 'EVM') throw fieldError('walletId', `yield is available for EVM wallets only; this wallet is ${wallet.type}`);
  return wallet;
}

const address = z.string().meta({ description: 'EVM address (checksummed)' });
const marketCommon = {
  id: z.string().meta({ description: 'The market id, used as `marketId` by the other yield routes' }),
  chainId: z.number().int(),
  name: z.string(),
  testOnly: z.boolean().meta({ description: 'A sandbox and local-test market (Base Sepolia, test USDC); never listed in beta or production' }),
  asset: z.object({ symbol: z.literal('USDC'), address, decimals: z.literal(6) }),
};

export const yieldMarketSchema = z
  .discriminatedUnion('source', [
    z.object({ ...marketCommon, source: z.literal('poolprov-v3'), contracts: z.object({ pool: address, aToken: address }) }),
    z.object({ ...marketCommon, source: z.literal('vaultprov-v2'), contracts: z.object({ vault: address, bundler: address.meta({ description: 'The official bundler wrapper: deposits and approvals go to it' }) }) }),
  ])
  .meta({ id: 'YieldMarket' });

export const yieldMarketListSchema = z.object({ markets: z.array(yieldMarketSchema) }).meta({ id: 'YieldMarketList' });
