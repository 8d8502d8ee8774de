import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, openDatabase, testDatabaseKinds } from '@wallet/db';
import { createChainRegistry } from '@wallet/chains';
import { callerOf } from '@wallet/domain';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig, repoRoot } from '../config.ts';
import { startLocalDevnets } from '../local/devnets.ts';
import { createServices } from '../services.ts';
import { spawnSigner } from '../testing/signer-process.ts';
import { rpc } from '../testing/monitor-fixtures.ts';

const run = promisify(execFile);
const EVM_CHAIN = 84532;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => undefined);
});

/** `npm run nonces -- stranded | repair`, as processes on PostgreSQL and anvil: one JSON line, or the error object on stderr and exit code 1. */
describe('npm run nonces, as a process', () => {
  if ((testDatabaseKinds as readonly string[]).includes('postgres')) it('lists a stranded wallet and repairs it on demand; its queued transfers land', { timeout: 120_000 }, async () => {
    const devnets = await startLocalDevnets({ blockTimeSeconds: 0.5, slotMs: 100 });
    cleanups.push(() => devnets.stop());
    const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 'nonces');
    cleanups.push(scratch.drop);
    const dir = mkdtempSync(path.join(tmpdir(), 'wallet-nonces-'));
    cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
    const chains = JSON.stringify([{ type: 'EVM', chainId: EVM_CHAIN, rpcUrl: devnets.evmRpcUrl, isDevnet: true }]);
    const vars = { APP_ENV: 'local', DATA_DIR: dir, DATABASE_URL: scratch.url, LOCAL_DEVNETS: 'off', CHAINS: chains, NONCE_GAP_AFTER_MS: '1' };
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ...vars };
    delete env.INIT_CWD;
    // The data directory's signer, as npm start would run it: the services here and the CLI process sign through it.
    const signer = await spawnSigner({ APP_ENV: 'local', DATA_DIR: dir, LOG_LEVEL: 'warn' });
    cleanups.push(async () => void signer.kill('SIGKILL'));
    const database = await openDatabase({ databaseUrl: scratch.url });
    const config = loadConfig(vars);
    const services = await createServices(config, { database, chains: createChainRegistry(config.chains) });
    cleanups.push(async () => {
      await services.close();
      await database.close();
    });
    const nonces = (args: string[]) => run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/nonces.ts', ...args], { cwd: repoRoot, env });

    const issued = await services.apiKeys.create({ partner: 'nonces-cli', plan: 'scale', rateLimitPerMinute: 0, environment: 'development' });
    const caller = callerOf(await services.apiKeys.authenticate(issued.apiKey, '127.0.0.1'), null);
    const wallet = await services.wallets.create(caller, { type: 'EVM', userIdentifier: 'stranded', userIdentifierType: 'CUSTOM_ID' });
    await devnets.faucet.fund({ type: 'EVM', address: wallet.address }, 'native', 10n ** 18n);
    await database.query(`INSERT INTO nonce_counters (wallet_id, chain_id, next_nonce) VALUES ($1::uuid, $2, 1)`, [wallet.id, String(EVM_CHAIN)]);
    for (const value of ['21', '22']) await services.transactions.transfer(caller, wallet.id, { to: '0x000000000000000000000000000000000000dEaD', value, chainId: EVM_CHAIN });

    const listed = JSON.parse((await nonces(['stranded'])).stdout.trim());
    expect(listed.stranded).toEqual([expect.objectContaining({ walletId: wallet.id, chainId: String(EVM_CHAIN), chainNonce: 0, lowestUnresolved: 1, missing: [0], waiting: 2 })]);
    const { stdout } = await nonces(['repair', '--wallet', wallet.id]);
    const lines = stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const repaired = JSON.parse(lines[0]!);
    expect(repaired).toMatchObject({ walletId: wallet.id, filled: [{ walletId: wallet.id, chainId: String(EVM_CHAIN), nonce: 0 }] });
    await expect.poll(async () => Number(await rpc(devnets.evmRpcUrl, 'eth_getTransactionCount', [wallet.address, 'latest'])), { timeout: 30_000 }).toBe(3);
    expect(JSON.parse((await nonces(['repair', '--wallet', wallet.id])).stdout.trim())).toMatchObject({ stranded: [], filled: [] });

    const refused = (await nonces(['repair', '--wallet', 'nope']).then(
      () => null,
      (e: unknown) => e,
    )) as { code: number; stderr: string } | null;
    expect(refused?.code).toBe(1);
    expect(JSON.parse(refused!.stderr.trim().split('\n').at(-1)!)).toMatchObject({ code: 'INVALID_REQUEST' });
  });
});
