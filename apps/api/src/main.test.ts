import { execFile, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { checkedFetch } from './testing/response-contract.ts';
import { repoRoot } from './config.ts';
import { spawnService } from './testing/service-process.ts';

/** Every /v1 answer is checked against the document the answering process serves. */
const fetchChecked = checkedFetch();

const run = promisify(execFile);
const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-main-'));
const baseEnv = { ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, PORT: '0', DATABASE_URL: '', LOG_LEVEL: 'info' };
const children: ChildProcess[] = [];

const startService = (env: Record<string, string> = {}) => spawnService({ ...baseEnv, ...env }, children);

async function stopService(child: ChildProcess) {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function cli(args: string[], script = 'keys') {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', `apps/api/src/cli/${script}.ts`, ...args], {
    cwd: repoRoot,
    env: baseEnv,
  });
  const lines = stdout.trim().split('\n');
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

/** The `{"devnets": …}` line a start printed (exactly one). */
function startedDevnets(output: string): { evm: { chainId: number; rpcUrl: string; sponsorship?: Record<string, string> }[]; solana: { network: string; rpcUrl: string }[] } {
  const lines = output.split('\n').filter((l) => l.startsWith('{"devnets":'));
  expect(lines).toHaveLength(1);
  return (JSON.parse(lines[0]!) as { devnets: ReturnType<typeof startedDevnets> }).devnets;
}

afterAll(() => {
  for (const child of children) child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

describe('the service process', () => {
  it('serves on the embedded database, takes keys from the CLI while running, and keeps wallets across a restart', async () => {
    const first = await startService();
    // First local start: the console's owner, printed once as one JSON line (and in no log line).
    const ownerLines = first.output().split('\n').filter((l) => l.includes('consoleOwner'));
    expect(ownerLines).toHaveLength(1);
    const { consoleOwner } = JSON.parse(ownerLines[0]!) as { consoleOwner: { email: string; password: string } };
    expect(consoleOwner.email).toBe('owner@local.test');
    expect(consoleOwner.password).toMatch(/^[A-Za-z0-9]{20}$/);
    const issued = await cli(['create', '--partner', 'demo']);
    expect(Object.keys(issued).sort()).toEqual(['apiKey', 'apiKeyId', 'partnerId', 'projectId']);
    // Every local start prints where the devnets answer JSON-RPC: one JSON line, the same as GET /v1/local/devnets.
    const printed = startedDevnets(first.output());
    const served = await fetchChecked(`${first.url}/v1/local/devnets`, { headers: { 'x-api-key': issued.apiKey } });
    expect(served.status).toBe(200);
    expect(await served.json()).toEqual(printed);
    const address = expect.stringMatching(/^0x[0-9a-fA-F]{40}$/);
    expect(printed.evm).toEqual([
      {
        chainId: 84532,
        rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/),
        sponsorship: { entryPoint: '0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108', delegate: '0xe6Cae83BdE06E4c305530e199D7217f42808555B', paymaster: address, relayer: address },
      },
    ]);
    expect(printed.solana).toEqual([{ network: 'SOLANA_DEVNET', rpcUrl: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+$/) }]);
    const chainId = await fetch(printed.evm[0]!.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }) });
    expect(Number(((await chainId.json()) as { result: string }).result)).toBe(84532);
    const created = await fetchChecked(`${first.url}/v1/wallets`, {
      method: 'POST',
      headers: { 'x-api-key': issued.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'STELLAR', userIdentifier: 'restart@example.com', userIdentifierType: 'EMAIL' }),
    });
    expect(created.status).toBe(201);
    const wallet = (await created.json()) as { id: string };
    // The faucet CLI funds a wallet on the service's own devnet.
    const evmWallet = (await (await fetchChecked(`${first.url}/v1/wallets`, {
      method: 'POST',
      headers: { 'x-api-key': issued.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ type: 'EVM', userIdentifier: 'faucet-cli', userIdentifierType: 'CUSTOM_ID' }),
    })).json()) as { id: string };
    const funded = await cli(['--wallet', evmWallet.id, '--amount', '10', '--token', 'usdc'], 'faucet');
    expect(funded).toMatchObject({ walletId: evmWallet.id, token: 'usdc', baseUnits: '10000000' });
    expect(funded.txHash).toMatch(/^0x[0-9a-f]{64}$/);

    // The end-user side through the running service: a client wallet, then a sign-up that claims both.
    const pregen = await cli(['pregen', '--project-id', issued.projectId, '--identifier', 'restart@example.com', '--type', 'EMAIL', '--wallet-type', 'EVM'], 'users');
    expect(pregen.userShare).toMatch(/^[0-9a-f]{64}$/);
    const signup = await cli(['signup', '--project-id', issued.projectId, '--identifier', 'restart@example.com', '--type', 'EMAIL'], 'users');
    expect(signup.created).toBe(true);
    expect([...signup.claimedWalletIds].sort()).toEqual([wallet.id, pregen.wallet.id].sort());
    const refused = await fetchChecked(`${first.url}/v1/wallets/${wallet.id}/sign-message`, {
      method: 'POST',
      headers: { 'x-api-key': issued.apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ message: 'hi' }),
    });
    expect(refused.status).toBe(409);
    // The API's KEK file and the signer's, each private to its directory.
    const kekFiles = [path.join(dataDir, 'api', 'keks.json'), path.join(dataDir, 'signer', 'keks.json')];
    for (const kekFile of kekFiles) expect(statSync(kekFile).mode & 0o777).toBe(0o600);
    expect(statSync(path.join(dataDir, 'control.json')).mode & 0o777).toBe(0o600);
    await stopService(first.child);
    expect(existsSync(path.join(dataDir, 'control.json'))).toBe(false);
    expect(first.output()).not.toContain(issued.apiKey);

    // With the service stopped the CLI opens the database itself.
    const rotated = await cli(['rotate', '--key-id', issued.apiKeyId]);
    expect(rotated.apiKey).not.toBe(issued.apiKey);

    const second = await startService();
    const fetched = await fetchChecked(`${second.url}/v1/wallets/${wallet.id}`, { headers: { 'x-api-key': rotated.apiKey } });
    expect(fetched.status).toBe(200);
    expect(((await fetched.json()) as { id: string }).id).toBe(wallet.id);
    const old = await fetchChecked(`${second.url}/v1/wallets/${wallet.id}`, { headers: { 'x-api-key': issued.apiKey } });
    expect(old.status).toBe(403);
    const revoked = await cli(['revoke', '--key-id', issued.apiKeyId]);
    expect(revoked.apiKeyId).toBe(issued.apiKeyId);
    const after = await fetchChecked(`${second.url}/v1/wallets/${wallet.id}`, { headers: { 'x-api-key': rotated.apiKey } });
    expect(after.status).toBe(403);
    const kekText = kekFiles.map((file) => readFileSync(file, 'utf8')).join('\n');
    for (const secret of [issued.apiKey, rotated.apiKey, ...(kekText.match(/[A-Za-z0-9+/]{40,}={0,2}/g) ?? [])]) {
      expect(second.output()).not.toContain(secret);
    }
    expect(second.output()).not.toContain('consoleOwner');
    expect(startedDevnets(second.output()).evm[0]!.chainId).toBe(84532);
    expect(second.output()).not.toContain(consoleOwner.password);
    await stopService(second.child);
  }, 180_000);

  it('rejects bad CLI input with a JSON error and exit code 1', async () => {
    await expect(cli(['rotate'])).rejects.toMatchObject({ code: 1 });
    await expect(cli(['bogus'])).rejects.toMatchObject({ code: 1 });
    await expect(cli(['create', '--partner', 'x', '--plan', 'gold'])).rejects.toMatchObject({ code: 1 });
  });

  it('refuses to start in production without its configuration and names what is missing', async () => {
    const result = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/main.ts'], {
      cwd: repoRoot,
      env: { ...baseEnv, APP_ENV: 'production', DATABASE_URL: '' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(result).toMatchObject({ code: 1 });
    expect((result as { stderr: string }).stderr).toContain('DATABASE_URL, API_KEKS, SIGNER_URL, SIGNER_CLIENT_TLS_CA, SIGNER_CLIENT_TLS_CERT, SIGNER_CLIENT_TLS_KEY, RECOVERY_PUBLIC_KEY_FILE');
  });
});
