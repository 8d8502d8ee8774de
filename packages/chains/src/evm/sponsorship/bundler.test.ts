import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { concat, createPublicClient, decodeErrorResult, getAbiItem, http, parseEther, type Address, type Hex, type LocalAccount, type PublicClient } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startAlto, type AltoInstance } from '../../testing/alto.ts';
import { startAnvil, type AnvilInstance } from '../anvil.ts';
import { localChain } from '../dev-account.ts';
import { fundEvmWallet } from '../faucet.ts';
import { deployTestUsdc } from '../test-usdc.ts';
import { ERC20_ABI } from '../yield/abis.ts';
import { withAutomine } from '../yield/send.ts';
import { authorizationHash, signedAuthorization } from './authorization.ts';
import { ERC20_TRANSFER_ABI } from './constants.ts';
import { bundlerRequest, BundlerRpcError, BundlerUnreachableError } from './bundler-rpc.ts';
import { bundlerGasPrice, estimateUserOperationGas, getUserOperationReceipt, sendUserOperation, type BundlerUserOperationReceipt } from './bundler.ts';
import { readDelegation } from './delegation.ts';
import { ensureSponsorshipContracts, type SponsorshipDeployment } from './deploy.ts';
import { entryPointNonce } from './entry-point-nonce.ts';
import { findUserOperationEvent } from './find-user-operation-event.ts';
import { userOperationHash, withOwnerSignature } from './owner-signature.ts';
import { UserOperationRejectedError, UserOperationRevertedError } from './rejection.ts';
import { parseUserOperation, serializeUserOperation } from './serialize.ts';
import { sponsorshipDigest, sponsorshipHash, withSponsorSignature } from './sponsorship-hash.ts';
import { buildSponsoredTransfer } from './user-operation.ts';
import { userOperationOutcome } from './user-operation-outcome.ts';

const USDC = 1_000_000n;
const dir = mkdtempSync(path.join(tmpdir(), 'bundler-'));

let anvil: AnvilInstance;
let pub: PublicClient;
let d: SponsorshipDeployment;
let usdc: Address;
let sponsor: LocalAccount;
let alto: AltoInstance;
const figures: string[] = [];

beforeAll(async () => {
  anvil = await startAnvil({ blockTimeSeconds: 1 });
  pub = createPublicClient({ chain: localChain(anvil.rpcUrl, anvil.chainId), transport: http(anvil.rpcUrl), pollingInterval: 50 });
  usdc = await deployTestUsdc(anvil.rpcUrl, anvil.chainId);
  sponsor = privateKeyToAccount(generatePrivateKey());
  d = (await ensureSponsorshipContracts(anvil.rpcUrl, path.join(dir, 'sponsorship.json'), { sponsorAddress: sponsor.address, depositWei: parseEther('10') })).deployment;
  const executorPrivateKey = generatePrivateKey();
  const utilityPrivateKey = generatePrivateKey();
  for (const key of [executorPrivateKey, utilityPrivateKey]) {
    await fundEvmWallet({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, usdcAddress: usdc, to: privateKeyToAccount(key).address, nativeWei: parseEther('10') });
  }
  // alto deploys its four simulation contracts one receipt after the other on its first start:
  // automine spares the file four 1 s blocks (the restart below measures a start without them).
  alto = await withAutomine(anvil.rpcUrl, () => startAlto({ rpcUrl: anvil.rpcUrl, entryPoint: d.entryPoint, executorPrivateKey, utilityPrivateKey }));
  figures.push(`alto first start (simulation contracts deployed under automine): ${alto.startupMs.toFixed(0)} ms, RSS ${(alto.rssBytes() / 2 ** 20).toFixed(0)} MiB`);
});
afterEach((ctx) => {
  if (ctx.task.result?.state === 'fail' && alto) console.log(`alto logs: ${alto.writeLogs()}`);
});
afterAll(async () => {
  if (alto) figures.push(`alto RSS at the end: ${(alto.rssBytes() / 2 ** 20).toFixed(0)} MiB`);
  console.log(figures.join('\n'));
  await alto?.stop();
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const usdcBalance = (who: Address) => pub.readContract({ address: usdc, abi: ERC20_ABI, functionName: 'balanceOf', args: [who] });
const depositOf = () => pub.readContract({ address: d.entryPoint, abi: entryPoint08Abi, functionName: 'balanceOf', args: [d.paymaster] });
const nonceOf = (sender: Address) => entryPointNonce(anvil.rpcUrl, d.entryPoint, sender);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function usdcOnlyWallet(amount: bigint): Promise<LocalAccount> {
  const wallet = privateKeyToAccount(generatePrivateKey());
  await fundEvmWallet({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, usdcAddress: usdc, to: wallet.address, usdcBaseUnits: amount });
  return wallet;
}

/** What the service does: authorization if needed, the bundler's fees and gas limits, sponsor, owner, store. */
async function sponsoredTransfer(wallet: LocalAccount, recipient: Address, amount: bigint, o: { feeDivisor?: bigint } = {}) {
  const delegation = await readDelegation(anvil.rpcUrl, wallet.address, d.delegate);
  let authorization;
  if (!delegation.delegated) {
    const params = { chainId: anvil.chainId, delegate: d.delegate, nonce: delegation.nonce };
    authorization = signedAuthorization(params, await wallet.sign!({ hash: authorizationHash(params) }));
  }
  const { standard } = await bundlerGasPrice(alto.url);
  const base = {
    sender: wallet.address,
    token: usdc,
    recipient,
    amount,
    nonce: await nonceOf(wallet.address),
    paymaster: d.paymaster,
    maxFeePerGas: standard.maxFeePerGas / (o.feeDivisor ?? 1n),
    maxPriorityFeePerGas: standard.maxPriorityFeePerGas / (o.feeDivisor ?? 1n),
    ...(authorization ? { authorization } : {}),
  };
  const gasLimits = await estimateUserOperationGas(alto.url, buildSponsoredTransfer(base), d.entryPoint);
  let op = buildSponsoredTransfer({ ...base, gasLimits });
  const window = { validUntil: Math.floor(Date.now() / 1000) + 600, validAfter: 0 };
  op = withSponsorSignature(op, { ...window, signature: await sponsor.sign!({ hash: sponsorshipDigest(sponsorshipHash(op, { ...window, chainId: anvil.chainId })) }) });
  const userOpHash = userOperationHash(op, anvil.chainId, d.entryPoint);
  op = withOwnerSignature(op, await wallet.sign!({ hash: userOpHash }));
  const stored = serializeUserOperation(op);
  return { op: parseUserOperation(stored), stored, userOpHash, gasLimits };
}

async function receiptOf(userOpHash: Hex, timeoutMs = 15_000): Promise<BundlerUserOperationReceipt> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const receipt = await getUserOperationReceipt(alto.url, userOpHash);
    if (receipt) return receipt;
    if (Date.now() > deadline) throw new Error(`no receipt for ${userOpHash} within ${timeoutMs} ms`);
    await sleep(50);
  }
}

async function blocksPass(n: number): Promise<void> {
  const target = (await pub.getBlockNumber({ cacheTime: 0 })) + BigInt(n);
  while ((await pub.getBlockNumber({ cacheTime: 0 })) < target) await sleep(100);
}

const USER_OPERATION_EVENT = getAbiItem({ abi: entryPoint08Abi, name: 'UserOperationEvent' });
const eventsOf = (userOpHash: Hex, fromBlock: bigint) =>
  pub.getLogs({ address: d.entryPoint, event: USER_OPERATION_EVENT, args: { userOpHash }, fromBlock, toBlock: 'latest' });

async function pendingTransactions(): Promise<bigint> {
  const status = await pub.request<{ Method: 'txpool_status'; Parameters: []; ReturnType: { pending: Hex } }>({ method: 'txpool_status', params: [] });
  return BigInt(status.pending);
}

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((xs.length * p) / 100))]!;

describe('sponsored ERC-20 transfers through a real alto bundler (EntryPoint v0.8, Simple7702Account, SingletonPaymasterV8)', () => {
  let wallet: LocalAccount;
  const recipient = privateKeyToAccount(generatePrivateKey()).address;
  const included: { stored: string; userOpHash: Hex }[] = [];

  it('first transfer from a 0-ETH wallet: estimated, sponsored, signed, sent with its 7702 authorization, included', async () => {
    wallet = await usdcOnlyWallet(100n * USDC);
    const depositBefore = await depositOf();
    const fromBlock = await pub.getBlockNumber({ cacheTime: 0 });
    const { op, stored, userOpHash, gasLimits } = await sponsoredTransfer(wallet, recipient, 7n * USDC);
    expect(op.authorization).toBeDefined();
    expect(op.nonce).toBe(0n);
    for (const limit of [gasLimits.callGasLimit, gasLimits.verificationGasLimit, gasLimits.preVerificationGas, gasLimits.paymasterVerificationGasLimit]) expect(limit).toBeGreaterThan(0n);

    const sentAt = performance.now();
    expect(await sendUserOperation(alto.url, op, d.entryPoint)).toBe(userOpHash);
    const receipt = await receiptOf(userOpHash);
    const latency = performance.now() - sentAt;
    expect(receipt).toMatchObject({ userOpHash, sender: wallet.address, nonce: 0n, success: true });
    included.push({ stored, userOpHash });

    expect(await usdcBalance(recipient)).toBe(7n * USDC);
    expect(await usdcBalance(wallet.address)).toBe(93n * USDC);
    expect(await pub.getBalance({ address: wallet.address })).toBe(0n);
    expect(await pub.getCode({ address: wallet.address })).toBe(concat(['0xef0100', d.delegate.toLowerCase() as Address]));
    const tx = await pub.getTransactionReceipt({ hash: receipt.transactionHash });
    expect(tx).toMatchObject({ status: 'success', type: 'eip7702', blockNumber: receipt.blockNumber, blockHash: receipt.blockHash });
    expect(await depositOf()).toBe(depositBefore - receipt.actualGasCost);
    expect(await nonceOf(wallet.address)).toBe(1n);

    const expectation = { userOpHash, token: usdc, from: wallet.address, to: recipient, amount: 7n * USDC, entryPoint: d.entryPoint };
    expect(userOperationOutcome(receipt, expectation)).toEqual({
      success: true,
      actualGasCost: receipt.actualGasCost.toString(),
      actualGasUsed: receipt.actualGasUsed.toString(),
      nonce: '0',
      transferProven: true,
    });
    expect(userOperationOutcome(receipt, { ...expectation, amount: 8n * USDC })?.transferProven).toBe(false);
    expect(await findUserOperationEvent(anvil.rpcUrl, d.entryPoint, userOpHash, fromBlock)).toMatchObject({ txHash: receipt.transactionHash, success: true, actualGasCost: receipt.actualGasCost });
    figures.push(
      `first op (7702 auth): send → receipt ${latency.toFixed(0)} ms; tx gasUsed ${tx.gasUsed}, actualGasUsed ${receipt.actualGasUsed}, actualGasCost ${receipt.actualGasCost} wei; ` +
        `limits call ${gasLimits.callGasLimit} verif ${gasLimits.verificationGasLimit} PVG ${gasLimits.preVerificationGas} pmVerif ${gasLimits.paymasterVerificationGasLimit} postOp ${gasLimits.paymasterPostOpGasLimit}`,
    );
  });

  it('later transfers carry no authorization: 4 sequential ops, each raises the EntryPoint nonce by one', async () => {
    const latencies: number[] = [];
    const gas: string[] = [];
    for (let i = 1n; i <= 4n; i++) {
      // A fresh recipient each time, as in the relayer's gas figures (a first balance costs a new storage slot).
      const to = privateKeyToAccount(generatePrivateKey()).address;
      const { op, stored, userOpHash, gasLimits } = await sponsoredTransfer(wallet, to, USDC);
      expect(op.authorization).toBeUndefined();
      expect(op.nonce).toBe(i);
      const sentAt = performance.now();
      expect(await sendUserOperation(alto.url, op, d.entryPoint)).toBe(userOpHash);
      const receipt = await receiptOf(userOpHash);
      latencies.push(performance.now() - sentAt);
      included.push({ stored, userOpHash });
      expect(receipt).toMatchObject({ success: true, nonce: i });
      const tx = await pub.getTransactionReceipt({ hash: receipt.transactionHash });
      expect(tx.type).toBe('eip1559');
      expect(userOperationOutcome(receipt, { userOpHash, token: usdc, from: wallet.address, to, amount: USDC, entryPoint: d.entryPoint })).toMatchObject({
        success: true,
        transferProven: true,
      });
      expect(await nonceOf(wallet.address)).toBe(i + 1n);
      expect(await usdcBalance(to)).toBe(USDC);
      gas.push(`tx ${tx.gasUsed} / actual ${receipt.actualGasUsed} (PVG ${gasLimits.preVerificationGas})`);
    }
    expect(await usdcBalance(wallet.address)).toBe(89n * USDC);
    expect(await pub.getBalance({ address: wallet.address })).toBe(0n);
    figures.push(`later ops: send → receipt p50 ${percentile(latencies, 50).toFixed(0)} ms, max ${Math.max(...latencies).toFixed(0)} ms (${latencies.map((l) => l.toFixed(0)).join(', ')}); gas ${gas.join('; ')}`);
  });

  it('resending an included op (with or without its authorization) is refused with AA25 and changes nothing', async () => {
    const before = { nonce: await nonceOf(wallet.address), deposit: await depositOf(), recipient: await usdcBalance(recipient) };
    for (const { stored } of [included[0]!, included[included.length - 1]!]) {
      const refused = await sendUserOperation(alto.url, parseUserOperation(stored), d.entryPoint).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(UserOperationRejectedError);
      expect(refused).toMatchObject({ code: 'AA25', reason: 'AA25 invalid account nonce', bundler: { method: 'eth_sendUserOperation', rpcCode: -32500 } });
    }
    await blocksPass(1);
    expect({ nonce: await nonceOf(wallet.address), deposit: await depositOf(), recipient: await usdcBalance(recipient) }).toEqual(before);
  });

  it('a transfer above the balance is refused by estimation with the token revert reason; nothing is paid', async () => {
    const poor = await usdcOnlyWallet(5n * USDC);
    const depositBefore = await depositOf();
    const refused = await sponsoredTransfer(poor, recipient, 50n * USDC).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UserOperationRevertedError);
    const { revertReason, bundler } = refused as UserOperationRevertedError;
    expect(bundler).toMatchObject({ method: 'eth_estimateUserOperationGas', rpcCode: -32521 });
    const decoded = decodeErrorResult({ abi: ERC20_TRANSFER_ABI, data: revertReason });
    expect(decoded).toMatchObject({ errorName: 'ERC20InsufficientBalance', args: [poor.address, 5n * USDC, 50n * USDC] });
    await blocksPass(1);
    expect(await depositOf()).toBe(depositBefore);
    expect(await nonceOf(poor.address)).toBe(0n);
    expect(await usdcBalance(poor.address)).toBe(5n * USDC);
  });

  it('fees below the bundler price are refused with a BundlerRpcError (code and message), not an EntryPoint code', async () => {
    const other = await usdcOnlyWallet(5n * USDC);
    const { op } = await sponsoredTransfer(other, recipient, USDC, { feeDivisor: 4n });
    const refused = await sendUserOperation(alto.url, op, d.entryPoint).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(BundlerRpcError);
    expect(refused).toMatchObject({ method: 'eth_sendUserOperation', rpcCode: -32602, rpcMessage: expect.stringMatching(/^maxFeePerGas must be at least \d+/) as unknown });
    await blocksPass(1);
    expect(await nonceOf(other.address)).toBe(0n);
  });

  /**
   * The service after a crash of the bundler (or of itself) between eth_sendUserOperation and a
   * receipt: wait until whatever the dead bundler broadcast is mined, then look for the op's event;
   * if there is none and the EntryPoint nonce is still the op's, resend the same stored bytes.
   */
  async function recover(stored: string, userOpHash: Hex, fromBlock: bigint): Promise<'included' | 'resent'> {
    await blocksPass(2);
    if (await findUserOperationEvent(anvil.rpcUrl, d.entryPoint, userOpHash, fromBlock)) return 'included';
    const op = parseUserOperation(stored);
    expect(await nonceOf(op.sender)).toBe(op.nonce);
    expect(await sendUserOperation(alto.url, op, d.entryPoint)).toBe(userOpHash);
    return 'resent';
  }

  it('alto SIGKILLed before bundling the op: after the restart it is gone, and the same stored op lands exactly once', async () => {
    const payer = await usdcOnlyWallet(10n * USDC);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const fromBlock = await pub.getBlockNumber({ cacheTime: 0 });
    const { stored, userOpHash } = await sponsoredTransfer(payer, to, 2n * USDC);
    // Hold the op in alto's mempool (no bundle) so that the kill certainly lands before inclusion.
    expect(await bundlerRequest(alto.url, 'debug_bundler_setBundlingMode', ['manual'])).toBe('ok');
    expect(await sendUserOperation(alto.url, parseUserOperation(stored), d.entryPoint)).toBe(userOpHash);
    await alto.kill();
    await expect(getUserOperationReceipt(alto.url, userOpHash)).rejects.toBeInstanceOf(BundlerUnreachableError);
    await expect(sendUserOperation(alto.url, parseUserOperation(stored), d.entryPoint)).rejects.toThrow(/no answer from the bundler to eth_sendUserOperation: ECONNREFUSED/);
    await alto.restart();
    figures.push(`alto restart (simulation contracts present, 1 s blocks): ${alto.startupMs.toFixed(0)} ms`);
    expect(await getUserOperationReceipt(alto.url, userOpHash)).toBeNull();

    expect(await recover(stored, userOpHash, fromBlock)).toBe('resent');
    const receipt = await receiptOf(userOpHash);
    expect(receipt).toMatchObject({ success: true, nonce: 0n });
    expect(await nonceOf(payer.address)).toBe(1n);
    expect(await eventsOf(userOpHash, fromBlock)).toHaveLength(1);
    expect(await usdcBalance(to)).toBe(2n * USDC);
  });

  it('alto SIGKILLed with its bundle transaction in the node pool: after the restart the op is found included, a resend is refused', async () => {
    const payer = await usdcOnlyWallet(10n * USDC);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const fromBlock = await pub.getBlockNumber({ cacheTime: 0 });
    const { stored, userOpHash } = await sponsoredTransfer(payer, to, 3n * USDC);
    expect(await sendUserOperation(alto.url, parseUserOperation(stored), d.entryPoint)).toBe(userOpHash);
    const deadline = Date.now() + 5_000;
    while ((await pendingTransactions()) === 0n) {
      if (Date.now() > deadline) throw new Error('alto broadcast no bundle within 5 s');
      await sleep(10);
    }
    await alto.kill();
    await alto.restart();

    expect(await recover(stored, userOpHash, fromBlock)).toBe('included');
    expect(await nonceOf(payer.address)).toBe(1n);
    expect(await eventsOf(userOpHash, fromBlock)).toHaveLength(1);
    expect(await usdcBalance(to)).toBe(3n * USDC);
    // The new alto knows nothing of the op, yet finds its receipt in the EntryPoint's logs.
    expect(await getUserOperationReceipt(alto.url, userOpHash)).toMatchObject({ success: true, nonce: 0n });
    await expect(sendUserOperation(alto.url, parseUserOperation(stored), d.entryPoint)).rejects.toMatchObject({ code: 'AA25' });
  });
});
