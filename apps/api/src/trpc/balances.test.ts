import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_EVM_CHAIN_ID, startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { consolePartner, graphql, restWallet } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { trpcFailure } from '../testing/staff-client.ts';

type Partner = Awaited<ReturnType<typeof consolePartner<'support'>>>;

const BALANCES = `query($walletId: ID!, $chainId: String, $network: String) {
  walletBalances(walletId: $walletId, chainId: $chainId, network: $network) {
    walletId type address chainId network
    balances { asset tokenAddress tokenProgram symbol decimals rawBalance balance blockNumber slot }
  }
}`;

let devnets: LocalDevnets;
beforeAll(async () => {
  devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100 });
});
afterAll(async () => {
  await devnets?.stop();
});

/** The console's balances (tRPC `balances.get`, GraphQL `walletBalances`) are the REST use case for the staff member's partner. */
describe.each(testDatabaseKinds)("the console's balances views on %s", (kind) => {
  let app: TestApp;
  let partner: Partner;
  let stranger: Partner;

  beforeAll(async () => {
    app = await startTestApp(kind, { chains: devnets });
    [partner, stranger] = await Promise.all([consolePartner(app, [], ['support'] as const), consolePartner(app, [], ['support'] as const)]);
  });
  afterAll(async () => {
    await app?.close();
  });

  const rest = async (walletId: string, query: string) => {
    const answer = await app.request('GET', `/v1/wallets/${walletId}/balances${query}`, { key: partner.key.apiKey });
    expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    return answer.body as { balances: Record<string, unknown>[] };
  };

  it('tRPC answers what REST answers, for EVM and Solana wallets', async () => {
    const evm = await restWallet(app, partner.key.apiKey);
    await devnets.faucet.fund({ type: 'EVM', address: evm.address }, 'native', 3_000_000_000_000_000n);
    await devnets.faucet.fund({ type: 'EVM', address: evm.address }, 'usdc', 4_000_000n);
    const viaTrpc = await partner.support.balances.get.query({ walletId: evm.id, chainId: String(LOCAL_EVM_CHAIN_ID) });
    const viaRest = await rest(evm.id, `?chainId=${LOCAL_EVM_CHAIN_ID}`);
    // Anvil mines every second: compare at the block each read.
    expect(viaTrpc).toMatchObject({ ...viaRest, balances: viaRest.balances.map((b) => ({ ...b, blockNumber: expect.any(Number) })) });
    expect(viaTrpc.balances.map((b) => b.balance)).toEqual(['0.003', '4']);
    // A number chain id is taken too (the console's forms send either).
    expect((await partner.support.balances.get.query({ walletId: evm.id, chainId: LOCAL_EVM_CHAIN_ID })).balances).toHaveLength(2);

    const sol = await restWallet(app, partner.key.apiKey, { type: 'SOLANA' });
    await devnets.faucet.fund({ type: 'SOLANA', address: sol.address }, 'usdc', 1_250_000n);
    const solTrpc = await partner.support.balances.get.query({ walletId: sol.id, network: 'SOLANA_DEVNET' });
    const solRest = await rest(sol.id, '?network=SOLANA_DEVNET');
    expect(solTrpc).toMatchObject({ ...solRest, balances: solRest.balances.map((b) => ({ ...b, slot: expect.any(Number) })) });
    expect(solTrpc.balances.map((b) => `${b.symbol}:${b.balance}`)).toEqual(['SOL:0', 'USDC:1.25']);
  });

  it("tRPC refuses like REST: another partner's wallet is a missing one, an unknown chain and a missing chainId are 400", async () => {
    const evm = await restWallet(app, partner.key.apiKey);
    const foreign = await trpcFailure(stranger.support.balances.get.query({ walletId: evm.id, chainId: String(LOCAL_EVM_CHAIN_ID) }));
    const missing = await trpcFailure(stranger.support.balances.get.query({ walletId: crypto.randomUUID(), chainId: String(LOCAL_EVM_CHAIN_ID) }));
    expect(foreign).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'Wallet not found' } });
    expect(missing).toEqual(foreign);
    expect(await trpcFailure(partner.support.balances.get.query({ walletId: evm.id, chainId: '1' }))).toMatchObject({ status: 400, body: { code: 'UNSUPPORTED_CHAIN' } });
    expect(await trpcFailure(partner.support.balances.get.query({ walletId: evm.id }))).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
    const cosmos = await restWallet(app, partner.key.apiKey, { type: 'COSMOS' });
    expect(await trpcFailure(partner.support.balances.get.query({ walletId: cosmos.id }))).toMatchObject({ status: 400, body: { code: 'UNSUPPORTED_WALLET_TYPE' } });
  });

  it('GraphQL walletBalances answers the same entries, block numbers and slots as strings, and refuses the same way', async () => {
    const evm = await restWallet(app, partner.key.apiKey);
    await devnets.faucet.fund({ type: 'EVM', address: evm.address }, 'usdc', 2_500_000n);
    const answer = await graphql(app, partner.cookies.support, BALANCES, { walletId: evm.id, chainId: String(LOCAL_EVM_CHAIN_ID) });
    expect(answer.body.errors, JSON.stringify(answer.body.errors)).toBeUndefined();
    const viaRest = await rest(evm.id, `?chainId=${LOCAL_EVM_CHAIN_ID}`);
    expect(answer.body.data.walletBalances).toEqual({
      walletId: evm.id,
      type: 'EVM',
      address: evm.address,
      chainId: String(LOCAL_EVM_CHAIN_ID),
      network: null,
      balances: viaRest.balances.map((b) => ({ ...b, tokenProgram: null, blockNumber: expect.stringMatching(/^\d+$/), slot: null })),
    });
    expect(answer.body.data.walletBalances.balances[1]).toMatchObject({ symbol: 'USDC', rawBalance: '2500000', balance: '2.5' });

    const sol = await restWallet(app, partner.key.apiKey, { type: 'SOLANA' });
    const solAnswer = await graphql(app, partner.cookies.support, BALANCES, { walletId: sol.id, network: 'SOLANA_DEVNET' });
    expect(solAnswer.body.data.walletBalances).toMatchObject({ type: 'SOLANA', chainId: null, network: 'SOLANA_DEVNET', balances: [{ asset: 'native', symbol: 'SOL', blockNumber: null, slot: expect.stringMatching(/^\d+$/) }, { asset: 'spl', symbol: 'USDC' }] });

    const foreign = await graphql(app, stranger.cookies.support, BALANCES, { walletId: evm.id, chainId: String(LOCAL_EVM_CHAIN_ID) });
    expect(foreign.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'NOT_FOUND', status: 404, message: 'Wallet not found' } })]);
    const unknown = await graphql(app, partner.cookies.support, BALANCES, { walletId: evm.id, chainId: '1' });
    expect(unknown.body.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'UNSUPPORTED_CHAIN', status: 400 }) })]);
    const anonymous = await graphql(app, undefined, BALANCES, { walletId: evm.id, chainId: String(LOCAL_EVM_CHAIN_ID) });
    expect(anonymous.status).toBe(401);
  });
});
