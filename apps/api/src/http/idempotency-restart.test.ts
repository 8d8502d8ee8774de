import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { startAnvil, type AnvilInstance } from '@wallet/chains/devnets';
import { startRpcFaultProxy, type RpcFaultProxy } from '@wallet/chains/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch } from '../testing/response-contract.ts';
import { repoRoot } from '../config.ts';
import { localServiceEnv, spawnService } from '../testing/service-process.ts';

/** Every /v1 answer is checked against the document the answering process serves. */
const fetchChecked = checkedFetch();

const run = promisify(execFile);
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const LEASE_MS = 1_500;

/**
 * The real service process, SIGKILLed while an idempotent transfer is still running (its chain RPC
 * held by a fault proxy), then restarted on the same data directory: a retry with the same key
 * runs once the dead request's lease has passed, instead of answering 409 for 24 hours.
 */
describe('an Idempotency-Key across a SIGKILL of the service', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-idem-restart-'));
  const children: ChildProcess[] = [];
  let anvil: AnvilInstance;
  let proxy: RpcFaultProxy;
  let env: Record<string, string>;

  beforeAll(async () => {
    anvil = await startAnvil({ blockTimeSeconds: 0.5 });
    proxy = await startRpcFaultProxy(anvil.rpcUrl);
    env = localServiceEnv(dataDir, {
      IDEMPOTENCY_LEASE_MS: String(LEASE_MS),
      CHAINS: JSON.stringify([{ type: 'EVM', chainId: anvil.chainId, rpcUrl: proxy.url, isDevnet: true }]),
    });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await proxy?.stop();
    await anvil?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const rpc = async (method: string, params: unknown[]) => {
    const response = await fetch(anvil.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
    return (await response.json()) as { result?: unknown; error?: unknown };
  };

  /** A key of a new partner (from the CLI) and an EVM wallet made through the running service, funded on anvil. */
  async function fundedWallet(url: string, partner: string) {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', partner], { cwd: repoRoot, env });
    const { apiKey } = JSON.parse(stdout.trim()) as { apiKey: string };
    const created = await fetchChecked(`${url}/v1/wallets`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'EVM', userIdentifier: partner, userIdentifierType: 'CUSTOM_ID' }),
    });
    const wallet = (await created.json()) as { id: string; address: string };
    expect((await rpc('anvil_setBalance', [wallet.address, '0xde0b6b3a7640000'])).error).toBeUndefined();
    return { apiKey, wallet };
  }

  async function sigkill(service: { child: ChildProcess }) {
    const killed = new Promise((resolve) => service.child.once('exit', resolve));
    service.child.kill('SIGKILL');
    await killed;
  }

  it('lets the same key run again after the lease of the killed request, once', async () => {
    const first = await spawnService({ ...env, WORKERS: 'off' }, children);
    const { apiKey, wallet } = await fundedWallet(first.url, 'idem-restart');
    const post = (base: string, urlPath: string, body: unknown, key?: string) =>
      fetchChecked(`${base}${urlPath}`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json', ...(key ? { 'idempotency-key': key } : {}) },
        body: JSON.stringify(body),
      });

    const key = `transfer-${Math.random()}`;
    const transfer = { to: RECIPIENT, value: '1234', chainId: anvil.chainId };
    proxy.setMode({ delayMs: 120_000 });
    const seen = proxy.requests;
    const held = post(first.url, `/v1/wallets/${wallet.id}/transfer`, transfer, key).catch((error: unknown) => error);
    // The transfer has claimed its key and waits for the chain.
    await expect.poll(() => proxy.requests, { timeout: 10_000, interval: 10 }).toBeGreaterThan(seen);
    await sigkill(first);
    expect(await held).toBeInstanceOf(Error);
    proxy.setMode('pass');

    const second = await spawnService(env, children);
    const retried = await post(second.url, `/v1/wallets/${wallet.id}/transfer`, transfer, key);
    const body = (await retried.json()) as { transactionId: string };
    expect(retried.status, JSON.stringify(body)).toBe(200);
    expect(retried.headers.get('idempotent-replayed')).toBeNull();
    expect(body.transactionId).toMatch(/^[0-9a-f-]{36}$/);

    const replayed = await post(second.url, `/v1/wallets/${wallet.id}/transfer`, transfer, key);
    expect(replayed.status).toBe(200);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    expect(((await replayed.json()) as { transactionId: string }).transactionId).toBe(body.transactionId);
    const history = (await (await fetchChecked(`${second.url}/v1/wallets/${wallet.id}/transactions`, { headers: { 'x-api-key': apiKey } })).json()) as {
      data: { transactionId: string }[];
    };
    expect(history.data.map((t) => t.transactionId)).toEqual([body.transactionId]);

    const exited = new Promise((resolve) => second.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });

  it('never signs or sends a second transaction when the killed request had already recorded its broadcast', async () => {
    const first = await spawnService({ ...env, WORKERS: 'off' }, children);
    const { apiKey, wallet } = await fundedWallet(first.url, 'idem-broadcast');
    const headers = { 'x-api-key': apiKey, 'content-type': 'application/json' };

    // The request signs and records its transaction, then waits for the node, which never sees it.
    const key = `broadcast-${Math.random()}`;
    const transfer = JSON.stringify({ to: RECIPIENT, value: '777', chainId: anvil.chainId });
    const post = (base: string) => fetchChecked(`${base}/v1/wallets/${wallet.id}/transfer`, { method: 'POST', headers: { ...headers, 'idempotency-key': key }, body: transfer });
    proxy.setMode({ delayMs: 120_000, methods: ['eth_sendRawTransaction'] });
    const held = post(first.url).catch((error: unknown) => error);
    await expect.poll(() => proxy.methods.includes('eth_sendRawTransaction'), { timeout: 20_000, interval: 10 }).toBe(true);
    await sigkill(first);
    expect(await held).toBeInstanceOf(Error);
    proxy.setMode('pass');

    const second = await spawnService(env, children);
    const retried = await post(second.url);
    const body = (await retried.json()) as { transactionId: string; txHash: string; signedTransaction: string };
    expect(retried.status, JSON.stringify(body)).toBe(200);
    const list = async () =>
      ((await (await fetchChecked(`${second.url}/v1/wallets/${wallet.id}/transactions`, { headers })).json()) as { data: { transactionId: string; status: string }[] }).data;
    // One record, the killed request's, sent now with its stored bytes and confirmed; one transaction on the chain.
    expect((await list()).map((t) => t.transactionId)).toEqual([body.transactionId]);
    await expect.poll(async () => (await list())[0]?.status, { timeout: 60_000, interval: 250 }).toBe('confirmed');
    expect((await rpc('eth_getTransactionCount', [wallet.address, 'latest'])).result).toBe('0x1');
    const sent = (await rpc('eth_getTransactionByHash', [body.txHash])).result as { input: string; to: string } | null;
    expect(sent?.to.toLowerCase()).toBe(RECIPIENT.toLowerCase());

    const exited = new Promise((resolve) => second.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
