import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { openDatabase } from '@wallet/db';
import { afterAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../config.ts';
import { spawnService, type ServiceProcess } from '../testing/service-process.ts';

// `npm start`, stop, `npm start` again on the same DATA_DIR, as a user would: the devnets keep
// their chains; and when a devnet's state is lost, its unresolved records fail with CHAIN_RESET.
const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-devnet-restart-'));
const env = { ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, PORT: '0', DATABASE_URL: '', LOG_LEVEL: 'info' };
const children: ChildProcess[] = [];
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const SOLANA_RECIPIENT = 'Fg6PaFpoGXkYsidMpWTK6W2BeZ7FEfcYkg476zPFsLnS';

afterAll(async () => {
  // SIGTERM first: a SIGKILLed service would leave its anvil running.
  const running = children.filter((c) => c.exitCode === null && c.signalCode === null);
  await Promise.all(
    running.map(
      (child) =>
        new Promise((resolve) => {
          const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
          child.once('exit', () => resolve(clearTimeout(timer)));
          child.kill('SIGTERM');
        }),
    ),
  );
  rmSync(dataDir, { recursive: true, force: true });
});

async function stop(service: ServiceProcess) {
  const exited = new Promise((resolve) => service.child.once('exit', resolve));
  service.child.kill('SIGTERM');
  await exited;
}

async function client(service: ServiceProcess, apiKey: string) {
  const call = async (method: string, route: string, body?: unknown) => {
    const response = await fetch(`${service.url}${route}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    const json = (await response.json()) as Record<string, any>;
    expect(response.status, `${method} ${route}: ${JSON.stringify(json)}`).toBeLessThan(300);
    return json;
  };
  return {
    call,
    fund: (walletId: string, amount: string) => call('POST', '/v1/local/faucet', { walletId, amount }),
    transfer: (walletId: string, body: Record<string, unknown>) => call('POST', `/v1/wallets/${walletId}/transfer`, body),
    record: (walletId: string, id: string) => call('GET', `/v1/wallets/${walletId}/transactions/${id}`),
    async settled(walletId: string, id: string, timeoutMs = 30_000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const record = await call('GET', `/v1/wallets/${walletId}/transactions/${id}`);
        if (!['pending', 'submitted'].includes(record.status) || Date.now() > deadline) return record;
        await new Promise((r) => setTimeout(r, 200));
      }
    },
  };
}

async function timedStart() {
  const t0 = performance.now();
  const service = await spawnService(env, children);
  return { service, ms: Math.round(performance.now() - t0) };
}

describe('local devnets across restarts of the service', () => {
  let apiKey: string;
  let evmWallet: { id: string };
  let solWallet: { id: string };

  it('keep their chains: transfers after a restart confirm (EVM nonce continues, Solana too)', async () => {
    const { service: first, ms: firstMs } = await timedStart();
    const issued = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'restart'], { cwd: repoRoot, env });
    apiKey = JSON.parse(issued.stdout).apiKey;
    let api = await client(first, apiKey);
    evmWallet = await api.call('POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'restart-evm', userIdentifierType: 'CUSTOM_ID' }) as { id: string };
    solWallet = (await api.call('POST', '/v1/wallets', { type: 'SOLANA', userIdentifier: 'restart-sol', userIdentifierType: 'CUSTOM_ID' })) as { id: string };
    await api.fund(evmWallet.id, '1');
    await api.fund(solWallet.id, '1');
    const evm1 = await api.transfer(evmWallet.id, { to: RECIPIENT, value: '1000', chainId: 84532 });
    const sol1 = await api.transfer(solWallet.id, { to: SOLANA_RECIPIENT, value: '1000000', network: 'SOLANA_DEVNET' });
    expect(await api.settled(evmWallet.id, evm1.transactionId)).toMatchObject({ status: 'confirmed', nonce: 0 });
    expect(await api.settled(solWallet.id, sol1.transactionId)).toMatchObject({ status: 'confirmed' });
    await stop(first);
    const sizes = Object.fromEntries(
      ['anvil-state.json', 'solana-state.bin'].map((f) => [f, existsSync(path.join(dataDir, 'devnets', f)) ? statSync(path.join(dataDir, 'devnets', f)).size : null]),
    );

    const { service: second, ms: secondMs } = await timedStart();
    console.log(`service start: first ${firstMs} ms, restart ${secondMs} ms; state files ${JSON.stringify(sizes)}`);
    expect(second.output()).not.toContain('CHAIN_RESET');
    api = await client(second, apiKey);
    await api.fund(evmWallet.id, '1');
    await api.fund(solWallet.id, '1');
    const evm2 = await api.transfer(evmWallet.id, { to: RECIPIENT, value: '1000', chainId: 84532 });
    const sol2 = await api.transfer(solWallet.id, { to: SOLANA_RECIPIENT, value: '1000000', network: 'SOLANA_DEVNET' });
    expect(await api.settled(evmWallet.id, evm2.transactionId)).toMatchObject({ status: 'confirmed', nonce: 1 });
    expect(await api.settled(solWallet.id, sol2.transactionId)).toMatchObject({ status: 'confirmed' });
    // The first records are still what they were: their chain is the same one.
    expect(await api.record(evmWallet.id, evm1.transactionId)).toMatchObject({ status: 'confirmed' });
    await stop(second);
  }, 180_000);

  it('fail the unresolved records of a devnet that started fresh (CHAIN_RESET) and restart its nonces', async () => {
    const first = await spawnService(env, children);
    let api = await client(first, apiKey);
    // Nonce 50 waits in anvil's queue: the record stays `submitted` until its chain goes away.
    const stuck = await api.transfer(evmWallet.id, { to: RECIPIENT, value: '1000', chainId: 84532, nonce: 50 });
    expect(await api.record(evmWallet.id, stuck.transactionId)).toMatchObject({ status: 'submitted' });
    await stop(first);
    rmSync(path.join(dataDir, 'devnets', 'anvil-state.json'));
    rmSync(path.join(dataDir, 'devnets', 'solana-state.bin'));

    const second = await spawnService(env, children);
    api = await client(second, apiKey);
    expect(await api.record(evmWallet.id, stuck.transactionId)).toMatchObject({
      status: 'failed',
      failureStage: 'broadcast',
      failureCode: 'CHAIN_RESET',
    });
    expect(second.output()).toContain('local devnet started fresh');
    await api.fund(evmWallet.id, '1');
    await api.call('POST', '/v1/local/faucet', { walletId: evmWallet.id, amount: '5', token: 'usdc' });
    const next = await api.transfer(evmWallet.id, { to: RECIPIENT, value: '1000', chainId: 84532 });
    expect(await api.settled(evmWallet.id, next.transactionId)).toMatchObject({ status: 'confirmed', nonce: 0 });
    // The fresh Solana devnet has a new USDC mint and faucet keys, and serves transfers as before.
    await api.call('POST', '/v1/local/faucet', { walletId: solWallet.id, amount: '1' });
    await api.call('POST', '/v1/local/faucet', { walletId: solWallet.id, amount: '2', token: 'usdc' });
    const solNext = await api.transfer(solWallet.id, { to: SOLANA_RECIPIENT, value: '1000000', network: 'SOLANA_DEVNET' });
    expect(await api.settled(solWallet.id, solNext.transactionId)).toMatchObject({ status: 'confirmed' });
    await stop(second);

    // The failure was announced like any other: its events are in the outbox.
    const db = await openDatabase({ dataDir: path.join(dataDir, 'db') });
    try {
      const events = await db.query<{ type: string; data: Record<string, unknown> }>(
        `SELECT type, data FROM events WHERE data->>'transactionId' = $1 OR data->>'txHash' = $2 ORDER BY type`,
        [stuck.transactionId, stuck.txHash],
      );
      expect(events.map((e) => e.type)).toEqual(expect.arrayContaining(['rest.transaction.failed', 'send.failed']));
      expect(events.find((e) => e.type === 'rest.transaction.failed')?.data).toMatchObject({ failureCode: 'CHAIN_RESET', failureStage: 'broadcast' });
    } finally {
      await db.close();
    }
  }, 180_000);
});
