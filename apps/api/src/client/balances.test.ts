import { createClient, unwrap, WalletApiError, type WalletBalances, type WalletClient } from '@wallet/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_EVM_CHAIN_ID, startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { checkedFetch } from '../testing/response-contract.ts';

const fetchChecked = checkedFetch();

/** `client.balances` against the real service over HTTP, on the local devnets (every answer checked against the served document). */
describe('client.balances', () => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let client: WalletClient;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100 });
    app = await startTestApp('pglite', { chains: devnets });
    client = createClient({
      baseUrl: app.baseUrl,
      apiKey: (await app.createKey()).apiKey,
      fetch: async (request) => fetchChecked(request.url, { method: request.method, headers: request.headers, body: request.method === 'GET' ? undefined : await request.text() }),
    });
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  const newWallet = (type: 'EVM' | 'SOLANA' | 'SUI') => unwrap(client.POST('/v1/wallets', { body: { type, userIdentifier: `client-balances-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } }));

  it('gets an EVM and a Solana wallet\'s balances, typed by wallet type', async () => {
    const evm = await newWallet('EVM');
    await devnets.faucet.fund({ type: 'EVM', address: evm.address! }, 'usdc', 12_000_000n);
    const evmBalances: WalletBalances = await client.balances.get(evm.id, { chainId: String(LOCAL_EVM_CHAIN_ID) });
    if (evmBalances.type !== 'EVM') throw new Error('expected the EVM shape');
    expect(evmBalances.chainId).toBe(String(LOCAL_EVM_CHAIN_ID));
    expect(evmBalances.balances.map((b) => [b.symbol, b.rawBalance, b.balance])).toEqual([
      ['ETH', '0', '0'],
      ['USDC', '12000000', '12'],
    ]);
    expect(evmBalances.balances[1]!.blockNumber).toBe(evmBalances.balances[0]!.blockNumber);

    const sol = await newWallet('SOLANA');
    await devnets.faucet.fund({ type: 'SOLANA', address: sol.address! }, 'native', 1_500_000_000n);
    const solBalances = await client.balances.get(sol.id, { network: 'SOLANA_DEVNET' });
    if (solBalances.type !== 'SOLANA') throw new Error('expected the Solana shape');
    expect(solBalances.balances[0]).toMatchObject({ asset: 'native', symbol: 'SOL', rawBalance: '1500000000', balance: '1.5', slot: expect.any(Number) });
  });

  it('throws WalletApiError with the code of each refusal', async () => {
    const evm = await newWallet('EVM');
    const failure = (call: Promise<unknown>) => call.then(() => expect.fail('expected a WalletApiError'), (e: unknown) => e);
    const unknownChain = await failure(client.balances.get(evm.id, { chainId: '1' }));
    expect(unknownChain).toBeInstanceOf(WalletApiError);
    expect(unknownChain).toMatchObject({ status: 400, code: 'UNSUPPORTED_CHAIN' });
    expect(await failure(client.balances.get(evm.id))).toMatchObject({ status: 400, code: 'INVALID_REQUEST', details: [expect.objectContaining({ path: 'chainId' })] });
    expect(await failure(client.balances.get((await newWallet('SUI')).id))).toMatchObject({ status: 400, code: 'UNSUPPORTED_WALLET_TYPE' });
    expect(await failure(client.balances.get(crypto.randomUUID(), { chainId: String(LOCAL_EVM_CHAIN_ID) }))).toMatchObject({ status: 404, code: 'NOT_FOUND' });
  });
});
