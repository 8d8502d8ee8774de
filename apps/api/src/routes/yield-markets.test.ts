import { testDatabaseKinds } from '@wallet/db';
import { createPublicClient, http, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

// One set of devnets (with the yield contracts) for the whole file; one app per database kind.
let devnets: LocalDevnets;
beforeAll(async () => {
  devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, yieldMarkets: true });
});
afterAll(async () => {
  await devnets?.stop();
});

describe.each(testDatabaseKinds)('GET /v1/wallets/{walletId}/yield/markets on %s', (kind) => {
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    app = await startTestApp(kind, { chains: devnets });
    key = (await app.createKey()).apiKey;
  });
  afterAll(async () => {
    await app?.close();
  });

  const wallet = async (type: string, withKey = key) =>
    (await app.request('POST', '/v1/wallets', { key: withKey, body: { type, userIdentifier: `yield-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body as { id: string };
  const markets = (walletId: string, withKey = key) => app.request('GET', `/v1/wallets/${walletId}/yield/markets`, { key: withKey });

  it('lists the two local-test markets with the devnet contracts, which have code', async () => {
    const response = await markets((await wallet('EVM')).id);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(Object.keys(response.body)).toEqual(['markets']);
    const deployed = devnets.yield!;
    const asset = { symbol: 'USDC', address: deployed.pool.usdc, decimals: 6 };
    expect(response.body.markets).toEqual([
      { id: 'poolprov-v3:84532:usdc', chainId: 84532, source: 'poolprov-v3', name: expect.any(String), testOnly: true, asset, contracts: { pool: deployed.pool.poolAddress, aToken: deployed.pool.aToken } },
      { id: 'vaultprov-v2-base-sepolia-demo-usdc', chainId: 84532, source: 'vaultprov-v2', name: expect.any(String), testOnly: true, asset, contracts: { vault: deployed.vault.vault, bundler: deployed.vault.bundler } },
    ]);
    // The market's USDC is the chain's (the faucet's) USDC.
    const chains = (await app.request('GET', '/v1/chains', { key })).body.chains;
    expect(chains[0].usdc.address).toBe(deployed.pool.usdc);
    const client = createPublicClient({ transport: http(devnets.evmRpcUrl) });
    for (const market of response.body.markets) {
      for (const address of [market.asset.address, ...Object.values(market.contracts)] as Address[]) {
        expect((await client.getCode({ address }))?.length ?? 0, `${market.id} ${address}`).toBeGreaterThan(2);
      }
    }
  });

  it("answers another partner's wallet exactly like a missing one", async () => {
    const mine = await wallet('EVM');
    const stranger = (await app.createKey()).apiKey;
    const foreign = await markets(mine.id, stranger);
    const missing = await markets('00000000-0000-4000-8000-000000000000', stranger);
    const malformed = await markets('not-a-uuid', stranger);
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual(missing.body);
    expect(malformed.body).toEqual(missing.body);
    expect(missing.body.code).toBe('NOT_FOUND');
  });

  it('refuses a non-EVM wallet with 400 INVALID_REQUEST', async () => {
    for (const type of ['SOLANA', 'COSMOS']) {
      const response = await markets((await wallet(type)).id);
      expect(response.status, type).toBe(400);
      expect(response.body).toMatchObject({ code: 'INVALID_REQUEST', details: [{ path: 'walletId' }] });
      expect(response.body.message).toMatch(/EVM wallets only/);
    }
  });

  it('documents the route in the OpenAPI document', async () => {
    const spec = await app.request('GET', '/v1/openapi.json');
    const operation = spec.body.paths['/v1/wallets/{walletId}/yield/markets']?.get;
    expect(operation).toMatchObject({ operationId: 'listYieldMarkets' });
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '400', '404']));
    expect(spec.body.components.schemas.YieldMarketList.properties.markets).toBeDefined();
    expect(spec.body.components.schemas.YieldMarket).toBeDefined();
  });
});
