import { createPublicClient, createTestClient, http, parseEther, type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilInstance } from './anvil.ts';
import { fundEvmWallet } from './faucet.ts';
import { LOCAL_TEST_USDC_ADDRESS, TEST_USDC_ABI, deployTestUsdc } from './test-usdc.ts';

const randomAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

describe('TestUSDC + faucet on anvil', () => {
  let anvil: AnvilInstance;
  let usdc: Address;
  let client: ReturnType<typeof createPublicClient>;

  beforeAll(async () => {
    anvil = await startAnvil({ blockTimeSeconds: 0.25 });
    client = createPublicClient({ transport: http(anvil.rpcUrl) });
    const t0 = performance.now();
    usdc = await deployTestUsdc(anvil.rpcUrl, anvil.chainId);
    console.log(`TestUSDC deployed in ${(performance.now() - t0).toFixed(0)} ms`);
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  const usdcBalance = (who: Address) =>
    client.readContract({ address: usdc, abi: TEST_USDC_ABI, functionName: 'balanceOf', args: [who] }) as Promise<bigint>;

  it('deploys at the deterministic first-deployment address with 6 decimals', async () => {
    expect(usdc).toBe(LOCAL_TEST_USDC_ADDRESS);
    expect(await client.readContract({ address: usdc, abi: TEST_USDC_ABI, functionName: 'decimals' })).toBe(6);
    expect(await client.readContract({ address: usdc, abi: TEST_USDC_ABI, functionName: 'symbol' })).toBe('USDC');
    expect(await client.readContract({ address: usdc, abi: TEST_USDC_ABI, functionName: 'name' })).toBe('USD Coin (test)');
  });

  it('funds a random address with 1 ETH and 10 USDC', async () => {
    const to = randomAddress();
    const t0 = performance.now();
    const res = await fundEvmWallet({
      rpcUrl: anvil.rpcUrl,
      chainId: anvil.chainId,
      usdcAddress: usdc,
      to,
      nativeWei: parseEther('1'),
      usdcBaseUnits: 10_000_000n,
    });
    console.log(`fundEvmWallet in ${(performance.now() - t0).toFixed(0)} ms`);
    expect(res.nativeTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(res.usdcTxHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(await client.getBalance({ address: to })).toBe(parseEther('1'));
    expect(await usdcBalance(to)).toBe(10_000_000n);
  });

  it('sends only what is asked for', async () => {
    const to = randomAddress();
    const res = await fundEvmWallet({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, usdcAddress: usdc, to, usdcBaseUnits: 5n });
    expect(res.nativeTxHash).toBeUndefined();
    expect(await client.getBalance({ address: to })).toBe(0n);
    expect(await usdcBalance(to)).toBe(5n);
  });

  it('lands 5 concurrent fundings', async () => {
    const targets = Array.from({ length: 5 }, randomAddress);
    const t0 = performance.now();
    await Promise.all(
      targets.map((to, i) =>
        fundEvmWallet({
          rpcUrl: anvil.rpcUrl,
          chainId: anvil.chainId,
          usdcAddress: usdc,
          to,
          nativeWei: parseEther('0.1') * BigInt(i + 1),
          usdcBaseUnits: 1_000_000n * BigInt(i + 1),
        }),
      ),
    );
    console.log(`5 concurrent fundings in ${(performance.now() - t0).toFixed(0)} ms`);
    for (const [i, to] of targets.entries()) {
      expect(await client.getBalance({ address: to })).toBe(parseEther('0.1') * BigInt(i + 1));
      expect(await usdcBalance(to)).toBe(1_000_000n * BigInt(i + 1));
    }
  });

  it('mint is owner-only', async () => {
    const stranger = privateKeyToAccount(generatePrivateKey());
    await expect(
      client.simulateContract({
        account: stranger,
        address: usdc,
        abi: TEST_USDC_ABI,
        functionName: 'mint',
        args: [stranger.address, 1n],
      }),
    ).rejects.toThrow(/OwnableUnauthorizedAccount|revert/i);
  });
});

describe('faucet against a moving base fee (blocks mined by hand)', () => {
  let anvil: AnvilInstance;
  let testClient: ReturnType<typeof createTestClient>;
  let client: ReturnType<typeof createPublicClient>;
  beforeAll(async () => {
    anvil = await startAnvil({ blockTimeSeconds: 3600 });
    testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
    client = createPublicClient({ transport: http(anvil.rpcUrl) });
  });
  afterAll(async () => {
    await anvil?.stop();
  });
  const fund = (to: Address) => fundEvmWallet({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, usdcAddress: LOCAL_TEST_USDC_ADDRESS, to, nativeWei: parseEther('1') });
  /** The funding the dev account has in anvil's pool (one at a time here). */
  async function pooledFunding(): Promise<`0x${string}`> {
    for (;;) {
      const pending = Object.values((await testClient.getTxpoolContent()).pending).flatMap((byNonce) => Object.values(byNonce));
      if (pending[0]) return pending[0].hash;
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  it('lands a funding sent just before a test raises the next base fee to 5 times the current one', async () => {
    const to = randomAddress();
    const funding = fund(to);
    await pooledFunding();
    const { baseFeePerGas } = await client.getBlock();
    await testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: baseFeePerGas! * 5n });
    await testClient.mine({ blocks: 1 });
    await funding;
    expect(await client.getBalance({ address: to })).toBe(parseEther('1'));
  });

  it('fails instead of taking the receipt of the funding that took its nonce after anvil dropped it (the wallet got nothing)', async () => {
    const to = randomAddress();
    const outcome = fund(to).then(() => 'resolved', (error: Error) => error.message);
    const dropped = await pooledFunding();
    // viem has seen it pending (it looks once when the wait begins), then it leaves the pool.
    await new Promise((r) => setTimeout(r, 500));
    await testClient.dropTransaction({ hash: dropped });
    const other = randomAddress();
    const next = fund(other);
    await pooledFunding();
    await testClient.mine({ blocks: 1 });
    await next;
    expect(await outcome).toBe(`funding transaction ${dropped} was replaced by ${(await client.getBlock({ includeTransactions: true })).transactions[0]!.hash}`);
    expect(await client.getBalance({ address: to })).toBe(0n);
    expect(await client.getBalance({ address: other })).toBe(parseEther('1'));
  });
});
