import { findAssociatedTokenPda, TOKEN_PROGRAM_ADDRESS } from '@wallet/chains/devnets';
import { address, createSolanaRpc } from '@solana/kit';
import { testDatabaseKinds } from '@wallet/db';
import { createPublicClient, erc20Abi, http, type Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

describe('chains and the local faucet', () => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let key: string;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    app = await startTestApp(testDatabaseKinds[0]!, { chains: devnets });
    key = (await app.createKey()).apiKey;
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  const wallet = async (type: string) =>
    (await app.request('POST', '/v1/wallets', { key, body: { type, userIdentifier: `faucet-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body;
  const faucet = (body: unknown, withKey = key) => app.request('POST', '/v1/local/faucet', { key: withKey, body });

  it('lists the local chains with native currency and USDC', async () => {
    const response = await app.request('GET', '/v1/chains', { key });
    expect(response.status).toBe(200);
    const [evm, solana] = response.body.chains;
    expect(evm).toMatchObject({ type: 'EVM', chainId: '84532', nativeCurrency: { symbol: 'ETH', decimals: 18 }, usdc: { decimals: 6 }, isDevnet: true });
    expect(solana).toMatchObject({ type: 'SOLANA', network: 'SOLANA_DEVNET', nativeCurrency: { symbol: 'SOL', decimals: 9 }, usdc: { decimals: 6 } });
    const client = createPublicClient({ transport: http(devnets.evmRpcUrl) });
    expect(await client.getChainId()).toBe(84532);
    expect(await client.readContract({ address: evm.usdc.address, abi: erc20Abi, functionName: 'decimals' })).toBe(6);
  });

  it('names the local devnets and their RPC URLs, which answer JSON-RPC as the chains they name', async () => {
    const response = await app.request('GET', '/v1/local/devnets', { key });
    expect(response.status).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(['evm', 'solana']);
    const [evm] = response.body.evm as { chainId: number; rpcUrl: string }[];
    const [solana] = response.body.solana as { network: string; rpcUrl: string }[];
    expect(response.body.evm).toHaveLength(1);
    expect(response.body.solana).toHaveLength(1);
    expect(evm).toEqual({ chainId: 84532, rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    expect(solana).toEqual({ network: 'SOLANA_DEVNET', rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) });
    const rpc = async (url: string, method: string) => {
      const answer = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: [] }) });
      return ((await answer.json()) as { result: unknown }).result;
    };
    expect(Number(await rpc(evm!.rpcUrl, 'eth_chainId'))).toBe(evm!.chainId);
    expect(await rpc(solana!.rpcUrl, 'getHealth')).toBe('ok');
    expect(await rpc(solana!.rpcUrl, 'getVersion')).toHaveProperty('solana-core');
    // The faucet's funding lands on the chain the URL reaches.
    const w = await wallet('EVM');
    expect((await faucet({ walletId: w.id, amount: '0.25' })).status).toBe(200);
    expect(await createPublicClient({ transport: http(evm!.rpcUrl) }).getBalance({ address: w.address })).toBe(250_000_000_000_000_000n);
    // Same authentication as every /v1 route.
    expect((await app.request('GET', '/v1/local/devnets')).body.code).toBe('UNAUTHORIZED');
    expect((await app.request('GET', '/v1/local/devnets', { key: 'sk_test_unknown' })).status).toBe(403);
  });

  it('documents the devnets route in the served OpenAPI document', async () => {
    const document = (await app.request('GET', '/v1/openapi.json')).body;
    const operation = document.paths['/v1/local/devnets'].get;
    expect(operation.operationId).toBe('localDevnets');
    expect(Object.keys(operation.responses)).toEqual(expect.arrayContaining(['200', '401', '403', '429']));
    expect(operation.responses['200'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/LocalDevnets' });
    expect(document.components.schemas.LocalDevnets.properties.evm.items.properties.chainId.type).toBe('integer');
  });

  it('funds an EVM wallet with ETH and test USDC', async () => {
    const w = await wallet('EVM');
    const native = await faucet({ walletId: w.id, amount: '1.5' });
    expect(native.status, JSON.stringify(native.body)).toBe(200);
    expect(native.body).toMatchObject({ walletId: w.id, token: 'native', baseUnits: '1500000000000000000' });
    expect(native.body.txHash).toMatch(/^0x[0-9a-f]{64}$/);
    const usdc = await faucet({ walletId: w.id, amount: '10', token: 'usdc' });
    expect(usdc.status).toBe(200);
    const client = createPublicClient({ transport: http(devnets.evmRpcUrl) });
    expect(await client.getBalance({ address: w.address })).toBe(1_500_000_000_000_000_000n);
    const chains = (await app.request('GET', '/v1/chains', { key })).body.chains;
    const balance = await client.readContract({ address: chains[0].usdc.address as Address, abi: erc20Abi, functionName: 'balanceOf', args: [w.address] });
    expect(balance).toBe(10_000_000n);
  });

  it('funds a Solana wallet with SOL and test USDC', async () => {
    const w = await wallet('SOLANA');
    expect((await faucet({ walletId: w.id, amount: '2' })).status).toBe(200);
    const usdc = await faucet({ walletId: w.id, amount: '5.25', token: 'usdc' });
    expect(usdc.status, JSON.stringify(usdc.body)).toBe(200);
    const rpc = createSolanaRpc(devnets.solanaRpcUrl);
    expect((await rpc.getBalance(address(w.address)).send()).value).toBe(2_000_000_000n);
    const mint = (await app.request('GET', '/v1/chains', { key })).body.chains[1].usdc.address;
    const [ata] = await findAssociatedTokenPda({ owner: address(w.address), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
    expect((await rpc.getTokenAccountBalance(ata).send()).value.amount).toBe('5250000');
  });

  it('refuses bad faucet requests', async () => {
    const evm = await wallet('EVM');
    const cosmos = await wallet('COSMOS');
    for (const body of [{ walletId: evm.id, amount: '0' }, { walletId: evm.id, amount: '-1' }, { walletId: evm.id, amount: '1', token: 'btc' }, { walletId: evm.id, amount: '1.1234567', token: 'usdc' }, { walletId: cosmos.id, amount: '1' }, { walletId: evm.id }, { walletId: evm.id, amount: '1', extra: true }]) {
      const response = await faucet(body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe('INVALID_REQUEST');
    }
    // Amounts are whole tokens; each refusal says so and quotes what it got.
    const wholeTokens = 'a positive decimal amount in whole tokens as a string (e.g. "1.5" for 1.5 ETH, SOL or USDC), not base units';
    const amountMessages: [unknown, string][] = [
      ['1e6', `expected ${wholeTokens}, got "1e6"`],
      [1.5, `expected ${wholeTokens}, got 1.5`],
      ['0', `expected ${wholeTokens}, got "0"`],
      [undefined, `required: ${wholeTokens}`],
    ];
    for (const [amount, message] of amountMessages) {
      const response = await faucet({ walletId: evm.id, amount });
      expect(response.body, JSON.stringify(amount)).toEqual({ code: 'INVALID_REQUEST', message: `Invalid request: amount: ${message}`, details: [{ path: 'amount', message }] });
    }
    const tooPrecise = await faucet({ walletId: evm.id, amount: '1.1234567', token: 'usdc' });
    expect(tooPrecise.body).toMatchObject({ message: 'Invalid request: amount: expected at most 6 decimals in whole tokens (USDC has 6), got "1.1234567"', details: [{ path: 'amount' }] });
    const stranger = (await app.createKey()).apiKey;
    expect((await faucet({ walletId: evm.id, amount: '1' }, stranger)).status).toBe(404);
  });
});

describe('outside local mode', () => {
  it('has no faucet or devnets route and an empty chain list without configured chains', async () => {
    const app = await startTestApp(testDatabaseKinds[0]!);
    try {
      const key = (await app.createKey()).apiKey;
      expect((await app.request('POST', '/v1/local/faucet', { key, body: { walletId: 'x', amount: '1' } })).status).toBe(404);
      const devnets = await app.request('GET', '/v1/local/devnets', { key });
      const unknown = await app.request('GET', '/v1/local/no-such-route', { key });
      expect(devnets.status).toBe(404);
      expect(devnets.body).toEqual({ code: 'NOT_FOUND', message: 'Route not found' });
      expect(unknown).toMatchObject({ status: devnets.status, body: devnets.body });
      expect((await app.request('GET', '/v1/openapi.json')).body.paths['/v1/local/devnets']).toBeUndefined();
      expect((await app.request('GET', '/v1/chains', { key })).body).toEqual({ chains: [] });
    } finally {
      await app.close();
    }
  });
});
