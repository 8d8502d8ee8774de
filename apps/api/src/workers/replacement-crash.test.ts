import { execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { createScratchDatabase, openDatabase, type Database } from '@wallet/db';
import { parseTransaction, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { repoRoot } from '../config.ts';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { rpc } from '../testing/monitor-fixtures.ts';
import { checkedServiceCalls } from '../testing/response-contract.ts';
import { localServiceEnv, spawnService } from '../testing/service-process.ts';

const run = promisify(execFile);
const EVM_CHAIN = 84532;
const hex = (n: bigint) => `0x${n.toString(16)}`;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * SIGKILL between signing and sending a fee replacement, with real processes on one PostgreSQL and
 * one anvil whose blocks the test mines by hand: the first process stores the signed replacement and
 * dies before any node sees it; the restarted service sends those stored bytes (no second plan), the
 * replacement confirms the record, and the chain shows one payment and no nonce gap.
 */
describe('a fee replacement whose process is killed between storing and sending it (two processes, PostgreSQL)', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-replacement-crash-'));
  const children: ChildProcess[] = [];
  let devnets: LocalDevnets;
  let env: Record<string, string>;
  let apiKey: string;
  let database: Database;
  let dropDatabase: () => Promise<void>;

  beforeAll(async () => {
    const server = process.env.TEST_DATABASE_URL;
    if (!server) throw new Error('this suite needs TEST_DATABASE_URL (a PostgreSQL server both processes share)');
    const scratch = await createScratchDatabase(server, 'replacementcrash');
    dropDatabase = scratch.drop;
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.5, slotMs: 100 });
    env = localServiceEnv(dataDir, {
      DATABASE_URL: scratch.url,
      MONITOR_LEASE_MS: '2000',
      AUTO_RETRY_AFTER_BLOCKS: '2',
      CHAINS: JSON.stringify([{ type: 'EVM', chainId: EVM_CHAIN, rpcUrl: devnets.evmRpcUrl, isDevnet: true, usdcAddress: devnets.directory.list()[0]!.usdc!.address }]),
    });
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'apps/api/src/cli/keys.ts', 'create', '--partner', 'replacement-crash'], { cwd: repoRoot, env });
    ({ apiKey } = JSON.parse(stdout.trim()) as { apiKey: string });
    database = await openDatabase({ databaseUrl: scratch.url });
  }, 120_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await database?.close();
    await devnets?.stop();
    await dropDatabase?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const call = checkedServiceCalls(() => apiKey);
  const attemptRows = (recordId: string) =>
    database.query<{ hash: Hex; outcome: string; signed_transaction: Hex }>('SELECT hash, outcome, signed_transaction FROM transaction_attempts WHERE record_id = $1 ORDER BY number', [recordId]);
  const known = async (hash: Hex) => (await devnets.gateways.evm(EVM_CHAIN)!.getTransactionsKnown([hash]))[0];
  const balance = async (address: string) => BigInt(await rpc(devnets.evmRpcUrl, 'eth_getBalance', [address, 'latest']));
  const chainNonce = async (address: string) => Number(await rpc(devnets.evmRpcUrl, 'eth_getTransactionCount', [address, 'latest']));

  it('the restarted service sends the stored replacement; exactly one attempt lands and the next transfer takes the next nonce', { timeout: 150_000 }, async () => {
    const doomed = await spawnService({ ...env, CRASH_AT: 'replacement-stored' }, children);
    const died = new Promise<NodeJS.Signals | null>((resolve) => doomed.child.once('exit', (_code, signal) => resolve(signal)));
    const created = await call(doomed.url, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: `replacement-crash-${Date.now()}`, userIdentifierType: 'CUSTOM_ID' });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const wallet = created.body as { id: string; address: string };
    await devnets.faucet.fund({ type: 'EVM', address: wallet.address }, 'native', 10n ** 18n);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;

    // From here the chain moves only when the test mines.
    await rpc(devnets.evmRpcUrl, 'evm_setIntervalMining', [0]);
    const sent = await call(doomed.url, 'POST', `/v1/wallets/${wallet.id}/transfer`, { to: recipient, value: '1000', chainId: EVM_CHAIN });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const id = sent.body.transactionId as string;
    const original = parseTransaction(sent.body.signedTransaction as Hex);
    // Empty blocks whose base fee is three times what the transfer offers, until the first process
    // has stored a replacement and killed itself.
    let signal: NodeJS.Signals | null | undefined;
    void died.then((s) => (signal = s));
    for (let i = 0; i < 60 && signal === undefined; i++) {
      await rpc(devnets.evmRpcUrl, 'anvil_setNextBlockBaseFeePerGas', [hex(original.maxFeePerGas! * 3n)]);
      await rpc(devnets.evmRpcUrl, 'evm_mine');
      await sleep(500);
    }
    expect(await died).toBe('SIGKILL');

    // It died between storing and sending: the replacement is stored signed, the node never saw it.
    const [stored] = await attemptRows(id);
    expect(stored).toMatchObject({ outcome: 'unknown' });
    const replacement = parseTransaction(stored!.signed_transaction);
    expect({ nonce: replacement.nonce, to: replacement.to, value: replacement.value }).toEqual({ nonce: original.nonce, to: original.to, value: original.value });
    expect(replacement.maxFeePerGas!).toBeGreaterThanOrEqual((original.maxFeePerGas! * 110n) / 100n);
    expect(await known(stored!.hash)).toBe(false);
    // (anvil's pool may have dropped the original, priced under the base fee; it never landed.)
    expect(await devnets.gateways.evm(EVM_CHAIN)!.getReceipts([sent.body.txHash as Hex])).toEqual([null]);

    // The restarted service (once the dead process's lease lapsed) sends the stored bytes, while no block passes.
    const survivor = await spawnService(env, children);
    await expect.poll(() => known(stored!.hash), { timeout: 30_000, interval: 250 }).toBe(true);
    expect(await attemptRows(id)).toHaveLength(1);

    // The chain moves again at a base fee both attempts could pay: the pool holds only the replacement.
    await rpc(devnets.evmRpcUrl, 'anvil_setNextBlockBaseFeePerGas', [hex(original.maxFeePerGas! / 2n)]);
    await rpc(devnets.evmRpcUrl, 'evm_setIntervalMining', [1]);
    let record: Record<string, any> = {};
    await expect
      .poll(async () => (record = (await call(survivor.url, 'GET', `/v1/wallets/${wallet.id}/transactions/${id}`)).body).status, { timeout: 60_000, interval: 250 })
      .toBe('confirmed');
    expect(record).toMatchObject({ hash: sent.body.txHash, nonce: original.nonce, monitoring: { winningHash: stored!.hash, winningStatus: 'confirmed' } });
    expect(record.autoRetry.attempts.map((a: { hash: string; outcome: string }) => [a.hash, a.outcome])).toEqual([
      [sent.body.txHash, 'lost'],
      [stored!.hash, 'included'],
    ]);
    expect(await attemptRows(id)).toEqual([expect.objectContaining({ hash: stored!.hash, outcome: 'included' })]);
    expect(await balance(recipient)).toBe(1000n);
    expect(await devnets.gateways.evm(EVM_CHAIN)!.getReceipts([sent.body.txHash as Hex])).toEqual([null]);

    // No gap: the wallet's next transfer takes the next nonce and confirms.
    const next = await call(survivor.url, 'POST', `/v1/wallets/${wallet.id}/transfer`, { to: recipient, value: '1', chainId: EVM_CHAIN });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    let nextRecord: Record<string, any> = {};
    await expect
      .poll(async () => (nextRecord = (await call(survivor.url, 'GET', `/v1/wallets/${wallet.id}/transactions/${next.body.transactionId}`)).body).status, { timeout: 60_000, interval: 250 })
      .toBe('confirmed');
    expect(nextRecord.nonce).toBe(original.nonce! + 1);
    expect(await chainNonce(wallet.address)).toBe(original.nonce! + 2);
    expect(await balance(recipient)).toBe(1001n);
  });
});
