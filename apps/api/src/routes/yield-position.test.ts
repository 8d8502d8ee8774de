import { createEvmGateway } from '@wallet/chains';
import { localChain } from '@wallet/chains/devnets';
import {
  createLiquidityShortage,
  createVaultLiquidityShortage,
  endLiquidityShortage,
  endVaultLiquidityShortage,
  moveVaultSharePrice,
  startRpcFaultProxy,
} from '@wallet/chains/testing';
import { testDatabaseKinds } from '@wallet/db';
import { AAVE_POOL_ABI, ERC20_ABI, ERC4626_VAULT_ABI } from '@wallet/domain';
import { createPublicClient, createWalletClient, http, maxUint256, parseEther, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_EVM_CHAIN_ID, startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

const USDC = 1_000_000n;
const POOL = 'poolprov-v3:84532:usdc';
const VAULT = 'vaultprov-v2-base-sepolia-demo-usdc';
const usdcString = (baseUnits: bigint) => `${baseUnits / USDC}.${(baseUnits % USDC).toString().padStart(6, '0')}`;

// One set of devnets (with the yield contracts) for the whole file; one app per database kind.
let devnets: LocalDevnets;
let pub: PublicClient;
beforeAll(async () => {
  devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, yieldMarkets: true });
  pub = createPublicClient({ chain: localChain(devnets.evmRpcUrl, LOCAL_EVM_CHAIN_ID), transport: http(devnets.evmRpcUrl), pollingInterval: 50 });
});
afterAll(async () => {
  await devnets?.stop();
});

/**
 * A fresh funded account that supplies to the pool on behalf of `wallet` and deposits into the vault
 * for it (the API wallet holds the position without signing anything here).
 */
async function depositFor(wallet: Address, { pool, vault }: { pool: bigint; vault: bigint }) {
  const d = devnets.yield!;
  const account = privateKeyToAccount(generatePrivateKey());
  await devnets.faucet.fund({ type: 'EVM', address: account.address }, 'native', parseEther('1'));
  await devnets.faucet.fund({ type: 'EVM', address: account.address }, 'usdc', pool + vault);
  const client = createWalletClient({ account, chain: localChain(devnets.evmRpcUrl, LOCAL_EVM_CHAIN_ID), transport: http(devnets.evmRpcUrl) });
  const send = async (call: Parameters<typeof client.writeContract>[0]) => {
    const receipt = await pub.waitForTransactionReceipt({ hash: await client.writeContract({ ...call, gas: 1_000_000n }) });
    expect(receipt.status).toBe('success');
  };
  const usdc = d.pool.usdc as Address;
  await send({ address: usdc, abi: ERC20_ABI, functionName: 'approve', args: [d.pool.poolAddress as Address, pool] } as never);
  await send({ address: d.pool.poolAddress as Address, abi: AAVE_POOL_ABI, functionName: 'supply', args: [usdc, pool, wallet, 0] } as never);
  await send({ address: usdc, abi: ERC20_ABI, functionName: 'approve', args: [d.vault.vault as Address, vault] } as never);
  await send({ address: d.vault.vault as Address, abi: ERC4626_VAULT_ABI, functionName: 'deposit', args: [vault, wallet] } as never);
}

/** What viem reads from the chain at `blockNumber` for the wallet: the expected position bodies. */
async function chainTruth(wallet: Address, blockNumber: bigint) {
  const d = devnets.yield!;
  const read = (address: string, abi: typeof ERC20_ABI | typeof ERC4626_VAULT_ABI, functionName: string, args: unknown[]) =>
    pub.readContract({ address: address as Address, abi, functionName, args, blockNumber } as never) as Promise<bigint>;
  const simulates = (address: string, abi: typeof AAVE_POOL_ABI | typeof ERC4626_VAULT_ABI, functionName: string, args: unknown[]) =>
    pub.simulateContract({ account: wallet, address: address as Address, abi, functionName, args, blockNumber } as never).then(
      () => true,
      () => false,
    );
  const block = await pub.getBlock({ blockNumber });
  const aTokens = await read(d.pool.aToken, ERC20_ABI, 'balanceOf', [wallet]);
  const liquidity = await read(d.pool.usdc, ERC20_ABI, 'balanceOf', [d.pool.aToken]);
  const poolWithdraws = await simulates(d.pool.poolAddress, AAVE_POOL_ABI, 'withdraw', [d.pool.usdc, maxUint256, wallet]);
  const shares = await read(d.vault.vault, ERC4626_VAULT_ABI, 'balanceOf', [wallet]);
  const preview = await read(d.vault.vault, ERC4626_VAULT_ABI, 'previewRedeem', [shares]);
  const vaultRedeems = await simulates(d.vault.vault, ERC4626_VAULT_ABI, 'redeem', [shares, wallet, wallet]);
  const snapshot = { blockNumber: Number(blockNumber), blockTimestamp: new Date(Number(block.timestamp) * 1000).toISOString() };
  return {
    raw: { aTokens, liquidity, poolWithdraws, shares, preview, vaultRedeems },
    pool: {
      marketId: POOL,
      protocol: 'poolprov-v3',
      reserve: { symbol: 'USDC', address: d.pool.usdc, decimals: 6 },
      suppliedBalance: usdcString(aTokens),
      availableLiquidity: usdcString(liquidity),
      withdrawal: { availableAmount: aTokens === 0n ? '0.000000' : poolWithdraws ? usdcString(aTokens) : null },
      ...snapshot,
    },
    vault: {
      marketId: VAULT,
      protocol: 'vaultprov-v2',
      vaultAddress: d.vault.vault,
      shares: { balance: shares.toString(), decimals: 18 },
      suppliedBalance: usdcString(preview),
      withdrawal: { availableAmount: shares === 0n ? '0.000000' : vaultRedeems ? usdcString(preview) : null },
      ...snapshot,
    },
  };
}

describe.each(testDatabaseKinds)('GET /v1/wallets/{walletId}/yield/position on %s', (kind) => {
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    // Reads stay available with execution switched off.
    app = await startTestApp(kind, { chains: devnets, env: { YIELD_EXECUTION: 'disabled' } });
    key = (await app.createKey()).apiKey;
  });
  afterAll(async () => {
    await app?.close();
  });

  const wallet = async (type = 'EVM', withKey = key) =>
    (await app.request('POST', '/v1/wallets', { key: withKey, body: { type, userIdentifier: `position-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body as { id: string; address: Address };
  const position = (walletId: string, query: string, withKey = key) => app.request('GET', `/v1/wallets/${walletId}/yield/position${query}`, { key: withKey });
  /** Both positions of the wallet, each checked field by field against the chain at its own snapshot block. */
  const positions = async (w: { id: string; address: Address }) => {
    const pool = await position(w.id, `?marketId=${POOL}`);
    expect(pool.status, JSON.stringify(pool.body)).toBe(200);
    const vault = await position(w.id, `?marketId=${VAULT}`);
    expect(vault.status, JSON.stringify(vault.body)).toBe(200);
    const poolTruth = await chainTruth(w.address, BigInt(pool.body.blockNumber));
    const vaultTruth = await chainTruth(w.address, BigInt(vault.body.blockNumber));
    expect(pool.body).toStrictEqual(poolTruth.pool);
    expect(vault.body).toStrictEqual(vaultTruth.vault);
    return { pool: pool.body, vault: vault.body, poolRaw: poolTruth.raw, vaultRaw: vaultTruth.raw };
  };

  it('an empty position: zero balances, "0.000000" available, the snapshot block; chainId alone means the pool market', async () => {
    const w = await wallet();
    const before = await pub.getBlockNumber({ cacheTime: 0 });
    const { pool, vault } = await positions(w);
    expect(pool).toMatchObject({ suppliedBalance: '0.000000', withdrawal: { availableAmount: '0.000000' } });
    expect(vault).toMatchObject({ suppliedBalance: '0.000000', withdrawal: { availableAmount: '0.000000' }, shares: { balance: '0', decimals: 18 } });
    expect(vault).not.toHaveProperty('reserve');
    expect(vault).not.toHaveProperty('availableLiquidity');
    expect(pool.blockNumber).toBeGreaterThanOrEqual(Number(before));
    expect(pool.blockTimestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.000Z$/);
    for (const query of ['?chainId=84532', `?chainId=84532&marketId=${POOL}`]) {
      const byChain = await position(w.id, query);
      expect(byChain.status, query).toBe(200);
      expect(byChain.body, query).toMatchObject({ marketId: POOL, protocol: 'poolprov-v3', suppliedBalance: '0.000000' });
    }
    expect((await position(w.id, `?marketId=${VAULT}&chainId=84532`)).body).toMatchObject({ marketId: VAULT });
  });

  it('after a pool supply and a vault deposit, then a share price move: every field is what the chain says at the block', async () => {
    const w = await wallet();
    await depositFor(w.address, { pool: 100n * USDC, vault: 200n * USDC });
    const first = await positions(w);
    expect(first.pool).toMatchObject({ suppliedBalance: '100.000000', withdrawal: { availableAmount: '100.000000' } });
    expect(first.poolRaw.poolWithdraws).toBe(true);
    expect(first.vaultRaw.vaultRedeems).toBe(true);
    expect(first.vaultRaw.shares).toBeGreaterThan(0n);
    // Deposits round shares down: the preview is the deposit or a base unit under it.
    expect(first.vaultRaw.preview).toBeGreaterThanOrEqual(200n * USDC - 1n);
    expect(first.vaultRaw.preview).toBeLessThanOrEqual(200n * USDC);
    expect(first.vault.withdrawal.availableAmount).toBe(first.vault.suppliedBalance);

    await moveVaultSharePrice(devnets.evmRpcUrl, devnets.yield!, 50n * USDC);
    const moved = await positions(w);
    expect(moved.vault.shares).toEqual(first.vault.shares);
    expect(moved.vaultRaw.preview).toBeGreaterThan(first.vaultRaw.preview + USDC);
    expect(moved.vault.withdrawal.availableAmount).toBe(moved.vault.suppliedBalance);
  });

  it('availableAmount is null while a full withdrawal cannot be simulated (pool and vault liquidity shortages), and back after', async () => {
    const w = await wallet();
    await depositFor(w.address, { pool: 100n * USDC, vault: 200n * USDC });
    const d = devnets.yield!;

    const poolShortage = await createLiquidityShortage(devnets.evmRpcUrl, d);
    try {
      const { pool, poolRaw } = await positions(w);
      expect(poolRaw.poolWithdraws).toBe(false);
      expect(pool.withdrawal.availableAmount).toBeNull();
      expect(poolRaw.aTokens).toBeGreaterThanOrEqual(100n * USDC);
    } finally {
      await endLiquidityShortage(devnets.evmRpcUrl, d, poolShortage);
    }
    expect((await positions(w)).pool.withdrawal.availableAmount).not.toBeNull();

    const vaultShortage = await createVaultLiquidityShortage(devnets.evmRpcUrl, d);
    try {
      const { vault, vaultRaw } = await positions(w);
      expect(vaultRaw.vaultRedeems).toBe(false);
      expect(vault.withdrawal.availableAmount).toBeNull();
      expect(vaultRaw.preview).toBeGreaterThan(199n * USDC);
    } finally {
      await endVaultLiquidityShortage(devnets.evmRpcUrl, d, vaultShortage);
    }
    expect((await positions(w)).vault.withdrawal.availableAmount).not.toBeNull();
  });

  it('400 INVALID_REQUEST for every bad query', async () => {
    const w = await wallet();
    const bad = [
      ['', 'marketId'],
      ['?marketId=poolprov-v3:1:usdc', 'marketId'],
      ['?marketId=nope', 'marketId'],
      ['?chainId=1', 'chainId'],
      ['?chainId=base', 'chainId'],
      ['?chainId=84532.0', 'chainId'],
      [`?marketId=${VAULT}&chainId=8453`, 'chainId'],
      [`?marketId=${POOL}&amount=1`, ''],
      [`?marketId=${POOL}&marketId=${VAULT}`, 'marketId'],
      ['?marketId=', 'marketId'],
    ] as const;
    for (const [query, path] of bad) {
      const response = await position(w.id, query);
      expect(response.status, query).toBe(400);
      expect(response.body.code, query).toBe('INVALID_REQUEST');
      expect(response.body.details?.[0]?.path ?? '', query).toBe(path);
    }
  });

  it("answers another partner's wallet exactly like a missing one, and refuses a Solana wallet", async () => {
    const mine = await wallet();
    const stranger = (await app.createKey()).apiKey;
    const foreign = await position(mine.id, `?marketId=${POOL}`, stranger);
    const missing = await position('00000000-0000-4000-8000-000000000000', `?marketId=${POOL}`, stranger);
    const malformed = await position('not-a-uuid', `?marketId=${POOL}`, stranger);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(malformed.body).toEqual(missing.body);
    expect(missing.body.code).toBe('NOT_FOUND');

    const solana = await position((await wallet('SOLANA')).id, `?marketId=${POOL}`);
    expect(solana.status).toBe(400);
    expect(solana.body).toMatchObject({ code: 'INVALID_REQUEST', details: [{ path: 'walletId' }] });
  });

  it('documents the route, its query and both position shapes in the OpenAPI document', async () => {
    const spec = await app.request('GET', '/v1/openapi.json');
    const operation = spec.body.paths['/v1/wallets/{walletId}/yield/position']?.get;
    expect(operation).toMatchObject({ operationId: 'getYieldPosition' });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '502', '503']));
    expect(operation.parameters.map((p: { name: string }) => p.name)).toEqual(expect.arrayContaining(['walletId', 'marketId', 'chainId']));
    expect(JSON.stringify(spec.body.components.schemas.YieldPosition)).toMatch(/availableLiquidity.*vaultAddress/s);
  });
});

describe('GET .../yield/position when the chain fails', () => {
  it('503 RPC_UNAVAILABLE when the RPC cannot be reached; 502 YIELD_POSITION_READ_FAILED when a plain read answers nothing', async () => {
    const proxy = await startRpcFaultProxy(devnets.evmRpcUrl);
    const d = devnets.yield!;
    // The pool market's aToken is an address without code: its balanceOf answers no data.
    const noCode = privateKeyToAccount(generatePrivateKey()).address;
    const app = await startTestApp(testDatabaseKinds[0]!, {
      chains: {
        ...devnets,
        gateways: { ...devnets.gateways, evm: (chainId) => (chainId === LOCAL_EVM_CHAIN_ID ? createEvmGateway({ chainId, rpcUrl: proxy.url, timeoutMs: 1_000 }) : undefined) },
        yield: { ...d, pool: { ...d.pool, aToken: noCode } },
      },
    });
    try {
      const key = (await app.createKey()).apiKey;
      const w = (await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: `position-fail-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body as { id: string };
      const broken = await app.request('GET', `/v1/wallets/${w.id}/yield/position?marketId=${POOL}`, { key });
      expect(broken.status, JSON.stringify(broken.body)).toBe(502);
      expect(broken.body.code).toBe('YIELD_POSITION_READ_FAILED');
      expect(broken.body.message).toContain(noCode);
      expect((await app.request('GET', `/v1/wallets/${w.id}/yield/position?marketId=${VAULT}`, { key })).status).toBe(200);
      for (const mode of ['drop', { failMethods: ['eth_call'] }] as const) {
        proxy.setMode(mode);
        const down = await app.request('GET', `/v1/wallets/${w.id}/yield/position?marketId=${VAULT}`, { key });
        expect(down.status, JSON.stringify(mode)).toBe(503);
        expect(down.body.code).toBe('RPC_UNAVAILABLE');
      }
    } finally {
      await app.close();
      await proxy.stop();
    }
  });
});
