import { describe, expect, it } from 'vitest';
import type { ChainDirectory, ChainInfo } from '../chains/service.ts';
import { ApiError } from '../errors.ts';
import type { WalletRecord } from '../ports.ts';
import { yieldMarketsConfigSchema, yieldMarketsJson, type ConfiguredYieldMarket } from './config.ts';
import { buildYieldMarkets, requireEvmYieldWallet, resolveYieldMarket, YIELD_MARKET_DEFINITIONS, type LocalYieldContracts, type YieldAppEnv } from './markets.ts';
import { createYieldMarketCatalog } from './service.ts';

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const evm = (chainId: number): ChainInfo => ({ type: 'EVM', chainId: String(chainId), name: `chain ${chainId}`, nativeCurrency: { symbol: 'ETH', decimals: 18 }, usdc: null, isDevnet: false });
const directory = (...chainIds: number[]): ChainDirectory => ({ list: () => chainIds.map(evm) });

const configured = yieldMarketsConfigSchema.parse([
  { id: 'poolprov-v3:1:usdc', usdc: addr(1), pool: addr(2), aToken: addr(3) },
  { id: 'vaultprov-v2-base-prime-usdc', usdc: addr(4), vault: addr(5), bundler: addr(6) },
  { id: 'poolprov-v3:8453:usdc', usdc: addr(4), pool: addr(7), aToken: addr(8) },
  { id: 'poolprov-v3:11155111:usdc', usdc: addr(9), pool: addr(10), aToken: addr(11) },
  { id: 'poolprov-v3:84532:usdc', usdc: addr(12), pool: addr(13), aToken: addr(14) },
  { id: 'vaultprov-v2-base-sepolia-demo-usdc', usdc: addr(12), vault: addr(15), bundler: addr(16) },
]);
const local: LocalYieldContracts = {
  chainId: 84532,
  pool: { poolAddress: addr(0x101), aToken: addr(0x102), usdc: addr(0x100) },
  vault: { vault: addr(0x103), bundler: addr(0x104), usdc: addr(0x100) },
};
const ids = (appEnv: YieldAppEnv, chains: number[], options: { configured?: ConfiguredYieldMarket[]; local?: LocalYieldContracts } = {}) =>
  buildYieldMarkets({ appEnv, configured: options.configured ?? configured, directory: directory(...chains), local: options.local }).map((m) => m.id);

describe('the yield market catalog per environment', () => {
  it('lists both 84532 markets locally, with the devnet addresses', () => {
    const markets = buildYieldMarkets({ appEnv: 'local', configured: [], directory: directory(84532), local });
    expect(markets).toEqual([
      { id: 'poolprov-v3:84532:usdc', chainId: 84532, source: 'poolprov-v3', name: 'Pool-provider V3, Base Sepolia (local devnet)', testOnly: true, asset: { symbol: 'USDC', address: addr(0x100), decimals: 6 }, contracts: { pool: addr(0x101), aToken: addr(0x102) } },
      { id: 'vaultprov-v2-base-sepolia-demo-usdc', chainId: 84532, source: 'vaultprov-v2', name: 'Vault-provider V2 demo vault, Base Sepolia (local devnet)', testOnly: true, asset: { symbol: 'USDC', address: addr(0x100), decimals: 6 }, contracts: { vault: addr(0x103), bundler: addr(0x104) } },
    ]);
    // The devnet's addresses win over configured 84532 ones.
    expect(buildYieldMarkets({ appEnv: 'local', configured, directory: directory(84532), local })[0]!.contracts).toEqual({ pool: addr(0x101), aToken: addr(0x102) });
  });

  it('never lists an 84532 market in beta or production, even configured with its chain', () => {
    for (const appEnv of ['beta', 'production'] as const) {
      expect(ids(appEnv, [84532], { local })).toEqual([]);
      expect(ids(appEnv, [1, 8453, 11155111, 84532], { local })).toEqual([
        'poolprov-v3:1:usdc',
        'poolprov-v3:8453:usdc',
        'poolprov-v3:11155111:usdc',
        'vaultprov-v2-base-prime-usdc',
      ]);
    }
  });

  it('lists a configured market only where its chain is in the chain registry', () => {
    expect(ids('production', [])).toEqual([]);
    expect(ids('production', [8453])).toEqual(['poolprov-v3:8453:usdc', 'vaultprov-v2-base-prime-usdc']);
    expect(ids('beta', [1, 11155111])).toEqual(['poolprov-v3:1:usdc', 'poolprov-v3:11155111:usdc']);
    // Local without a devnet deployment: configured 84532 markets count like any other.
    expect(ids('local', [1])).toEqual(['poolprov-v3:1:usdc']);
    expect(ids('local', [84532])).toEqual(['poolprov-v3:84532:usdc', 'vaultprov-v2-base-sepolia-demo-usdc']);
    // A Solana chain or an unconfigured market lists nothing.
    const solana: ChainDirectory = { list: () => [{ type: 'SOLANA', network: 'SOLANA', name: 's', nativeCurrency: { symbol: 'SOL', decimals: 9 }, usdc: null, isDevnet: false }] };
    expect(buildYieldMarkets({ appEnv: 'production', configured, directory: solana })).toEqual([]);
    expect(ids('production', [1], { configured: [] })).toEqual([]);
  });

  it('maps configured entries to the market shape, checksummed', () => {
    const [market] = buildYieldMarkets({ appEnv: 'production', configured: yieldMarketsConfigSchema.parse([{ id: 'vaultprov-v2-ethereum-prime-usdc', usdc: '0xa0b86991c6218b36c1d19d4a2e9eb0ce3606eb48', vault: addr(5), bundler: addr(6) }]), directory: directory(1) });
    expect(market).toEqual({ id: 'vaultprov-v2-ethereum-prime-usdc', chainId: 1, source: 'vaultprov-v2', name: 'Vault-provider V2 prime USDC vault, Ethereum', testOnly: false, asset: { symbol: 'USDC', address: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48', decimals: 6 }, contracts: { vault: addr(5), bundler: addr(6) } });
  });

  it('knows the spec table', () => {
    expect(YIELD_MARKET_DEFINITIONS.map((m) => [m.id, m.chainId, m.source])).toEqual([
      ['poolprov-v3:1:usdc', 1, 'poolprov-v3'],
      ['poolprov-v3:8453:usdc', 8453, 'poolprov-v3'],
      ['poolprov-v3:11155111:usdc', 11155111, 'poolprov-v3'],
      ['vaultprov-v2-ethereum-prime-usdc', 1, 'vaultprov-v2'],
      ['vaultprov-v2-base-prime-usdc', 8453, 'vaultprov-v2'],
      ['poolprov-v3:84532:usdc', 84532, 'poolprov-v3'],
      ['vaultprov-v2-base-sepolia-demo-usdc', 84532, 'vaultprov-v2'],
    ]);
  });
});

describe('YIELD_MARKETS', () => {
  const problem = (text: string) => {
    const result = yieldMarketsJson.safeParse(text);
    if (result.success) return 'accepted';
    const issue = result.error.issues[0]!;
    return `${issue.path.map(String).join('.')}: ${issue.message}`;
  };
  const pool = { id: 'poolprov-v3:8453:usdc', usdc: addr(1), pool: addr(2), aToken: addr(3) };
  const vault = { id: 'vaultprov-v2-base-prime-usdc', usdc: addr(1), vault: addr(2), bundler: addr(3) };

  it('accepts pool and vault entries', () => {
    expect(problem(JSON.stringify([pool, vault]))).toBe('accepted');
    expect(problem('[]')).toBe('accepted');
  });

  it('refuses bad configuration with the path of the problem', () => {
    expect(problem('not json')).toBe(': must be a JSON array of yield markets');
    expect(problem('{}')).toMatch(/^: /);
    expect(problem(JSON.stringify([pool, { ...vault, id: 'vaultprov-v2-base-usdc' }]))).toMatch(/^1\.id: must be one of poolprov-v3:1:usdc, /);
    expect(problem(JSON.stringify([{ ...pool, id: undefined }]))).toMatch(/^0\.id: must be one of/);
    expect(problem(JSON.stringify([pool, { ...vault, aToken: addr(4) }]))).toBe('1: unknown field(s) aToken for this market\'s provider');
    expect(problem(JSON.stringify([{ id: pool.id, usdc: addr(1), vault: addr(2), bundler: addr(3) }]))).toMatch(/^0\.(pool|aToken|vault|bundler)/);
    expect(problem(JSON.stringify([{ ...pool, aToken: undefined }]))).toBe('0.aToken: is required');
    expect(problem(JSON.stringify([vault, { ...pool, pool: '0x1234' }]))).toBe('1.pool: must be an EVM address (0x and 40 hex digits)');
    expect(problem(JSON.stringify([{ ...pool, usdc: addr(0) }]))).toBe('0.usdc: must not be the zero address');
    expect(problem(JSON.stringify([{ ...pool, usdc: '0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB4A' }]))).toBe('0.usdc: has an invalid checksum (mixed case)');
    expect(problem(JSON.stringify([pool, vault, { ...pool, pool: addr(9) }]))).toBe('2.id: poolprov-v3:8453:usdc is listed twice');
  });
});

describe('resolving the market of a request', () => {
  const markets = buildYieldMarkets({ appEnv: 'production', configured, directory: directory(1, 8453) });
  const refusal = (selector: Parameters<typeof resolveYieldMarket>[1]) => {
    try {
      resolveYieldMarket(markets, selector);
      return 'resolved';
    } catch (error) {
      expect(error).toBeInstanceOf(ApiError);
      const e = error as ApiError;
      return `${e.status} ${e.code} ${e.message}`;
    }
  };

  it('resolves a market id, with or without its matching chain id', () => {
    expect(resolveYieldMarket(markets, { marketId: 'vaultprov-v2-base-prime-usdc' }).contracts).toEqual({ vault: addr(5), bundler: addr(6) });
    expect(resolveYieldMarket(markets, { marketId: 'poolprov-v3:1:usdc', chainId: 1 }).id).toBe('poolprov-v3:1:usdc');
  });

  it('picks the pool-provider market for a chain id alone', () => {
    expect(resolveYieldMarket(markets, { chainId: 8453 }).id).toBe('poolprov-v3:8453:usdc');
    expect(resolveYieldMarket(markets, { chainId: 1 }).source).toBe('poolprov-v3');
  });

  it('refuses unknown ids, a mismatched chain and an empty selector with 400', () => {
    expect(refusal({})).toBe('400 INVALID_REQUEST Invalid request: marketId or chainId is required');
    expect(refusal({ marketId: 'poolprov-v3:137:usdc' })).toMatch(/^400 INVALID_REQUEST Invalid request: marketId: is not a market of this environment/);
    // Known to the spec but not in this environment's catalog.
    expect(refusal({ marketId: 'poolprov-v3:84532:usdc' })).toMatch(/^400 INVALID_REQUEST Invalid request: marketId: /);
    expect(refusal({ marketId: 'poolprov-v3:1:usdc', chainId: 8453 })).toBe('400 INVALID_REQUEST Invalid request: chainId: does not match market poolprov-v3:1:usdc (chain 1)');
    expect(refusal({ chainId: 11155111 })).toBe('400 INVALID_REQUEST Invalid request: chainId: has no pool-provider market in this environment');
  });

  it('is what the catalog resolves with, over its own list', () => {
    const catalog = createYieldMarketCatalog({ appEnv: 'local', configured: [], directory: directory(84532), local });
    expect(catalog.resolve({ chainId: 84532 }).id).toBe('poolprov-v3:84532:usdc');
    expect(catalog.resolve({ marketId: 'vaultprov-v2-base-sepolia-demo-usdc', chainId: 84532 }).source).toBe('vaultprov-v2');
    expect(() => catalog.resolve({ marketId: 'poolprov-v3:1:usdc' })).toThrow(/marketId/);
    expect(catalog.list()).toHaveLength(2);
  });
});

describe('yield wallets', () => {
  it('accepts EVM wallets and refuses others with 400 INVALID_REQUEST', () => {
    const wallet = (type: string) => ({ id: 'w', type }) as WalletRecord;
    expect(requireEvmYieldWallet(wallet('EVM')).type).toBe('EVM');
    for (const type of ['SOLANA', 'COSMOS', 'STELLAR', 'SUI']) {
      expect(() => requireEvmYieldWallet(wallet(type))).toThrow(expect.objectContaining({ status: 400, code: 'INVALID_REQUEST' }));
    }
  });
});
