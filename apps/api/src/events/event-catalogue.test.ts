import { generateKeyPairSigner } from '@solana/kit';
import { testDatabaseKinds } from '@wallet/db';
import { type Clock } from '@wallet/domain';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCommand } from '../cli/commands.ts';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

/**
 * The spec's event table (interface-spec.md, Events), transcribed: every event the service records
 * must carry exactly these `data` keys (required ones always, optional ones only where the spec
 * says so), checked on events produced by the real flows below.
 */
const sendIdentity = ['userId', 'walletId', 'txHash', 'type', 'isDevnet'];
const SPEC: Record<string, { required: string[]; optional?: string[]; evmOnly?: string[] }> = {
  'user.created': { required: ['userId', 'userCreatedAt'] },
  'wallet.created': { required: ['userId', 'walletId', 'walletAddress', 'walletType', 'walletCreatedAt'] },
  'transaction.signed': { required: ['userId', 'walletId', 'walletAddress', 'chainId', 'signedAt'] },
  'send.broadcasted': { required: [...sendIdentity, 'broadcastedAt'], evmOnly: ['evmChainId'] },
  'send.confirmed': { required: [...sendIdentity, 'confirmedAt'], evmOnly: ['evmChainId'] },
  'send.failed': { required: [...sendIdentity, 'failedAt'], optional: ['error'], evmOnly: ['evmChainId'] },
  'rest.transaction.confirmed': {
    required: ['transactionId', 'walletId', 'partnerId', 'intentKind', 'type', 'hash', 'blockNumber', 'blockHash', 'resolvedAt'],
  },
  'rest.transaction.failed': {
    required: ['transactionId', 'walletId', 'partnerId', 'intentKind', 'type', 'status', 'hash', 'failureMessage', 'resolvedAt'],
    optional: ['failureStage', 'failureCode', 'chainOutcome', 'winningHash', 'winningStatus'],
  },
  'wallet.pregen_claimed': { required: ['userId', 'walletId', 'walletAddress', 'walletType', 'claimedAt'] },
  'user.external_wallet_verified': { required: ['userId', 'walletAddress', 'verifiedAt'], optional: ['walletProvider'] },
};

function checkAgainstSpec(type: string, data: Record<string, unknown>) {
  const spec = SPEC[type];
  expect(spec, `unknown event type ${type}`).toBeDefined();
  const keys = Object.keys(data);
  const isEvm = data.type === 'EVM';
  for (const key of spec!.required) expect(keys, `${type} lacks ${key}`).toContain(key);
  for (const key of spec!.evmOnly ?? []) {
    if (isEvm) expect(keys, `${type} (EVM) lacks ${key}`).toContain(key);
    else expect(keys, `${type} (Solana) must not carry ${key}`).not.toContain(key);
  }
  const allowed = new Set([...spec!.required, ...(spec!.optional ?? []), ...(spec!.evmOnly ?? [])]);
  for (const key of keys) expect(allowed.has(key), `${type} carries ${key}, which the spec does not list`).toBe(true);
  if (type === 'rest.transaction.failed') {
    if (data.status === 'failed') expect(keys).toContain('failureStage');
    else expect(keys).not.toContain('failureStage');
  }
}

// The data shapes do not depend on the database; one backend keeps the suite short.
describe.each(testDatabaseKinds.slice(0, 1))('every event type carries exactly the spec data fields (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let key: string;
  let projectId: string;
  let offset = 0;
  const clock: Clock = { now: () => new Date(Date.now() + offset) };

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    app = await startTestApp(kind, { chains: devnets, clock });
    ({ apiKey: key, projectId } = await app.createKey());
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  const post = async (path: string, body: unknown) => {
    const response = await app.request('POST', path, { key, body });
    expect([200, 201], JSON.stringify(response.body)).toContain(response.status);
    return response.body;
  };
  const status = async (walletId: string, transactionId: string) =>
    (await app.request('GET', `/v1/wallets/${walletId}/transactions/${transactionId}`, { key })).body.status as string;
  async function resolve(walletId: string, transactionIds: string[]) {
    for (let i = 0; i < 120; i++) {
      const open = [];
      for (const id of transactionIds) if (['pending', 'submitted'].includes(await status(walletId, id))) open.push(id);
      if (open.length === 0) return;
      offset += 120_000; // every record is due again
      await app.services.monitor.runOnce();
      await new Promise((r) => setTimeout(r, 150));
    }
    throw new Error('records did not resolve');
  }

  it('records each event type from the real flow, with the spec keys and nothing else', async () => {
    const identifier = `catalogue-${Math.random()}@example.com`;
    const evm = await post('/v1/wallets', { type: 'EVM', userIdentifier: identifier, userIdentifierType: 'EMAIL' });
    const sol = await post('/v1/wallets', { type: 'SOLANA', userIdentifier: identifier, userIdentifierType: 'EMAIL' });
    await post(`/v1/wallets/${evm.id}/sign-message`, { message: 'hello' });
    await post('/v1/local/faucet', { walletId: evm.id, amount: '1' });
    await post('/v1/local/faucet', { walletId: sol.id, amount: '1' });
    const chains = (await app.request('GET', '/v1/chains', { key })).body.chains;
    const usdc = chains.find((c: { type: string }) => c.type === 'EVM').usdc.address;
    const evmSent = await post(`/v1/wallets/${evm.id}/transfer`, { to: '0x000000000000000000000000000000000000dEaD', value: '1000', chainId: 84532 });
    // An explicit gas limit skips estimation, so a transfer of tokens the wallet lacks reverts on chain.
    const evmReverted = await post(`/v1/wallets/${evm.id}/transfer`, { to: '0x000000000000000000000000000000000000dEaD', value: '5000000', chainId: 84532, tokenAddress: usdc, gasLimit: '100000' });
    const solSent = await post(`/v1/wallets/${sol.id}/transfer`, { to: (await generateKeyPairSigner()).address, value: '2000000', network: 'SOLANA_DEVNET' });
    await resolve(evm.id, [evmSent.transactionId, evmReverted.transactionId]);
    await resolve(sol.id, [solSent.transactionId]);

    // The user side: sign-up claims both wallets; an external wallet is linked.
    await runCommand(app.services, 'users.signup', { projectId, identifier, identifierType: 'EMAIL' });
    const account = privateKeyToAccount(generatePrivateKey());
    const user = { projectId, identifier, identifierType: 'EMAIL' };
    const { message } = (await runCommand(app.services, 'users.wallet-challenge', { ...user, address: account.address })) as { message: string };
    await runCommand(app.services, 'users.verify-wallet', { ...user, address: account.address, signature: await account.signMessage({ message }) });

    const events = await app.database.prisma.event.findMany({ where: { projectId }, orderBy: { seq: 'asc' } });
    const types = new Set(events.map((e) => e.type));
    expect([...types].sort()).toEqual(Object.keys(SPEC).sort());
    for (const e of events) {
      expect(e.id).toMatch(/^evt_/);
      checkAgainstSpec(e.type, e.data as Record<string, unknown>);
    }

    const ofType = (type: string) => events.filter((e) => e.type === type).map((e) => e.data as Record<string, unknown>);
    // wallet.created on REST creation: pregenerated for an identifier, so no user yet.
    expect(ofType('wallet.created')).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ walletId: evm.id, walletAddress: evm.address, walletType: 'EVM', userId: null, walletCreatedAt: evm.createdAt }),
        expect.objectContaining({ walletId: sol.id, walletAddress: sol.address, walletType: 'SOLANA', userId: null }),
      ]),
    );
    expect(ofType('transaction.signed').find((d) => d.walletId === evm.id && d.chainId === null)).toBeDefined();
    expect(ofType('send.broadcasted').map((d) => d.txHash).sort()).toEqual([evmSent.txHash, evmReverted.txHash, solSent.txHash].sort());
    expect(ofType('send.broadcasted').find((d) => d.txHash === evmSent.txHash)).toMatchObject({ type: 'EVM', evmChainId: '84532', isDevnet: true });
    expect(ofType('rest.transaction.confirmed').map((d) => d.transactionId).sort()).toEqual([evmSent.transactionId, solSent.transactionId].sort());
    expect(ofType('rest.transaction.failed')).toEqual([expect.objectContaining({ transactionId: evmReverted.transactionId, status: 'reverted' })]);
    expect(ofType('wallet.pregen_claimed').map((d) => d.walletId).sort()).toEqual([evm.id, sol.id].sort());
  });
});
