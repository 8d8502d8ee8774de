import { ERC20_ABI } from '@wallet/domain';
import { createPublicClient, http, parseEther, type Address, type PublicClient } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { startMonitorWorker } from '../workers/monitor-worker.ts';
import { startSponsoredWorker } from '../workers/sponsored-worker.ts';
import { startYieldWorker } from '../workers/yield-worker.ts';

const CHAIN_ID = 84532;
const USDC = 1_000_000n;
const POOL = 'poolprov-v3:84532:usdc';
const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

/** Threshold ECDSA wallets on the devnet: every transaction below is signed 2-of-2 by the API and the signer. */
describe('threshold ECDSA (DKLs23) wallets on chain: a transfer, a sponsored transfer, a yield deposit (pglite)', () => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let key: { apiKey: string; projectId: string };
  let client: PublicClient;
  let workers: { stop(): Promise<void> }[] = [];

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => app.request('POST', path, { key: key.apiKey, body, headers });
  const get = (path: string) => app.request('GET', path, { key: key.apiKey });
  const usdcOf = (token: Address, who: Address) => client.readContract({ address: token, abi: ERC20_ABI, functionName: 'balanceOf', args: [who] });

  async function thresholdWallet(funds: Array<['native' | 'usdc', string]>): Promise<{ id: string; address: Address }> {
    const created = await post('/v1/wallets', { type: 'EVM', userIdentifier: `dkls-chain-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' });
    expect(created.status).toBe(201);
    expect(created.body.custodyMode).toBe('threshold');
    for (const [token, amount] of funds) expect((await post('/v1/local/faucet', { walletId: created.body.id, amount, token })).status).toBe(200);
    return created.body;
  }

  async function settled(path: string, done: (body: Record<string, unknown>) => boolean, timeoutMs = 60_000): Promise<Record<string, any>> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const response = await get(path);
      expect(response.status).toBe(200);
      if (done(response.body)) return response.body;
      if (Date.now() > end) throw new Error(`${path} still ${JSON.stringify(response.body)}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  const terminalRecord = (body: Record<string, unknown>) => ['confirmed', 'reverted', 'failed'].includes(String(body.status));

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, yieldMarkets: true, sponsorship: true });
    app = await startTestApp('pglite', { chains: devnets });
    key = await app.createKey();
    await app.services.custodyMode.set({ projectId: key.projectId, environment: 'development' }, 'threshold');
    client = createPublicClient({ transport: http(devnets.evmRpcUrl) });
    workers = [
      startMonitorWorker({ monitor: app.services.monitor, logger: silent, idleMs: 100 }),
      startYieldWorker({ runner: app.services.yieldRunner, logger: silent, idleMs: 100 }),
      startSponsoredWorker({ runner: app.services.sponsoredRunner, idleMs: 100, logger: silent }),
    ];
  }, 120_000);
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await app?.close();
    await devnets?.stop();
  });

  it('a native transfer confirms on anvil, sent from the wallet address', async () => {
    const wallet = await thresholdWallet([['native', '1']]);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const accepted = await post(`/v1/wallets/${wallet.id}/transfer`, { to: recipient, value: parseEther('0.25').toString(), chainId: CHAIN_ID }, { 'Idempotency-Key': `dkls-native-${wallet.id}` });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const done = await settled(`/v1/wallets/${wallet.id}/transactions/${accepted.body.transactionId}`, terminalRecord);
    expect(done.status).toBe('confirmed');
    const sent = await client.getTransaction({ hash: done.hash });
    expect(sent.from.toLowerCase()).toBe(wallet.address.toLowerCase());
    expect(await client.getBalance({ address: recipient })).toBe(parseEther('0.25'));
  }, 90_000);

  it('a sponsored USDC transfer from a wallet with 0 ETH confirms, the paymaster paying', async () => {
    const scope = await app.services.policies.operatorScope(key.projectId, 'development');
    await app.services.sponsorship.change(scope, 'enable', {});
    const chains = (await get('/v1/chains')).body as { chains: { type: string; usdc: { address: Address } | null }[] };
    const usdc = chains.chains.find((c) => c.type === 'EVM')!.usdc!.address;
    const wallet = await thresholdWallet([['usdc', '50']]);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const accepted = await post(`/v1/wallets/${wallet.id}/transfer`, { to: recipient, value: (7n * USDC).toString(), chainId: CHAIN_ID, tokenAddress: usdc });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.body.executionMode).toBe('sponsored');
    const done = await settled(`/v1/wallets/${wallet.id}/transactions/${accepted.body.transactionId}`, (b) => terminalRecord(b) || b.stage === 'requires_action');
    expect(done.status, JSON.stringify(done)).toBe('confirmed');
    expect(await usdcOf(usdc, recipient)).toBe(7n * USDC);
    expect(await client.getBalance({ address: wallet.address })).toBe(0n);
    await app.services.sponsorship.change(scope, 'disable', {});
  }, 90_000);

  it('a yield deposit approves and supplies, both steps confirmed', async () => {
    const wallet = await thresholdWallet([['native', '1'], ['usdc', '100']]);
    const created = await post(`/v1/wallets/${wallet.id}/yield/deposits`, { marketId: POOL, amount: '10' }, { 'idempotency-key': `dkls-yield-${wallet.id}` });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const done = await settled(`/v1/wallets/${wallet.id}/yield/operations/${created.body.id}`, (b) => !['pending', 'submitted'].includes(String(b.status)));
    expect(done.status, JSON.stringify(done)).toBe('confirmed');
    expect(done.transactions.map((t: { phase: string; status: string }) => [t.phase, t.status])).toEqual([['approval', 'confirmed'], ['action', 'confirmed']]);
    expect(await usdcOf(devnets.yield!.pool.aToken, wallet.address)).toBeGreaterThanOrEqual(10n * USDC);
  }, 120_000);
});
