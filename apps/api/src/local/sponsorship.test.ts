import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ENTRY_POINT_V08_ADDRESS, SIMPLE_7702_ACCOUNT_ADDRESS } from '@wallet/chains/sponsorship';
import { createTestDatabase, testDatabaseKinds, type Database, type DatabaseKind } from '@wallet/db';
import { CANONICAL_ENTRY_POINT_V08, CANONICAL_SIMPLE_7702_ACCOUNT, createSponsorshipStatus } from '@wallet/domain';
import { createPublicClient, http, parseEther, type Address, type Hex } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { startLocalDevnets, type LocalDevnets } from './devnets.ts';

const CHAIN_ID = 84532;
/** anvil dev accounts #0 (the faucet) and #1 (the sponsorship deployer): their nonces count the start's transactions. */
const DEV_ACCOUNTS: Address[] = ['0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'];
const SIGNERS_ABI = [{ type: 'function', name: 'signers', stateMutability: 'view', inputs: [{ name: '', type: 'address' }], outputs: [{ name: '', type: 'bool' }] }] as const;
const TEN_ETH = parseEther('10');

interface Started {
  devnets: LocalDevnets;
  app: TestApp;
  key: string;
}

/** The devnets (state in `dataDir`) and the service over `database` with its KEKs in `dataDir`, as `npm start` wires them. */
async function start(kind: DatabaseKind, dataDir: string, database: Database): Promise<Started> {
  const devnets = await startLocalDevnets({ dataDir, sponsorship: true });
  try {
    const app = await startTestApp(kind, { chains: devnets, alongside: { database, dataDir } });
    return { devnets, app, key: (await app.createKey()).apiKey };
  } catch (error) {
    await devnets.stop();
    throw error;
  }
}

async function stop(s: Started | undefined) {
  await s?.app.close();
  await s?.devnets.stop();
}

async function onChain(s: Started) {
  const response = await s.app.request('GET', '/v1/local/devnets', { key: s.key });
  expect(response.status).toBe(200);
  const [evm] = response.body.evm as { chainId: number; rpcUrl: string; sponsorship: { entryPoint: Address; delegate: Address; paymaster: Address; relayer: Address } }[];
  const client = createPublicClient({ transport: http(evm!.rpcUrl) });
  const nonces = await Promise.all(DEV_ACCOUNTS.map((address) => client.getTransactionCount({ address })));
  return { addresses: evm!.sponsorship, client, nonces };
}

describe.each(testDatabaseKinds)('the local devnet sponsorship stack at start (%s)', (kind) => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-local-sponsorship-'));
  let database: Database;
  let running: Started | undefined;
  afterAll(async () => {
    await stop(running);
    await database?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('deploys the paymaster for the stored sponsor key, funds the relayer, and reuses both on a restart', async () => {
    database = await createTestDatabase(kind);
    running = await start(kind, dataDir, database);
    const first = await onChain(running);
    const sponsor = await running.app.services.stores.serviceKeys.find('sponsor', CHAIN_ID);
    const relayer = await running.app.services.stores.serviceKeys.find('relayer', CHAIN_ID);
    expect(first.addresses).toEqual({ entryPoint: ENTRY_POINT_V08_ADDRESS, delegate: SIMPLE_7702_ACCOUNT_ADDRESS, paymaster: expect.any(String), relayer: relayer!.address });
    const { client, addresses } = first;
    for (const address of [addresses.entryPoint, addresses.delegate, addresses.paymaster]) expect(await client.getCode({ address })).toMatch(/^0x[0-9a-f]{2,}/);
    expect(await client.readContract({ address: addresses.paymaster, abi: SIGNERS_ABI, functionName: 'signers', args: [sponsor!.address] })).toBe(true);
    expect(await client.readContract({ address: addresses.paymaster, abi: SIGNERS_ABI, functionName: 'signers', args: [relayer!.address] })).toBe(false);
    expect(await client.readContract({ address: addresses.entryPoint, abi: entryPoint08Abi, functionName: 'balanceOf', args: [addresses.paymaster] })).toBe(TEN_ETH);
    expect(await client.getBalance({ address: relayer!.address })).toBe(TEN_ETH);
    if (kind !== 'pglite') return;

    await stop(running);
    running = await start(kind, dataDir, database);
    const again = await onChain(running);
    expect(again.addresses).toEqual(first.addresses);
    // Nothing was sent: neither the faucet nor the deployer used a nonce.
    expect(again.nonces).toEqual(first.nonces);
  }, 60_000);

  // On one database kind only (it drains the devnet); registered only there, never reported as skipped.
  if (kind === 'pglite') it('reads the deposit and the relayer balance, and the start tops a drained relayer up again', async () => {
    const { client, addresses, nonces } = await onChain(running!);
    const services = running!.app.services;
    expect(await services.sponsorshipStatus.read()).toEqual({
      chains: [
        {
          chainId: CHAIN_ID,
          status: 'ok',
          entryPoint: addresses.entryPoint,
          paymaster: addresses.paymaster,
          submission: 'relayer',
          relayerAddress: addresses.relayer,
          paymasterDepositWei: TEN_ETH.toString(),
          relayerBalanceWei: TEN_ETH.toString(),
          minDepositWei: parseEther('1').toString(),
          minRelayerBalanceWei: parseEther('1').toString(),
          lowDeposit: false,
          lowRelayerBalance: false,
        },
      ],
    });

    // Drain the relayer with a real transaction signed by its key: 9.5 ETH away.
    const fees = await client.estimateFeesPerGas();
    const serialized = await services.serviceKeys.signRelayerTransaction(CHAIN_ID, {
      type: 'eip1559',
      chainId: CHAIN_ID,
      nonce: await client.getTransactionCount({ address: addresses.relayer }),
      to: '0x000000000000000000000000000000000000dEaD',
      value: parseEther('9.5'),
      gas: 21_000n,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const hash = await client.sendRawTransaction({ serializedTransaction: serialized as Hex });
    expect((await client.waitForTransactionReceipt({ hash, pollingInterval: 50 })).status).toBe('success');
    const [drained] = (await services.sponsorshipStatus.read()).chains;
    expect(drained).toMatchObject({ status: 'ok', lowDeposit: false, lowRelayerBalance: true });
    expect(BigInt((drained as { relayerBalanceWei: string }).relayerBalanceWei)).toBeLessThan(parseEther('0.5'));

    // What the next start runs (the same chain: the recorded deployment is reused): the relayer gets ETH from the faucet again.
    const again = await running!.devnets.sponsorship!(services.serviceKeys);
    expect(again).toEqual({ chain: services.sponsorshipChains[0], sponsor: (await services.serviceKeys.ensureServiceKey('sponsor', CHAIN_ID)).address, relayer: addresses.relayer });
    expect(await client.getBalance({ address: addresses.relayer })).toBe(TEN_ETH);
    // One faucet transaction (dev account #0), no redeployment (dev account #1).
    const after = await onChain(running!);
    expect(after.nonces).toEqual([nonces[0]! + 1, nonces[1]]);
    expect((await services.sponsorshipStatus.read()).chains[0]).toMatchObject({ lowRelayerBalance: false });
  }, 60_000);
});

describe('the sponsorship status of configured chains', () => {
  it('flags amounts below high thresholds, and answers unavailable for a chain whose RPC or EntryPoint does not answer', async () => {
    expect([CANONICAL_ENTRY_POINT_V08, CANONICAL_SIMPLE_7702_ACCOUNT]).toEqual([ENTRY_POINT_V08_ADDRESS, SIMPLE_7702_ACCOUNT_ADDRESS]);
    const base = { chainId: 8453, type: 'EVM' as const, rpcUrl: 'http://127.0.0.1:9/' };
    const devnets = await startLocalDevnets({ sponsorship: true, otherChains: [base] });
    const token = devnets.directory.list()[0]!.usdc!.address;
    const paymaster = `0x${'a'.repeat(40)}`;
    const app = await startTestApp('pglite', {
      chains: devnets,
      env: {
        CHAINS: JSON.stringify([base]),
        SPONSORSHIP: JSON.stringify([{ chainId: 8453, paymaster, tokens: [token], submission: 'bundler', bundlerUrl: 'http://127.0.0.1:9/' }]),
      },
    });
    try {
      const [unreachable, local] = (await app.services.sponsorshipStatus.read()).chains;
      expect(unreachable).toEqual({
        chainId: 8453,
        status: 'unavailable',
        reason: 'the RPC of chain 8453 did not answer',
        entryPoint: CANONICAL_ENTRY_POINT_V08,
        paymaster: '0xaAaAaAaaAaAaAaaAaAAAAAAAAaaaAaAaAaaAaaAa',
        submission: 'bundler',
        relayerAddress: null,
        minDepositWei: (5n * 10n ** 16n).toString(),
        minRelayerBalanceWei: (10n ** 16n).toString(),
      });
      expect(local).toMatchObject({ chainId: CHAIN_ID, status: 'ok', lowDeposit: false, lowRelayerBalance: false, paymasterDepositWei: TEN_ETH.toString() });

      // The same chain read against thresholds above what it holds, and against an EntryPoint address without code.
      const devnetEntry = app.services.sponsorshipChains.find((c) => c.chainId === CHAIN_ID)!;
      const status = createSponsorshipStatus({
        chains: [
          { ...devnetEntry, minDepositWei: parseEther('11'), minRelayerBalanceWei: parseEther('11') },
          { ...devnetEntry, entryPoint: '0x000000000000000000000000000000000000bEEF' },
        ],
        gateways: devnets.gateways,
        relayerAddress: async (chainId) => (await app.services.serviceKeys.ensureServiceKey('relayer', chainId)).address,
      });
      const [high, noEntryPoint] = (await status.read()).chains;
      expect(high).toMatchObject({ status: 'ok', paymasterDepositWei: TEN_ETH.toString(), relayerBalanceWei: TEN_ETH.toString(), lowDeposit: true, lowRelayerBalance: true });
      expect(noEntryPoint).toMatchObject({ status: 'unavailable', reason: expect.stringContaining('did not answer the paymaster') });
    } finally {
      await app.close();
      await devnets.stop();
    }
  }, 60_000);
});
