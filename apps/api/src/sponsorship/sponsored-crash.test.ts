import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ENTRY_POINT_V08_ADDRESS } from '@wallet/chains/sponsorship';
import { createScratchDatabase, createStores, openDatabase } from '@wallet/db';
import { createServiceKeys, fileKekProvider, systemClock } from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { createPublicClient, http, parseAbi, parseAbiItem, type Address } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../config.ts';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { checkedServiceCalls } from '../testing/response-contract.ts';
import { localServiceEnv, spawnService, type ServiceProcess } from '../testing/service-process.ts';

const run = promisify(execFile);
const CHAIN_ID = 84532;
const USDC = 1_000_000n;
const LEASE_MS = 2_000;
const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
const USER_OPERATION_EVENT = parseAbiItem('event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)');

/**
 * SIGKILL with real processes on one PostgreSQL and one anvil: a service process started with
 * CRASH_AT dies once the signed operation is stored (before any submission), or once the relayer's
 * transaction was accepted (before that is saved); a second process continues the record to
 * `confirmed`, and the chain shows exactly one execution (the EntryPoint nonce moved by one, one
 * UserOperationEvent, the recipient paid once).
 */
describe('a sponsored transfer whose process is killed around its submission (two processes, PostgreSQL)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-sponsored-crash-'));
  const children: ChildProcess[] = [];
  let devnets: LocalDevnets;
  let env: Record<string, string>;
  let apiKey: string;
  let projectId: string;
  let usdc: Address;
  let dropDatabase: () => Promise<void>;
  const client = () => createPublicClient({ transport: http(devnets.evmRpcUrl) });

  beforeAll(async () => {
    const server = process.env.TEST_DATABASE_URL;
    if (!server) throw new Error('this suite needs TEST_DATABASE_URL (a PostgreSQL server both processes share)');
    const scratch = await createScratchDatabase(server, 'sponsoredcrash');
    dropDatabase = scratch.drop;
    devnets = await startLocalDevnets({ sponsorship: true });
    usdc = devnets.directory.list().find((c) => c.type === 'EVM')!.usdc!.address as Address;
    // The sponsor and relayer keys live in the shared database under the data directory's KEKs, as the service creates them.
    const database = await openDatabase({ databaseUrl: scratch.url });
    const keys = createServiceKeys({ store: createStores(database).serviceKeys, vault: createLocalKeyVault({ keks: fileKekProvider(path.join(dataDir, 'signer')) }), clock: systemClock });
    const local = await devnets.sponsorship!(keys);
    await database.close();
    env = localServiceEnv(dataDir, {
      DATABASE_URL: scratch.url,
      SPONSORED_LEASE_MS: String(LEASE_MS),
      CHAINS: JSON.stringify([{ type: 'EVM', chainId: CHAIN_ID, rpcUrl: devnets.evmRpcUrl, isDevnet: true, usdcAddress: usdc }]),
      SPONSORSHIP: JSON.stringify([{ chainId: CHAIN_ID, paymaster: local.chain.paymaster, tokens: [usdc] }]),
    });
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'sponsored-crash'], { cwd: repoRoot, env });
    ({ apiKey, projectId } = JSON.parse(stdout.trim()) as { apiKey: string; projectId: string });
    await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/sponsorship.ts', 'enable', '--project-id', projectId, '--env', 'development'], { cwd: repoRoot, env });
  }, 120_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await devnets?.stop();
    await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = checkedServiceCalls(() => apiKey);

  const exited = (child: ChildProcess) => new Promise<NodeJS.Signals | null>((resolve) => (child.exitCode !== null || child.signalCode !== null ? resolve(child.signalCode) : child.once('exit', (_code, signal) => resolve(signal))));

  it.each(['sponsored-persisted', 'sponsored-submitted'] as const)('killed at %s: the restarted service resolves it to exactly one on-chain execution', async (point) => {
    const doomed: ServiceProcess = await spawnService({ ...env, CRASH_AT: point }, children);
    const created = await call(doomed.url, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: `crash-${point}`, userIdentifierType: 'CUSTOM_ID' });
    expect(created.status).toBe(201);
    const wallet = created.body as { id: string; address: Address };
    await devnets.faucet.fund({ type: 'EVM', address: wallet.address }, 'usdc', 20n * USDC);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const accepted = await call(doomed.url, 'POST', `/v1/wallets/${wallet.id}/transfer`, { to: recipient, value: (4n * USDC).toString(), chainId: CHAIN_ID, tokenAddress: usdc });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const id = accepted.body.transactionId as string;
    // The worker reaches the crash point and the process kills itself.
    expect(await exited(doomed.child)).toBe('SIGKILL');
    // The chain shows where it died: nothing submitted (the nonce stays open over 2 blocks), or the
    // relayer's transaction in the node (it lands without any process).
    const chainNonce = () => client().readContract({ address: ENTRY_POINT_V08_ADDRESS, abi: entryPoint08Abi, functionName: 'getNonce', args: [wallet.address, 0n] });
    if (point === 'sponsored-persisted') {
      await new Promise((r) => setTimeout(r, 2_500));
      expect(await chainNonce()).toBe(0n);
    } else {
      for (let i = 0; i < 40 && (await chainNonce()) === 0n; i++) await new Promise((r) => setTimeout(r, 250));
      expect(await chainNonce()).toBe(1n);
    }

    const survivor = await spawnService(env, children);
    const stored = await call(survivor.url, 'GET', `/v1/wallets/${wallet.id}/transactions/${id}`);
    // Stored before the kill (the survivor may have moved it on already).
    expect(stored.body.userOperationHash).toMatch(/^0x[0-9a-f]{64}$/);
    let record = stored.body;
    for (let i = 0; i < 120 && !['confirmed', 'reverted', 'failed'].includes(record.status); i++) {
      await new Promise((r) => setTimeout(r, 250));
      record = (await call(survivor.url, 'GET', `/v1/wallets/${wallet.id}/transactions/${id}`)).body;
    }
    expect(record).toMatchObject({ status: 'confirmed', stage: 'included', userOperationHash: stored.body.userOperationHash });
    // One relayer transaction carried it, whether it was sent before the kill or after the restart.
    expect(record.autoRetry.attempts).toEqual([expect.objectContaining({ hash: record.hash, outcome: 'included' })]);
    const chain = client();
    expect(await chain.readContract({ address: ENTRY_POINT_V08_ADDRESS, abi: entryPoint08Abi, functionName: 'getNonce', args: [wallet.address, 0n] })).toBe(1n);
    const events = await chain.getLogs({ address: ENTRY_POINT_V08_ADDRESS, event: USER_OPERATION_EVENT, args: { sender: wallet.address }, fromBlock: 0n });
    expect(events).toHaveLength(1);
    expect(events[0]!.args.userOpHash).toBe(record.userOperationHash);
    expect(await chain.readContract({ address: usdc, abi: ERC20, functionName: 'balanceOf', args: [recipient] })).toBe(4n * USDC);
    survivor.child.kill('SIGTERM');
    await exited(survivor.child);
  }, 90_000);
});
