import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createPublicClient, createWalletClient, http, parseEther } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { afterAll, describe, expect, it, onTestFinished } from 'vitest';
import { startAnvil } from './anvil.ts';
import { evmGenesisHash } from './deployments.ts';
import { LOCAL_FUNDER_PRIVATE_KEY, localChain } from './dev-account.ts';

const dir = mkdtempSync(path.join(tmpdir(), 'anvil-state-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('startAnvil with a state file', () => {
  it('keeps blocks, receipts, nonces and the genesis hash across a stop and start', async () => {
    const statePath = path.join(dir, 'anvil.json');
    const first = await startAnvil({ blockTimeSeconds: 0.25, statePath });
    onTestFinished(() => first.stop());
    const chain = localChain(first.rpcUrl, first.chainId);
    const account = privateKeyToAccount(LOCAL_FUNDER_PRIVATE_KEY);
    let client = createPublicClient({ chain, transport: http(first.rpcUrl) });
    const genesis = (await client.getBlock({ blockNumber: 0n })).hash;
    const hash = await createWalletClient({ account, chain, transport: http(first.rpcUrl) }).sendTransaction({
      to: '0x70997970c51812dc3a010c54a3fc8b4cdc7c4a3e',
      value: parseEther('1'),
    });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 50 });
    const head = await client.getBlockNumber({ cacheTime: 0 });
    await first.stop();
    expect(statSync(statePath).size).toBeGreaterThan(0);

    const t0 = performance.now();
    const second = await startAnvil({ blockTimeSeconds: 0.25, statePath });
    console.log(`anvil reloaded ${statSync(statePath).size} bytes in ${(performance.now() - t0).toFixed(0)} ms`);
    try {
      client = createPublicClient({ chain: localChain(second.rpcUrl, second.chainId), transport: http(second.rpcUrl) });
      expect((await client.getBlock({ blockNumber: 0n })).hash).toBe(genesis);
      expect(await client.getBlockNumber({ cacheTime: 0 })).toBeGreaterThanOrEqual(head);
      expect((await client.getTransactionReceipt({ hash })).blockHash).toBe(receipt.blockHash);
      expect(await client.getTransactionCount({ address: account.address })).toBe(1);
    } finally {
      await second.stop();
    }
  });

  it('keeps the chain identity (evmGenesisHash) across many restarts, even when anvil answers block 0 anew', async () => {
    const statePath = path.join(dir, 'restarts.json');
    const identities: string[] = [];
    const blockZero: string[] = [];
    for (let start = 0; start < 5; start++) {
      const devnet = await startAnvil({ blockTimeSeconds: 0.25, statePath });
      try {
        const client = createPublicClient({ chain: localChain(devnet.rpcUrl, devnet.chainId), transport: http(devnet.rpcUrl) });
        // Past block 1, so the identity is read from it from the second start on.
        while ((await client.getBlockNumber({ cacheTime: 0 })) < 2n) await new Promise((resolve) => setTimeout(resolve, 100));
        identities.push(await evmGenesisHash(devnet.rpcUrl));
        blockZero.push((await client.getBlock({ blockNumber: 0n })).hash);
        // Whole seconds between starts: anvil regenerates block 0 with the current time.
        await new Promise((resolve) => setTimeout(resolve, 1_100));
      } finally {
        await devnet.stop();
      }
    }
    console.log(`block 0 hashes over 5 starts: ${new Set(blockZero).size} distinct; identity: ${new Set(identities).size}`);
    expect(new Set(identities).size).toBe(1);
    expect(identities[0]).toBe(blockZero[0]);
  }, 60_000);

  it('stops an anvil left running on the same state file (its parent died) and continues from its latest state', async () => {
    const statePath = path.join(dir, 'leftover.json');
    const orphan = await startAnvil({ blockTimeSeconds: 0.25, statePath, stateIntervalSeconds: 3600 });
    onTestFinished(() => orphan.stop());
    const chain = localChain(orphan.rpcUrl, orphan.chainId);
    const hash = await createWalletClient({ account: privateKeyToAccount(LOCAL_FUNDER_PRIVATE_KEY), chain, transport: http(orphan.rpcUrl) }).sendTransaction({
      to: '0x70997970c51812dc3a010c54a3fc8b4cdc7c4a3e',
      value: 1n,
    });
    await createPublicClient({ chain, transport: http(orphan.rpcUrl) }).waitForTransactionReceipt({ hash, pollingInterval: 50 });
    expect(readFileSync(`${statePath}.pid`, 'utf8')).toBe(String(orphan.pid));

    const next = await startAnvil({ blockTimeSeconds: 0.25, statePath });
    try {
      expect(next.stoppedLeftover).toBe(orphan.pid);
      expect(() => process.kill(orphan.pid, 0)).toThrow();
      // Written by the leftover on SIGTERM (its hourly interval never came).
      const client = createPublicClient({ transport: http(next.rpcUrl) });
      expect((await client.getTransactionReceipt({ hash })).status).toBe('success');
    } finally {
      await next.stop();
    }
    expect(existsSync(`${statePath}.pid`)).toBe(false);
  });

  it('moves a state file it cannot read aside and starts a fresh chain', async () => {
    const statePath = path.join(dir, 'broken.json');
    writeFileSync(statePath, '{"block": {"number": ');
    const anvil = await startAnvil({ blockTimeSeconds: 0.25, statePath });
    try {
      expect(anvil.discardedState).toMatch(/broken\.json\.corrupt-\d+$/);
      expect(existsSync(anvil.discardedState!)).toBe(true);
      const client = createPublicClient({ transport: http(anvil.rpcUrl) });
      expect(await client.getTransactionCount({ address: privateKeyToAccount(LOCAL_FUNDER_PRIVATE_KEY).address })).toBe(0);
    } finally {
      await anvil.stop();
    }
    expect(readdirSync(dir)).toContain('broken.json');
  });
});
