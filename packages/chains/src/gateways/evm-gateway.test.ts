import { encodeFunctionData, keccak256, parseEther, toHex, type Address, type Hex } from 'viem';
import { generatePrivateKey, privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BroadcastRejectedError, ChainUnavailableError, type EvmGateway, type EvmReceipt } from '@wallet/domain/transactions/gateways.ts';
import { startAnvil, type AnvilInstance } from '../evm/anvil.ts';
import { fundEvmWallet } from '../evm/faucet.ts';
import { TEST_USDC_ABI, deployTestUsdc } from '../evm/test-usdc.ts';
import { startRpcFaultProxy, type RpcFaultProxy } from '../testing/index.ts';
import { createEvmGateway } from './evm-gateway.ts';

const randomAddress = (): Address => privateKeyToAccount(generatePrivateKey()).address;

let anvil: AnvilInstance;
let proxy: RpcFaultProxy;
let usdc: Address;
let gw: EvmGateway;
/** Through the fault proxy, with a short time-out. */
let viaProxy: EvmGateway;
let sender: PrivateKeyAccount;

beforeAll(async () => {
  anvil = await startAnvil({ blockTimeSeconds: 0.25 });
  usdc = await deployTestUsdc(anvil.rpcUrl, anvil.chainId);
  proxy = await startRpcFaultProxy(anvil.rpcUrl);
  gw = createEvmGateway({ chainId: anvil.chainId, rpcUrl: anvil.rpcUrl });
  viaProxy = createEvmGateway({ chainId: anvil.chainId, rpcUrl: proxy.url, timeoutMs: 1_000 });
  sender = privateKeyToAccount(generatePrivateKey());
  await fundEvmWallet({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, usdcAddress: usdc, to: sender.address, nativeWei: parseEther('1'), usdcBaseUnits: 1_000_000n });
});
afterAll(async () => {
  await proxy?.stop();
  await anvil?.stop();
});

/** Signs an EIP-1559 transaction from `account` with sane fees (nonce and gas given or fetched). */
async function signTx(
  account: PrivateKeyAccount,
  tx: { to: Address; value?: bigint; data?: Hex; nonce?: number; gas?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint; chainId?: number },
): Promise<Hex> {
  const fees = await gw.getFeeSuggestion();
  return account.signTransaction({
    type: 'eip1559',
    chainId: tx.chainId ?? anvil.chainId,
    to: tx.to,
    value: tx.value ?? 0n,
    data: tx.data,
    nonce: tx.nonce ?? (await gw.getPendingNonce(account.address)),
    gas: tx.gas ?? 21_000n,
    maxFeePerGas: tx.maxFeePerGas ?? fees.maxFeePerGas,
    maxPriorityFeePerGas: tx.maxPriorityFeePerGas ?? fees.maxPriorityFeePerGas,
  });
}

async function waitForReceipt(hash: Hex, timeoutMs = 10_000): Promise<EvmReceipt> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [r] = await gw.getReceipts([hash]);
    if (r) return r;
    if (Date.now() > deadline) throw new Error(`no receipt for ${hash}`);
    await new Promise((res) => setTimeout(res, 50));
  }
}

async function rejection(p: Promise<unknown>): Promise<BroadcastRejectedError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(BroadcastRejectedError);
  return e as BroadcastRejectedError;
}

const transferData = (to: Address, amount: bigint) => encodeFunctionData({ abi: TEST_USDC_ABI, functionName: 'transfer', args: [to, amount] });

describe('EvmGateway on anvil', () => {
  it('reads the pending nonce, estimates gas for native and ERC-20 transfers, suggests sane fees', async () => {
    expect(gw.chainId).toBe(anvil.chainId);
    expect(await gw.getPendingNonce(sender.address)).toBe(0);
    expect(await gw.getPendingNonce(randomAddress())).toBe(0);
    expect(await gw.getBalance(sender.address)).toBe(parseEther('1'));
    expect(await gw.estimateGas({ from: sender.address, to: randomAddress(), value: 1000n })).toBe(21_000n);
    const erc20 = await gw.estimateGas({ from: sender.address, to: usdc, value: 0n, data: transferData(randomAddress(), 10n) });
    expect(erc20).toBeGreaterThan(21_000n);
    expect(erc20).toBeLessThan(100_000n);

    const fees = await gw.getFeeSuggestion();
    expect(fees.baseFeePerGas).toBeGreaterThan(0n);
    expect(fees.maxFeePerGas).toBeGreaterThanOrEqual(fees.baseFeePerGas);
    expect(fees.maxFeePerGas).toBe(2n * fees.baseFeePerGas + fees.maxPriorityFeePerGas);
    expect(fees.gasPrice).toBeGreaterThan(0n);
  });

  it('estimateGas of a reverting call → BroadcastRejectedError EXECUTION_FAILED', async () => {
    const e = await rejection(gw.estimateGas({ from: sender.address, to: usdc, value: 0n, data: transferData(randomAddress(), 10n ** 18n) }));
    expect(e.code).toBe('EXECUTION_FAILED');
    expect(e.message).toMatch(/revert/);
  });

  it('broadcasts a signed transfer; receipts (batched, in order, null for unknown) and block hashes agree', async () => {
    const to = randomAddress();
    const raw = await signTx(sender, { to, value: 12345n });
    const hash = await gw.sendRawTransaction(raw);
    expect(hash).toBe(keccak256(raw));
    expect(await gw.getPendingNonce(sender.address)).toBe(1);

    const receipt = await waitForReceipt(hash);
    expect(receipt).toMatchObject({ transactionHash: hash, status: 'success', from: sender.address.toLowerCase() });
    const unknown = `0x${'ab'.repeat(32)}` as Hex;
    const both = await gw.getReceipts([unknown, hash]);
    expect(both[0]).toBeNull();
    expect(both[1]).toEqual(receipt);
    expect(await gw.getReceipts([])).toEqual([]);

    const [blockHash, beyond] = await gw.getBlockHashes([receipt.blockNumber, receipt.blockNumber + 1_000_000n]);
    expect(blockHash).toBe(receipt.blockHash);
    expect(beyond).toBeNull();
    expect(await gw.getBalance(to)).toBe(12345n);
  });

  it('a reverting ERC-20 transfer with a fixed gas limit lands with a reverted receipt', async () => {
    const raw = await signTx(sender, { to: usdc, data: transferData(randomAddress(), 10n ** 18n), gas: 100_000n });
    const hash = await gw.sendRawTransaction(raw);
    const receipt = await waitForReceipt(hash);
    expect(receipt.status).toBe('reverted');
  });

  it('getHeads: finalized ≤ latest and finalized advances as blocks are mined', async () => {
    const first = await gw.getHeads();
    expect(first.latest).toBeGreaterThan(0n);
    expect(first.finalized).toBeLessThanOrEqual(first.latest);
    const deadline = Date.now() + 10_000;
    let now = first;
    while (now.finalized <= first.finalized) {
      if (Date.now() > deadline) throw new Error('finalized did not move');
      await new Promise((r) => setTimeout(r, 100));
      now = await gw.getHeads();
    }
    expect(now.finalized).toBeLessThanOrEqual(now.latest);
    expect(now.latest).toBeGreaterThan(first.latest);
  });

  it('getNonces: latest and finalized per address, in input order', async () => {
    const fresh = randomAddress();
    const latest = await gw.getNonces([fresh, sender.address], 'latest');
    expect(latest).toEqual([0, await gw.getPendingNonce(sender.address)]);
    expect(latest[1]).toBeGreaterThanOrEqual(2);
    const finalized = await gw.getNonces([sender.address, fresh], 'finalized');
    expect(finalized[0]).toBeLessThanOrEqual(latest[1]!);
    expect(finalized[1]).toBe(0);
    expect(await gw.getNonces([], 'latest')).toEqual([]);
  });

  it('maps node refusals to BroadcastRejectedError codes', async () => {
    const poor = privateKeyToAccount(generatePrivateKey());
    expect((await rejection(gw.sendRawTransaction(await signTx(poor, { to: sender.address, value: 1n })))).code).toBe('INSUFFICIENT_NATIVE_BALANCE');

    const account = privateKeyToAccount(generatePrivateKey());
    await fundEvmWallet({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, usdcAddress: usdc, to: account.address, nativeWei: parseEther('0.1') });
    // Nonce 1 first: it waits in the pool behind the missing nonce 0 however fast blocks come (a
    // nonce-0 transaction could be mined before the next send on a loaded machine).
    const first = await signTx(account, { to: randomAddress(), value: 1n, nonce: 1 });
    const hash = await gw.sendRawTransaction(first);
    // The identical transaction again, while it is pending: ALREADY_PROCESSED (it has been broadcast).
    const dup = await rejection(gw.sendRawTransaction(first));
    expect(dup.code).toBe('ALREADY_PROCESSED');
    // Known while queued in the pool; a hash never sent is not.
    expect(await gw.getTransactionsKnown([hash, keccak256(toHex(randomAddress()))])).toEqual([true, false]);
    // Same nonce, same fees, different content while the first is pending.
    const replacement = await rejection(gw.sendRawTransaction(await signTx(account, { to: randomAddress(), value: 2n, nonce: 1 })));
    expect(replacement.code).toBe('REPLACEMENT_UNDERPRICED');
    await gw.sendRawTransaction(await signTx(account, { to: randomAddress(), value: 1n, nonce: 0 }));
    await waitForReceipt(hash);
    expect(await gw.getTransactionsKnown([hash])).toEqual([true]); // mined
    expect(await gw.getTransactionsKnown([])).toEqual([]);
    expect((await rejection(gw.sendRawTransaction(await signTx(account, { to: randomAddress(), value: 3n, nonce: 0 })))).code).toBe('NONCE_TOO_LOW');

    const tooCheap = await rejection(gw.sendRawTransaction(await signTx(account, { to: randomAddress(), value: 1n, maxFeePerGas: 1n, maxPriorityFeePerGas: 1n })));
    expect(tooCheap.code).toBe('FEE_TOO_LOW');
    const lowGas = await rejection(gw.sendRawTransaction(await signTx(account, { to: randomAddress(), value: 1n, gas: 20_000n })));
    expect(lowGas.code).toBe('GAS_LIMIT_TOO_LOW');
    const wrongChain = await rejection(gw.sendRawTransaction(await signTx(account, { to: randomAddress(), value: 1n, chainId: 1 })));
    expect(wrongChain.code).toBe('INVALID_TRANSACTION');
    expect((await rejection(gw.sendRawTransaction('0x1234'))).code).toBe('INVALID_TRANSACTION');
    // None of these spent a nonce (0 and 1 are mined).
    expect(await gw.getPendingNonce(account.address)).toBe(2);
  });

  it('each monitor call is one HTTP request (a JSON-RPC batch)', async () => {
    proxy.setMode('pass');
    const pass = createEvmGateway({ chainId: anvil.chainId, rpcUrl: proxy.url });
    const hashes = [`0x${'01'.repeat(32)}`, `0x${'02'.repeat(32)}`, `0x${'03'.repeat(32)}`] as Hex[];
    const count = async (fn: () => Promise<unknown>) => {
      const before = proxy.requests;
      const methodsBefore = proxy.methods.length;
      await fn();
      return { requests: proxy.requests - before, methods: proxy.methods.slice(methodsBefore) };
    };
    expect(await count(() => pass.getHeads())).toEqual({ requests: 1, methods: ['eth_blockNumber', 'eth_getBlockByNumber'] });
    expect(await count(() => pass.getReceipts(hashes))).toEqual({ requests: 1, methods: Array(3).fill('eth_getTransactionReceipt') });
    expect(await count(() => pass.getBlockHashes([0n, 1n, 2n, 3n]))).toEqual({ requests: 1, methods: Array(4).fill('eth_getBlockByNumber') });
    expect(await count(() => pass.getNonces([sender.address, randomAddress()], 'finalized'))).toEqual({
      requests: 1,
      methods: ['eth_getTransactionCount', 'eth_getTransactionCount'],
    });
    expect((await count(() => pass.getFeeSuggestion())).requests).toBe(1);
    let both: Awaited<ReturnType<EvmGateway['getHeadsAndFees']>> | undefined;
    expect(await count(async () => (both = await pass.getHeadsAndFees()))).toEqual({
      requests: 1,
      methods: ['eth_blockNumber', 'eth_getBlockByNumber', 'eth_getBlockByNumber', 'eth_gasPrice', 'eth_maxPriorityFeePerGas'],
    });
    expect(both!.finalized).toBeLessThanOrEqual(both!.latest);
    expect(both!.fees).toMatchObject({ baseFeePerGas: expect.any(BigInt), maxPriorityFeePerGas: expect.any(BigInt) });
    expect(both!.fees!.maxFeePerGas).toBe(2n * both!.fees!.baseFeePerGas + both!.fees!.maxPriorityFeePerGas);

    // Beyond maxBatchSize the input is split, and the answers stay in input order.
    const small = createEvmGateway({ chainId: anvil.chainId, rpcUrl: proxy.url, maxBatchSize: 2 });
    const heights = [0n, 1n, 2n, 3n, 4n];
    let split: (Hex | null)[] = [];
    expect((await count(async () => (split = await small.getBlockHashes(heights)))).requests).toBe(3);
    expect(split).toEqual(await gw.getBlockHashes(heights));
  });

  it('callAtLatestBlock: reads and simulations at one block, a revert as a result with its data, an outage as an error', async () => {
    const balanceOf = (owner: Address) => encodeFunctionData({ abi: TEST_USDC_ABI, functionName: 'balanceOf', args: [owner] });
    const stranger = randomAddress();
    const before = await gw.getHeads();
    const snapshot = await gw.callAtLatestBlock([
      { to: usdc, data: balanceOf(sender.address) },
      // A transfer of more than the balance, simulated from the sender: ERC20InsufficientBalance.
      { from: sender.address, to: usdc, data: transferData(stranger, 10n ** 30n) },
      { from: sender.address, to: usdc, data: transferData(stranger, 1n) },
      { to: stranger, data: balanceOf(stranger) },
    ]);
    expect(snapshot.blockNumber).toBeGreaterThanOrEqual(before.latest);
    expect(Number(snapshot.blockTimestamp)).toBeGreaterThan(Date.UTC(2026, 0, 1) / 1000);
    const [balance, tooMuch, fine, noCode] = snapshot.results;
    expect(balance).toEqual({ ok: true, data: `0x${(1_000_000n).toString(16).padStart(64, '0')}` });
    expect(tooMuch).toMatchObject({ ok: false, message: expect.stringMatching(/revert/i) });
    // OpenZeppelin 5's custom error ERC20InsufficientBalance(address,uint256,uint256): selector 0xe450d38c.
    expect(tooMuch!.ok === false && tooMuch!.revertData?.slice(0, 10)).toBe('0xe450d38c');
    expect(fine).toEqual({ ok: true, data: `0x${'1'.padStart(64, '0')}` });
    // A call to an address without code answers no data.
    expect(noCode).toEqual({ ok: true, data: '0x' });
    // A simulation writes nothing.
    expect((await gw.callAtLatestBlock([{ to: usdc, data: balanceOf(stranger) }])).results[0]).toEqual({ ok: true, data: `0x${'0'.repeat(64)}` });
    try {
      proxy.setMode({ failMethods: ['eth_call'] });
      await expect(viaProxy.callAtLatestBlock([{ to: usdc, data: balanceOf(sender.address) }])).rejects.toBeInstanceOf(ChainUnavailableError);
      proxy.setMode('drop');
      await expect(viaProxy.callAtLatestBlock([])).rejects.toBeInstanceOf(ChainUnavailableError);
    } finally {
      proxy.setMode('pass');
    }
  });

  it("callAtLatestBlock at a given block: a second round at the first round's block, after the chain moved on", async () => {
    const balanceOf = (owner: Address) => encodeFunctionData({ abi: TEST_USDC_ABI, functionName: 'balanceOf', args: [owner] });
    const stranger = randomAddress();
    const first = await gw.callAtLatestBlock([{ to: usdc, data: balanceOf(stranger) }]);
    expect(first.results[0]).toEqual({ ok: true, data: `0x${'0'.repeat(64)}` });
    // The stranger receives 7 base units in a later block.
    const receipt = await waitForReceipt(await gw.sendRawTransaction(await signTx(sender, { to: usdc, data: transferData(stranger, 7n), gas: 100_000n })));
    expect(receipt.blockNumber).toBeGreaterThan(first.blockNumber);
    // Blocks come every 0.25 s: wait for one a second later, so that the timestamps differ.
    let later = await gw.callAtLatestBlock([{ to: usdc, data: balanceOf(stranger) }]);
    while (later.blockTimestamp === first.blockTimestamp) {
      await new Promise((res) => setTimeout(res, 100));
      later = await gw.callAtLatestBlock([{ to: usdc, data: balanceOf(stranger) }]);
    }
    expect(later.results[0]).toEqual({ ok: true, data: `0x${'7'.padStart(64, '0')}` });

    // At the first block: that block's number, timestamp and state, and a simulation there too.
    const again = await gw.callAtLatestBlock(
      [
        { to: usdc, data: balanceOf(stranger) },
        { from: stranger, to: usdc, data: transferData(sender.address, 1n) },
      ],
      { blockNumber: first.blockNumber },
    );
    expect(again.blockNumber).toBe(first.blockNumber);
    expect(again.blockTimestamp).toBe(first.blockTimestamp);
    expect(again.results[0]).toEqual(first.results[0]);
    expect(again.results[1]).toMatchObject({ ok: false, revertData: expect.stringMatching(/^0xe450d38c/) });
    // The same simulation at the later block succeeds: the stranger holds 7 there.
    expect((await gw.callAtLatestBlock([{ from: stranger, to: usdc, data: transferData(sender.address, 1n) }], { blockNumber: later.blockNumber })).results[0]).toMatchObject({ ok: true });
    // A block the node does not have is an outage, not an empty answer.
    await expect(gw.callAtLatestBlock([{ to: usdc, data: balanceOf(stranger) }], { blockNumber: later.blockNumber + 1_000_000n })).rejects.toBeInstanceOf(ChainUnavailableError);
  });

  it("through the fault proxy: 'drop', 'http500' and a delay beyond the time-out → ChainUnavailableError", async () => {
    const raw = await signTx(sender, { to: randomAddress(), value: 1n });
    try {
      for (const mode of ['drop', 'http500', { delayMs: 2_500 }] as const) {
        proxy.setMode(mode);
        await expect(viaProxy.getHeads(), JSON.stringify(mode)).rejects.toBeInstanceOf(ChainUnavailableError);
        await expect(viaProxy.getReceipts([`0x${'01'.repeat(32)}`]), JSON.stringify(mode)).rejects.toBeInstanceOf(ChainUnavailableError);
        await expect(viaProxy.getPendingNonce(sender.address), JSON.stringify(mode)).rejects.toBeInstanceOf(ChainUnavailableError);
        await expect(viaProxy.getFeeSuggestion(), JSON.stringify(mode)).rejects.toBeInstanceOf(ChainUnavailableError);
      }
      proxy.setMode('drop');
      await expect(viaProxy.sendRawTransaction(raw)).rejects.toBeInstanceOf(ChainUnavailableError);
      proxy.setMode({ delayMs: 2_500 });
      await expect(viaProxy.estimateGas({ from: sender.address, to: randomAddress(), value: 1n })).rejects.toBeInstanceOf(ChainUnavailableError);

      // JSON-RPC internal error for one method only, element-wise inside batches.
      proxy.setMode({ failMethods: ['eth_getTransactionReceipt', 'eth_sendRawTransaction'] });
      await expect(viaProxy.getReceipts([`0x${'01'.repeat(32)}`])).rejects.toBeInstanceOf(ChainUnavailableError);
      await expect(viaProxy.sendRawTransaction(raw)).rejects.toBeInstanceOf(ChainUnavailableError);
      const heads = await viaProxy.getHeads();
      expect(heads.finalized).toBeLessThanOrEqual(heads.latest);
      proxy.setMode({ failMethods: ['eth_blockNumber'] });
      await expect(viaProxy.getHeads()).rejects.toThrow(/eth_blockNumber/);
      await expect(viaProxy.getHeads()).rejects.toBeInstanceOf(ChainUnavailableError);
      await expect(viaProxy.getHeadsAndFees()).rejects.toBeInstanceOf(ChainUnavailableError);
      // The fee reads failing leave the heads standing, without fees.
      proxy.setMode({ failMethods: ['eth_gasPrice'] });
      const withoutFees = await viaProxy.getHeadsAndFees();
      expect(withoutFees.fees).toBeNull();
      expect(withoutFees.finalized).toBeLessThanOrEqual(withoutFees.latest);
    } finally {
      proxy.setMode('pass');
    }
    // Back to normal: the transaction that was never delivered can be sent now.
    expect(await viaProxy.sendRawTransaction(raw)).toBe(keccak256(raw));
  });
});
