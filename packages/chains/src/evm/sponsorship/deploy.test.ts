import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicClient, http, parseEther, type PublicClient } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilInstance } from '../anvil.ts';
import { localChain } from '../dev-account.ts';
import { deployTestUsdc, LOCAL_TEST_USDC_ADDRESS } from '../test-usdc.ts';
import { ensureYieldMarkets } from '../yield/deploy.ts';
import { ENTRY_POINT_V08_ADDRESS, SIMPLE_7702_ACCOUNT_ADDRESS } from './constants.ts';
import { ensureSponsorshipContracts, topUpPaymasterDeposit, type SponsorshipDeployment } from './deploy.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'sponsorship-deploy-'));
const statePath = path.join(dir, 'anvil.json');
const recordFile = path.join(dir, 'sponsorship.json');
const sponsor = privateKeyToAccount(generatePrivateKey()).address;
const DEPLOYER = privateKeyToAccount('0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d').address;

let anvil: AnvilInstance | undefined;
afterAll(async () => {
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const client = (a: AnvilInstance): PublicClient => createPublicClient({ chain: localChain(a.rpcUrl, a.chainId), transport: http(a.rpcUrl), pollingInterval: 50 });
const deposit = (pub: PublicClient, d: SponsorshipDeployment) =>
  pub.readContract({ address: d.entryPoint, abi: entryPoint08Abi, functionName: 'balanceOf', args: [d.paymaster] });

describe('sponsorship contracts on anvil', () => {
  let first: SponsorshipDeployment;

  it('deploys at the canonical addresses beside TestUSDC and the yield markets, which keep theirs', async () => {
    anvil = await startAnvil({ blockTimeSeconds: 1, statePath });
    const pub = client(anvil);
    const t0 = performance.now();
    // Concurrently, as a local start might: the send lock and the automine switch are shared.
    const [usdc, res] = await Promise.all([
      deployTestUsdc(anvil.rpcUrl, anvil.chainId),
      ensureSponsorshipContracts(anvil.rpcUrl, recordFile, { sponsorAddress: sponsor, depositWei: parseEther('10') }),
    ]);
    console.log(`sponsorship contracts deployed in ${(performance.now() - t0).toFixed(0)} ms (with TestUSDC)`);
    expect(usdc).toBe(LOCAL_TEST_USDC_ADDRESS);
    expect(res.reused).toBe(false);
    first = res.deployment;
    expect(first).toMatchObject({ chainId: 84532, entryPoint: ENTRY_POINT_V08_ADDRESS, delegate: SIMPLE_7702_ACCOUNT_ADDRESS, sponsor });
    for (const address of [first.entryPoint, first.delegate, first.paymaster]) expect((await pub.getCode({ address }))?.length).toBeGreaterThan(2);
    expect(await pub.readContract({ address: first.paymaster, abi: SIGNERS_ABI, functionName: 'signers', args: [sponsor] })).toBe(true);
    expect(await pub.readContract({ address: first.paymaster, abi: SIGNERS_ABI, functionName: 'signers', args: [DEPLOYER] })).toBe(false);
    expect(await deposit(pub, first)).toBe(parseEther('10'));
    expect(await pub.getTransactionCount({ address: DEPLOYER })).toBe(4); // 3 CREATE2 deployments + 1 deposit
    const [yieldRes] = await Promise.all([
      ensureYieldMarkets(anvil.rpcUrl, path.join(dir, 'yield.json'), { usdc }),
      ensureSponsorshipContracts(anvil.rpcUrl, path.join(dir, 'other.json'), { sponsorAddress: privateKeyToAccount(generatePrivateKey()).address, depositWei: 1n }),
    ]);
    expect(yieldRes.reused).toBe(false);
    // Only the new sponsor's paymaster and its deposit: the canonical contracts were present.
    expect(await pub.getTransactionCount({ address: DEPLOYER })).toBe(6);
    // Back to 1-second interval mining.
    const n = await pub.getBlockNumber({ cacheTime: 0 });
    await new Promise((r) => setTimeout(r, 1_300));
    expect(await pub.getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(n);
  });

  it('topUpPaymasterDeposit adds to the EntryPoint deposit', async () => {
    const pub = client(anvil!);
    expect(await topUpPaymasterDeposit(anvil!.rpcUrl, first, parseEther('1'))).toBe(parseEther('11'));
    expect(await deposit(pub, first)).toBe(parseEther('11'));
  });

  it('a restart from the state file reuses the recorded deployment; a fresh chain gets a new one', async () => {
    await anvil!.stop();
    anvil = await startAnvil({ blockTimeSeconds: 1, statePath });
    const again = await ensureSponsorshipContracts(anvil.rpcUrl, recordFile, { sponsorAddress: sponsor, depositWei: parseEther('10') });
    expect(again).toEqual({ deployment: first, reused: true });
    expect(await client(anvil).getTransactionCount({ address: DEPLOYER })).toBe(7); // nothing sent since the top-up
    const recordedGenesis = (JSON.parse(readFileSync(recordFile, 'utf8')) as { genesisHash: string }).genesisHash;

    await anvil.stop();
    anvil = await startAnvil({ blockTimeSeconds: 1 });
    const fresh = await ensureSponsorshipContracts(anvil.rpcUrl, recordFile, { sponsorAddress: sponsor, depositWei: parseEther('10') });
    expect(fresh.reused).toBe(false);
    expect(fresh.deployment).toEqual(first); // CREATE2: same addresses on the new chain
    expect(await deposit(client(anvil), fresh.deployment)).toBe(parseEther('10'));
    expect((JSON.parse(readFileSync(recordFile, 'utf8')) as { genesisHash: string }).genesisHash).not.toBe(recordedGenesis);
  });
});

const SIGNERS_ABI = [{ type: 'function', name: 'signers', stateMutability: 'view', inputs: [{ name: '', type: 'address' }], outputs: [{ name: '', type: 'bool' }] }] as const;
