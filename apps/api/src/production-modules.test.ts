import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase } from '@wallet/db';
import { afterAll, describe, expect, it } from 'vitest';
import { checkedFetch } from './testing/response-contract.ts';
import { repoRoot } from './config.ts';
import { spawnService } from './testing/service-process.ts';
import { productionSigner, spawnSigner } from './testing/signer-process.ts';

/** Every /v1 answer is checked against the document the answering process serves. */
const fetchChecked = checkedFetch();

const run = promisify(execFile);
const dir = mkdtempSync(path.join(tmpdir(), 'wallet-prod-modules-'));
const children: ChildProcess[] = [];
const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres', 'prodmodules');

afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await scratch.drop();
  rmSync(dir, { recursive: true, force: true });
});

// Devnet code: anvil, LiteSVM, solc, faucets, test contracts, the devnets entry and the local-mode devnet wiring.
// evm/sponsorship is production code (sponsored user operations) except its devnet deployment; so is evm/calls (batched calls).
const DEVNET_CODE =
  /litesvm|@foundry-rs|\/solc\/|\/chains\/src\/(devnets\.ts|evm\/(?!sponsorship\/|calls\/)|evm\/sponsorship\/(deploy|artifacts)|solana\/)|\/apps\/api\/src\/local\/(devnets|sponsorship)\.ts/;

describe('a production process', () => {
  it('loads the chain gateways but no devnet code while serving', async () => {
    const modulesFile = path.join(dir, 'modules.txt');
    // Production signs in a signer process of its own, reached over mTLS.
    const { signerEnv, apiEnv } = productionSigner(dir);
    await spawnSigner(signerEnv, children);
    const env = {
      ...process.env,
      ...apiEnv,
      APP_ENV: 'production',
      DATABASE_URL: scratch.url,
      CHAINS: JSON.stringify([{ type: 'EVM', chainId: 8453, rpcUrl: 'http://127.0.0.1:9/' }]),
      DATA_DIR: dir,
      PORT: '0',
      LOG_LEVEL: 'info',
      RECORD_MODULES_FILE: modulesFile,
    };
    const { child, url } = await spawnService(env, children, ['--import', 'tsx', '--import', './apps/api/src/testing/record-modules.mjs']);

    // Serve: a key, a wallet, a signature, the chain list (nothing lazily loaded may pull devnets in).
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'prod'], { cwd: repoRoot, env });
    const headers = { 'x-api-key': (JSON.parse(stdout) as { apiKey: string }).apiKey, 'content-type': 'application/json' };
    const wallet = await fetchChecked(`${url}/v1/wallets`, { method: 'POST', headers, body: JSON.stringify({ type: 'EVM', userIdentifier: 'p', userIdentifierType: 'CUSTOM_ID' }) });
    expect(wallet.status).toBe(201);
    const { id } = (await wallet.json()) as { id: string };
    expect((await fetchChecked(`${url}/v1/wallets/${id}/sign-message`, { method: 'POST', headers, body: JSON.stringify({ message: 'hi' }) })).status).toBe(200);
    expect((await fetchChecked(`${url}/v1/chains`, { headers })).status).toBe(200);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;

    const modules = readFileSync(modulesFile, 'utf8').split('\n').filter(Boolean);
    expect(modules.some((m) => m.endsWith('/chains/src/gateways/evm-gateway.ts'))).toBe(true);
    expect(modules.some((m) => m.endsWith('/domain/src/signing/evm.ts'))).toBe(true);
    expect(modules.filter((m) => DEVNET_CODE.test(m))).toEqual([]);
  });
});
