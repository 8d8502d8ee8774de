import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { withAutomine } from '@wallet/chains/devnets';
import { ENTRY_POINT_V08_ADDRESS } from '@wallet/chains/sponsorship';
import { startAlto, type AltoInstance } from '@wallet/chains/testing';
import { createStores, createTestDatabase, testDatabaseKinds } from '@wallet/db';
import { createServiceKeys, fileKekProvider, systemClock } from '@wallet/domain';
import { createLocalKeyVault } from '@wallet/domain/custody/local-vault.ts';
import { createPublicClient, http, parseAbi, parseAbiItem, parseEther, type Address, type Hex } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import type { PollLoop } from '../workers/poll-loop.ts';
import { startSponsoredWorker } from '../workers/sponsored-worker.ts';

const CHAIN_ID = 84532;
const USDC = 1_000_000n;
const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
const USER_OPERATION_EVENT = parseAbiItem('event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)');

let devnets: LocalDevnets;
let alto: AltoInstance;
let usdc: Address;
beforeAll(async () => {
  devnets = await startLocalDevnets({ sponsorship: true });
  usdc = devnets.directory.list().find((c) => c.type === 'EVM')!.usdc!.address as Address;
}, 120_000);

/** alto, started once the EntryPoint exists (the first service's sponsorship setup deploys it). */
async function bundler(): Promise<AltoInstance> {
  if (alto) return alto;
  const executorPrivateKey = generatePrivateKey();
  const utilityPrivateKey = generatePrivateKey();
  for (const key of [executorPrivateKey, utilityPrivateKey]) await devnets.faucet.fund({ type: 'EVM', address: privateKeyToAccount(key).address }, 'native', parseEther('10'));
  // alto deploys its simulation contracts one receipt after the other at its first start.
  alto = await withAutomine(devnets.evmRpcUrl, () => startAlto({ rpcUrl: devnets.evmRpcUrl, entryPoint: ENTRY_POINT_V08_ADDRESS, executorPrivateKey, utilityPrivateKey }));
  return alto;
}
afterEach((ctx) => {
  if (ctx.task.result?.state === 'fail' && alto) console.log(`alto logs: ${alto.writeLogs()}`);
});
afterAll(async () => {
  await alto?.stop();
  await devnets?.stop();
});

/**
 * The same sponsored transfers with `submission: "bundler"`: the service hands the stored signed
 * operation to a real ERC-4337 bundler (@pimlico/alto on loopback) with eth_sendUserOperation, and
 * resolves it from the chain's evidence as with its relayer.
 */
describe.each(testDatabaseKinds)('sponsored ERC-20 transfers through a bundler (%s)', (kind) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bundler-'));
  let app: TestApp;
  let worker: PollLoop;
  let key: { apiKey: string; projectId: string };
  const client = () => createPublicClient({ transport: http(devnets.evmRpcUrl) });
  const post = (urlPath: string, body: unknown) => app.request('POST', urlPath, { key: key.apiKey, body });
  const lookup = async (walletId: string, id: string) => (await app.request('GET', `/v1/wallets/${walletId}/transactions/${id}`, { key: key.apiKey })).body as Record<string, any>;

  beforeAll(async () => {
    const database = await createTestDatabase(kind);
    // The paymaster is deployed for this service's sponsor key (stored in its database under its KEKs).
    const keys = createServiceKeys({ store: createStores(database).serviceKeys, vault: createLocalKeyVault({ keks: fileKekProvider(path.join(dataDir, 'signer')) }), clock: systemClock });
    const local = await devnets.sponsorship!(keys);
    const sponsorship = [{ chainId: CHAIN_ID, paymaster: local.chain.paymaster, tokens: [usdc], submission: 'bundler', bundlerUrl: (await bundler()).url }];
    app = await startTestApp(kind, {
      alongside: { database, dataDir },
      chains: { directory: devnets.directory, gateways: devnets.gateways, sponsoredOperations: devnets.sponsoredOperations, faucet: devnets.faucet },
      env: { CHAINS: JSON.stringify([{ type: 'EVM', chainId: CHAIN_ID, rpcUrl: devnets.evmRpcUrl }]), SPONSORSHIP: JSON.stringify(sponsorship) },
    });
    key = await app.createKey();
    await app.services.sponsorship.change(await app.services.policies.operatorScope(key.projectId, 'development'), 'enable');
    worker = startSponsoredWorker({ runner: app.services.sponsoredRunner, idleMs: 100, logger: { error: () => undefined } });
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await app?.database.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function usdcWallet(): Promise<{ id: string; address: Address }> {
    const created = await post('/v1/wallets', { type: 'EVM', userIdentifier: `bundler-${Math.random()}@example.com`, userIdentifierType: 'EMAIL' });
    const wallet = created.body as { id: string; address: Address };
    await devnets.faucet.fund({ type: 'EVM', address: wallet.address }, 'usdc', 50n * USDC);
    return wallet;
  }

  async function settled(walletId: string, id: string): Promise<Record<string, any>> {
    for (let i = 0; i < 160; i++) {
      const record = await lookup(walletId, id);
      if (['confirmed', 'reverted', 'failed'].includes(record.status)) return record;
      await new Promise((r) => setTimeout(r, 250));
    }
    throw new Error(`record ${id} did not resolve: ${JSON.stringify(await lookup(walletId, id))}`);
  }

  const usdcOf = (who: Address) => client().readContract({ address: usdc, abi: ERC20, functionName: 'balanceOf', args: [who] });
  const nonceOf = (who: Address) => client().readContract({ address: ENTRY_POINT_V08_ADDRESS, abi: entryPoint08Abi, functionName: 'getNonce', args: [who, 0n] });

  it('a first transfer (with the 7702 authorization) and a later one confirm through the bundler', async () => {
    const wallet = await usdcWallet();
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const body = { to: recipient, value: (5n * USDC).toString(), chainId: CHAIN_ID, tokenAddress: usdc };
    for (const [n, expectedType] of [[1n, 'eip7702'], [2n, 'eip1559']] as const) {
      const accepted = await post(`/v1/wallets/${wallet.id}/transfer`, body);
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
      const done = await settled(wallet.id, (accepted.body as { transactionId: string }).transactionId);
      expect(done).toMatchObject({ status: 'confirmed', stage: 'included', executionMode: 'sponsored' });
      // The bundle transaction is alto's: the record's hash names it, never the operation hash.
      expect(done.hash).toBe(done.monitoring.winningHash);
      expect(done.hash).not.toBe(done.userOperationHash);
      const receipt = await client().getTransactionReceipt({ hash: done.hash as Hex });
      expect(receipt.type).toBe(expectedType);
      expect(receipt.to?.toLowerCase()).toBe(ENTRY_POINT_V08_ADDRESS.toLowerCase());
      expect(BigInt(done.actualGasCost)).toBeGreaterThan(0n);
      expect(await nonceOf(wallet.address)).toBe(n);
      expect(await usdcOf(recipient)).toBe(n * 5n * USDC);
    }
    expect(await client().getBalance({ address: wallet.address })).toBe(0n);
  }, 90_000);

  it('the bundler killed while it holds the operation: the service resends the stored bytes to the restarted bundler, and it executes once', async () => {
    const wallet = await usdcWallet();
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    await fetch(alto.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_bundler_setBundlingMode', params: ['manual'] }) });
    const accepted = await post(`/v1/wallets/${wallet.id}/transfer`, { to: recipient, value: (3n * USDC).toString(), chainId: CHAIN_ID, tokenAddress: usdc });
    expect(accepted.status).toBe(202);
    const id = (accepted.body as { transactionId: string }).transactionId;
    let record = await lookup(wallet.id, id);
    for (let i = 0; i < 80 && record.stage !== 'submitted'; i++) {
      await new Promise((r) => setTimeout(r, 100));
      record = await lookup(wallet.id, id);
    }
    expect(record.stage).toBe('submitted');
    // The bundler dies with the operation only in its mempool; the restarted one knows nothing of it.
    await alto.kill();
    await alto.restart();
    const done = await settled(wallet.id, id);
    expect(done).toMatchObject({ status: 'confirmed', userOperationHash: record.userOperationHash });
    // The hand-over the dead bundler lost, then the resend of the same stored bytes, which a bundle included.
    const attempts = done.autoRetry.attempts as { hash: string | null; outcome: string }[];
    expect(attempts.length).toBeGreaterThanOrEqual(2);
    expect(attempts.at(-1)).toMatchObject({ hash: done.hash, outcome: 'included' });
    expect(attempts.slice(0, -1).every((a) => a.outcome === 'lost' || a.outcome === 'refused')).toBe(true);
    expect(done.autoRetry.reason).toMatch(/sent again/);
    expect(await nonceOf(wallet.address)).toBe(1n);
    const events = await client().getLogs({ address: ENTRY_POINT_V08_ADDRESS, event: USER_OPERATION_EVENT, args: { sender: wallet.address }, fromBlock: 0n });
    expect(events).toHaveLength(1);
    expect(await usdcOf(recipient)).toBe(3n * USDC);
  }, 90_000);
});
