import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch } from '../testing/response-contract.ts';
import { repoRoot } from '../config.ts';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { localServiceEnv, spawnService } from '../testing/service-process.ts';

/** Every /v1 answer is checked against the document the answering process serves. */
const fetchChecked = checkedFetch();

const run = promisify(execFile);
const EVM_CHAIN = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';

/**
 * The real service process, killed with SIGKILL while its records are unresolved and restarted on
 * the same data directory. The devnets run in this process (a service's own devnets would die with
 * it) and the service reaches them through CHAINS with LOCAL_DEVNETS=off.
 */
describe('the monitor across a SIGKILL of the service', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-restart-'));
  const children: ChildProcess[] = [];
  let devnets: LocalDevnets;
  let env: Record<string, string>;

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.5, slotMs: 100 });
    const chains = devnets.directory.list();
    env = localServiceEnv(dataDir, {
      CHAINS: JSON.stringify([
        { type: 'EVM', chainId: EVM_CHAIN, rpcUrl: devnets.evmRpcUrl, isDevnet: true, usdcAddress: chains[0]!.usdc!.address },
        { type: 'SOLANA', network: 'SOLANA_DEVNET', rpcUrl: devnets.solanaRpcUrl, isDevnet: true, usdcMint: chains[1]!.usdc!.address },
      ]),
    });
  });
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
    await devnets?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const startService = (extra: Record<string, string> = {}) => spawnService({ ...env, ...extra }, children);

  it('resumes monitoring after a restart and resolves every record the killed process left unresolved', async () => {
    const first = await startService({ WORKERS: 'off' });
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'restart'], { cwd: repoRoot, env });
    const { apiKey } = JSON.parse(stdout.trim()) as { apiKey: string };
    const call = async (base: string, method: string, urlPath: string, body?: unknown) => {
      const response = await fetchChecked(`${base}${urlPath}`, {
        method,
        headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
        body: body ? JSON.stringify(body) : undefined,
      });
      return { status: response.status, body: (await response.json()) as any };
    };
    const wallet = async (type: 'EVM' | 'SOLANA') =>
      (await call(first.url, 'POST', '/v1/wallets', { type, userIdentifier: `restart-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' })).body as {
        id: string;
        address: string;
      };
    const evm = await wallet('EVM');
    const sol = await wallet('SOLANA');
    await devnets.faucet.fund({ type: 'EVM', address: evm.address }, 'native', 10n ** 18n);
    await devnets.faucet.fund({ type: 'SOLANA', address: sol.address }, 'native', 10n ** 9n);
    const sent: { walletId: string; transactionId: string }[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await call(first.url, 'POST', `/v1/wallets/${evm.id}/transfer`, { to: RECIPIENT, value: String(1000 + i), chainId: EVM_CHAIN });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      sent.push({ walletId: evm.id, transactionId: r.body.transactionId });
    }
    const solRecipient = (await wallet('SOLANA')).address;
    for (let i = 0; i < 2; i++) {
      const r = await call(first.url, 'POST', `/v1/wallets/${sol.id}/transfer`, { to: solRecipient, value: String(1_000_000 + i), network: 'SOLANA_DEVNET' });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      sent.push({ walletId: sol.id, transactionId: r.body.transactionId });
    }
    for (const s of sent) expect((await call(first.url, 'GET', `/v1/wallets/${s.walletId}/transactions/${s.transactionId}`)).body.status).toBe('submitted');

    const killed = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await killed;

    const second = await startService();
    expect(second.output()).toContain('"monitor":');
    await expect
      .poll(
        async () => {
          const statuses = [];
          for (const s of sent) statuses.push((await call(second.url, 'GET', `/v1/wallets/${s.walletId}/transactions/${s.transactionId}`)).body.status);
          return statuses;
        },
        { timeout: 45_000, interval: 250 },
      )
      .toEqual(sent.map(() => 'confirmed'));
    const detail = (await call(second.url, 'GET', `/v1/wallets/${evm.id}/transactions/${sent[0]!.transactionId}`)).body;
    expect(detail.blockNumber).toMatch(/^\d+$/);
    expect(detail.blockHash).toMatch(/^0x[0-9a-f]{64}$/);
    const exited = new Promise((resolve) => second.child.once('exit', resolve));
    second.child.kill('SIGTERM');
    expect(await exited).toBe(0);
  });
});
