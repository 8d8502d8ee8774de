import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { consolePartner, restWallet, storedRecord } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { trpcFailure } from '../testing/staff-client.ts';

type Partner = Awaited<ReturnType<typeof consolePartner<'support'>>>;

const USDC = '0xaAaAaAaaAaAaAaaAaAAAAAAAAaaaAaAaAaaAaaAa';

describe.each(testDatabaseKinds)('the console records list filters on %s', (kind) => {
  let app: TestApp;
  let a: Partner;
  let b: Partner;
  const ids: Record<string, string> = {};
  const u = randomUUID().slice(0, 8);

  beforeAll(async () => {
    app = await startTestApp(kind);
    [a, b] = await Promise.all([consolePartner(app, [], ['support'] as const), consolePartner(app, [], ['support'] as const)]);
    const owner = (p: Partner) => ({ projectId: p.key.projectId, partnerId: p.partnerId, apiKeyId: p.key.apiKeyId });
    const alice = await restWallet(app, a.key.apiKey, { userIdentifier: `Support-Alice-${u}` });
    const bob = await restWallet(app, a.key.apiKey, { userIdentifier: `bob-${u}` });
    // Another partner's wallet whose user starts the same way: never in partner a's answers.
    const other = await restWallet(app, b.key.apiKey, { userIdentifier: `Support-Alice-${u}` });
    ids.alice = alice.id;
    ids.aliceNative = (await storedRecord(app, alice, owner(a), { status: 'confirmed', value: '2000000000000000' })).id;
    ids.aliceUsdc = (await storedRecord(app, alice, owner(a), { status: 'failed', failureStage: 'broadcast', failureCode: 'REPLACED', failureMessage: 'replaced', tokenAddress: USDC, value: '5000000' })).id;
    ids.bobSign = (await storedRecord(app, bob, owner(a), { status: 'pending', intentKind: 'sign_transaction', chainId: '1' })).id;
    const old = await storedRecord(app, bob, owner(a), { status: 'confirmed' });
    await app.database.prisma.transactionRecord.update({ where: { id: old.id }, data: { createdAt: new Date('2020-01-01T12:00:00Z') } });
    ids.bobOld = old.id;
    ids.other = (await storedRecord(app, other, owner(b), { status: 'failed', failureStage: 'broadcast', failureCode: 'REPLACED', failureMessage: 'replaced' })).id;
  });
  afterAll(async () => {
    await app?.close();
  });

  const list = async (p: Partner, filters: Record<string, unknown>) =>
    (await p.support.transactions.list.query({ projectId: p.key.projectId, limit: 100, ...filters })).data.map((r) => r.transactionId);

  it('narrows by each filter', async () => {
    const all = [ids.aliceUsdc, ids.aliceNative, ids.bobOld, ids.bobSign].sort();
    expect((await list(a, {})).sort()).toEqual(all);
    // User: a case-insensitive prefix of the wallet's user identifier.
    expect(await list(a, { user: 'support-alice' })).toEqual([ids.aliceUsdc, ids.aliceNative]);
    expect(await list(a, { user: `BOB-${u}` })).toEqual([ids.bobSign, ids.bobOld]);
    expect(await list(a, { user: 'nobody-has-this' })).toEqual([]);
    expect(await list(a, { walletId: ids.alice })).toEqual([ids.aliceUsdc, ids.aliceNative]);
    expect(await list(a, { status: 'failed' })).toEqual([ids.aliceUsdc]);
    expect(await list(a, { intentKind: 'sign_transaction' })).toEqual([ids.bobSign]);
    expect(await list(a, { chain: '1' })).toEqual([ids.bobSign]);
    expect((await list(a, { chain: '84532' })).sort()).toEqual([ids.aliceUsdc, ids.aliceNative, ids.bobOld].sort());
    expect(await list(a, { token: USDC.toUpperCase().replace('0X', '0x') })).toEqual([ids.aliceUsdc]);
    expect(await list(a, { token: 'native' })).toEqual([ids.bobSign, ids.aliceNative, ids.bobOld]);
    expect(await list(a, { to: '2020-01-01' })).toEqual([ids.bobOld]);
    expect(await list(a, { from: '2020-01-02' })).toEqual([ids.bobSign, ids.aliceUsdc, ids.aliceNative]);
    expect(await list(a, { from: '2019-12-31T00:00:00Z', to: '2020-01-01T11:59:59Z' })).toEqual([]);
    expect(await list(a, { user: 'support-alice', status: 'confirmed' })).toEqual([ids.aliceNative]);
  });

  it('shows each record with its user and pages a filtered list by keyset', async () => {
    const first = await a.support.transactions.list.query({ projectId: a.key.projectId, user: 'Support-', limit: 1 });
    expect(first.data.map((r) => [r.transactionId, r.userIdentifier])).toEqual([[ids.aliceUsdc, `Support-Alice-${u}`]]);
    expect(first.nextCursor).not.toBeNull();
    const second = await a.support.transactions.list.query({ projectId: a.key.projectId, user: 'Support-', limit: 1, cursor: first.nextCursor! });
    expect(second.data.map((r) => r.transactionId)).toEqual([ids.aliceNative]);
    expect(second.nextCursor).toBeNull();
  });

  it("never shows another partner's records; its wallet or project is a 404", async () => {
    expect(await list(a, { user: 'support-alice', status: 'failed' })).not.toContain(ids.other);
    expect(await list(b, { user: 'support-alice' })).toEqual([ids.other]);
    expect(await list(b, { user: 'bob' })).toEqual([]);
    expect(await trpcFailure(b.support.transactions.list.query({ projectId: b.key.projectId, walletId: ids.alice }))).toMatchObject({ status: 404 });
    expect(await trpcFailure(b.support.transactions.list.query({ projectId: a.key.projectId, user: 'support' }))).toMatchObject({ status: 404 });
  });

  it('refuses a malformed filter with a 400', async () => {
    expect(await trpcFailure(a.support.transactions.list.query({ projectId: a.key.projectId, from: '2020-02-01', to: '2020-01-01' }))).toMatchObject({ status: 400 });
    expect(await trpcFailure(a.support.transactions.list.query({ projectId: a.key.projectId, from: 'yesterday' }))).toMatchObject({ status: 400 });
  });
});

/** A port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = net.createServer().listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

describe('the wallet page balances with one chain down', () => {
  let devnets: LocalDevnets;
  let app: TestApp;

  beforeAll(async () => {
    // One chain refuses connections (closed port).
    devnets = await startLocalDevnets({
      otherChains: [
        { type: 'EVM', chainId: 1337, rpcUrl: `http://127.0.0.1:${await closedPort()}`, name: 'Down chain' },
      ],
    });
    app = await startTestApp(testDatabaseKinds[0]!, { chains: devnets });
  }, 120_000);
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  it('reads each chain on its own: the live one answers, one that refuses connections is a 503 of its own', async () => {
    const partner = await consolePartner(app, [], ['support'] as const);
    const wallet = await restWallet(app, partner.key.apiKey);
    await devnets.faucet.fund({ type: 'EVM', address: wallet.address }, 'native', 2_000_000_000_000_000n);
    await devnets.faucet.fund({ type: 'EVM', address: wallet.address }, 'usdc', 5_000_000n);
    const read = (chainId: string) => partner.support.balances.get.query({ walletId: wallet.id, chainId });
    // The page asks for every chain at once, as the console's wallet page does.
    const [live, down] = await Promise.all([read('84532'), trpcFailure(read('1337'))]);
    expect(live.balances.map((b) => [b.symbol, b.rawBalance])).toEqual([
      ['ETH', '2000000000000000'],
      ['USDC', '5000000'],
    ]);
    expect(down).toMatchObject({ status: 503, body: { code: 'RPC_UNAVAILABLE' } });
    // Another partner's wallet is a missing one.
    const other = await consolePartner(app, [], ['support'] as const);
    expect(await trpcFailure(other.support.balances.get.query({ walletId: wallet.id, chainId: '84532' }))).toMatchObject({ status: 404 });
  }, 60_000);
});
