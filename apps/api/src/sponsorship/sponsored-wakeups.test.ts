import { testDatabaseKinds } from '@wallet/db';
import type { Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import type { PollLoop } from '../workers/poll-loop.ts';
import { startSponsoredWorker } from '../workers/sponsored-worker.ts';

const CHAIN_ID = 84532;
const IDLE_MS = 60_000;

/**
 * The sponsored worker polls every IDLE_MS here (a minute), so a record that is submitted within
 * seconds of its 202 was run by the wake-up of its admission, not by a poll.
 */
describe.each(testDatabaseKinds)('sponsored worker wake-ups (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let other: TestApp;
  let worker: PollLoop | undefined;
  let key: { apiKey: string; projectId: string };
  let usdc: Address;

  const post = (on: TestApp, path: string, body: unknown) => on.request('POST', path, { key: key.apiKey, body });
  const stage = async (on: TestApp, walletId: string, id: string) => (await on.request('GET', `/v1/wallets/${walletId}/transactions/${id}`, { key: key.apiKey })).body as { stage: string; status: string };

  async function usdcWallet(): Promise<{ id: string }> {
    const created = await post(app, '/v1/wallets', { type: 'EVM', userIdentifier: `wake-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' });
    expect(created.status).toBe(201);
    expect((await post(app, '/v1/local/faucet', { walletId: created.body.id, amount: '10', token: 'usdc' })).status).toBe(200);
    return created.body as { id: string };
  }

  beforeAll(async () => {
    devnets = await startLocalDevnets({ sponsorship: true });
    app = await startTestApp(kind, { chains: devnets });
    key = await app.createKey();
    // A second process on the same database that runs no worker (WORKERS=off).
    other = await startTestApp(kind, { chains: devnets, alongside: { database: app.database, dataDir: app.dataDir, signer: app.signer } });
    usdc = (await app.request('GET', '/v1/chains', { key: key.apiKey })).body.chains.find((c: { type: string }) => c.type === 'EVM').usdc.address;
    await app.services.sponsorship.change(await app.services.policies.operatorScope(key.projectId, 'development'), 'enable', {});
    worker = startSponsoredWorker({ runner: app.services.sponsoredRunner, idleMs: IDLE_MS, logger: { error: () => undefined } });
  }, 90_000);
  afterAll(async () => {
    await worker?.stop();
    await other?.close();
    await app?.close();
    await devnets?.stop();
  });

  it('a sponsored transfer and a sponsored batch admitted in the worker\'s process are signed and submitted at once; one admitted in a process without a worker waits for a poll', async () => {
    // Past the worker's first polls, which run at its start.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const wallet = await usdcWallet();
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const transfer = await post(app, `/v1/wallets/${wallet.id}/transfer`, { to, value: '1000000', chainId: CHAIN_ID, tokenAddress: usdc });
    expect(transfer.status, JSON.stringify(transfer.body)).toBe(202);
    await expect.poll(async () => (await stage(app, wallet.id, transfer.body.transactionId)).stage, { timeout: 10_000, interval: 100 }).toMatch(/^(submitted|submission_unknown|included)$/);

    const second = await usdcWallet();
    const data = `0xa9059cbb${to.slice(2).toLowerCase().padStart(64, '0')}${(1_000_000).toString(16).padStart(64, '0')}`;
    const batch = await post(app, `/v1/wallets/${second.id}/calls`, { chainId: CHAIN_ID, sponsored: true, calls: [{ to: usdc, data }] });
    expect(batch.status, JSON.stringify(batch.body)).toBe(202);
    await expect.poll(async () => (await stage(app, second.id, batch.body.transactionId)).stage, { timeout: 10_000, interval: 100 }).toMatch(/^(submitted|submission_unknown|included)$/);

    // Admitted by the other process: no wake-up reaches this worker, the record stays accepted until a poll.
    const third = await usdcWallet();
    const elsewhere = await post(other, `/v1/wallets/${third.id}/transfer`, { to, value: '1000000', chainId: CHAIN_ID, tokenAddress: usdc });
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(202);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    expect(await stage(app, third.id, elsewhere.body.transactionId)).toMatchObject({ stage: 'accepted', status: 'pending' });
  }, 60_000);
});
