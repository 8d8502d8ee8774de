import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { concat, createPublicClient, encodeFunctionData, hashMessage, http, parseEther, parseEventLogs, type Address, type LocalAccount, type PublicClient } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type AnvilInstance } from '../anvil.ts';
import { localChain } from '../dev-account.ts';
import { fundEvmWallet } from '../faucet.ts';
import { deployTestUsdc } from '../test-usdc.ts';
import { ERC20_ABI } from '../yield/abis.ts';
import { authorizationHash, signedAuthorization } from './authorization.ts';
import { readDelegation } from './delegation.ts';
import { ensureSponsorshipContracts, type SponsorshipDeployment } from './deploy.ts';
import { entryPointNonce } from './entry-point-nonce.ts';
import { findUserOperationEvent } from './find-user-operation-event.ts';
import { userOperationHash, withOwnerSignature } from './owner-signature.ts';
import { paymasterDeposit } from './paymaster-deposit.ts';
import { readSponsorshipHash } from './read-sponsorship-hash.ts';
import { UserOperationRejectedError } from './rejection.ts';
import { prepareHandleOpsTransaction } from './relayer-transaction.ts';
import { parseUserOperation, serializeUserOperation } from './serialize.ts';
import { simulateTokenTransfer } from './simulate-transfer.ts';
import { sponsorshipDigest, sponsorshipHash, withSponsorSignature } from './sponsorship-hash.ts';
import { sendRelayerTransaction } from './testing.ts';
import { buildSponsoredTransfer, packUserOperation, type SponsoredUserOperation } from './user-operation.ts';
import { userOperationOutcome } from './user-operation-outcome.ts';

const USDC = 1_000_000n;
const dir = mkdtempSync(path.join(tmpdir(), 'sponsorship-'));

let anvil: AnvilInstance;
let pub: PublicClient;
let d: SponsorshipDeployment;
let usdc: Address;
let sponsor: LocalAccount;
let relayer: LocalAccount;

beforeAll(async () => {
  anvil = await startAnvil({ blockTimeSeconds: 1 });
  pub = createPublicClient({ chain: localChain(anvil.rpcUrl, anvil.chainId), transport: http(anvil.rpcUrl), pollingInterval: 50 });
  usdc = await deployTestUsdc(anvil.rpcUrl, anvil.chainId);
  sponsor = privateKeyToAccount(generatePrivateKey());
  relayer = privateKeyToAccount(generatePrivateKey());
  d = (await ensureSponsorshipContracts(anvil.rpcUrl, path.join(dir, 'sponsorship.json'), { sponsorAddress: sponsor.address, depositWei: parseEther('10') })).deployment;
  await fundEvmWallet({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, usdcAddress: usdc, to: relayer.address, nativeWei: parseEther('1') });
});
afterAll(async () => {
  await anvil?.stop();
  rmSync(dir, { recursive: true, force: true });
});

const usdcBalance = (who: Address) => pub.readContract({ address: usdc, abi: ERC20_ABI, functionName: 'balanceOf', args: [who] });
const depositOf = () => pub.readContract({ address: d.entryPoint, abi: entryPoint08Abi, functionName: 'balanceOf', args: [d.paymaster] });
const onChainNonce = (sender: Address) => pub.readContract({ address: d.entryPoint, abi: entryPoint08Abi, functionName: 'getNonce', args: [sender, 0n] });

/** A wallet EOA holding only USDC (no ETH). */
async function usdcOnlyWallet(amount: bigint): Promise<LocalAccount> {
  const wallet = privateKeyToAccount(generatePrivateKey());
  await fundEvmWallet({ rpcUrl: anvil.rpcUrl, chainId: anvil.chainId, usdcAddress: usdc, to: wallet.address, usdcBaseUnits: amount });
  return wallet;
}

interface TransferOptions {
  sponsor?: LocalAccount;
  window?: { validUntil: number; validAfter: number };
  ownerSignsEip191?: boolean;
  /** Sign as if the chain were already at this EntryPoint nonce, without an authorization (a later op of one bundle). */
  laterInBundle?: { nonce: bigint };
}

/** Every step the service takes, with viem local accounts signing the 32-byte hashes. */
async function signedTransfer(wallet: LocalAccount, recipient: Address, amount: bigint, o: TransferOptions = {}) {
  const rpcUrl = anvil.rpcUrl;
  const chainId = anvil.chainId;
  if (!o.laterInBundle) expect(await simulateTokenTransfer(rpcUrl, { token: usdc, from: wallet.address, to: recipient, amount })).toEqual({ ok: true });
  const delegation = await readDelegation(rpcUrl, wallet.address, d.delegate);
  let authorization;
  if (!delegation.delegated && !o.laterInBundle) {
    const params = { chainId, delegate: d.delegate, nonce: delegation.nonce };
    authorization = signedAuthorization(params, await wallet.sign!({ hash: authorizationHash(params) }));
  }
  const fees = await pub.estimateFeesPerGas();
  let op = buildSponsoredTransfer({
    sender: wallet.address,
    token: usdc,
    recipient,
    amount,
    nonce: o.laterInBundle?.nonce ?? (await entryPointNonce(rpcUrl, d.entryPoint, wallet.address)),
    paymaster: d.paymaster,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    ...(authorization ? { authorization } : {}),
  });
  const window = o.window ?? { validUntil: Math.floor(Date.now() / 1000) + 600, validAfter: 0 };
  const hash = sponsorshipHash(op, { ...window, chainId });
  expect(hash).toBe(await readSponsorshipHash(rpcUrl, op, window));
  op = withSponsorSignature(op, { ...window, signature: await (o.sponsor ?? sponsor).sign!({ hash: sponsorshipDigest(hash) }) });
  const userOpHash = userOperationHash(op, chainId, d.entryPoint);
  // The EntryPoint's own hash of the packed op: it reads the delegate from the sender's code in
  // place of the 0x7702 marker, so an EOA not delegated yet gets that code as a state override.
  const stateOverride = delegation.delegated ? undefined : [{ address: wallet.address, code: concat(['0xef0100', d.delegate]) }];
  expect(await pub.readContract({ address: d.entryPoint, abi: entryPoint08Abi, functionName: 'getUserOpHash', args: [packUserOperation(op)], stateOverride })).toBe(userOpHash);
  const ownerSignature = o.ownerSignsEip191 ? await wallet.sign!({ hash: hashMessage({ raw: userOpHash }) }) : await wallet.sign!({ hash: userOpHash });
  op = withOwnerSignature(op, ownerSignature);
  const stored = serializeUserOperation(op);
  expect(serializeUserOperation(parseUserOperation(stored))).toBe(stored);
  return { op: parseUserOperation(stored), stored, userOpHash };
}

async function relay(op: SponsoredUserOperation) {
  const fromBlock = await pub.getBlockNumber({ cacheTime: 0 });
  const request = await prepareHandleOpsTransaction(anvil.rpcUrl, { op, relayer: relayer.address, entryPoint: d.entryPoint });
  const fees = await pub.estimateFeesPerGas();
  const sent = await sendRelayerTransaction(anvil.rpcUrl, relayer, request, { chainId: anvil.chainId, ...fees });
  return { ...sent, request, fromBlock };
}

describe('sponsored ERC-20 transfer through a relayer (EntryPoint v0.8, Simple7702Account, SingletonPaymasterV8)', () => {
  let wallet: LocalAccount;
  let firstStored: string;
  const recipient = privateKeyToAccount(generatePrivateKey()).address;

  it('first transfer: a wallet with 0 ETH delegates (type-4) and moves USDC; the paymaster deposit pays', async () => {
    wallet = await usdcOnlyWallet(100n * USDC);
    const depositBefore = await depositOf();
    expect(await onChainNonce(wallet.address)).toBe(0n);
    const { op, stored, userOpHash } = await signedTransfer(wallet, recipient, 7n * USDC);
    expect(op.authorization).toBeDefined();
    firstStored = stored;
    const { receipt, request, fromBlock, txHash } = await relay(op);
    expect(request.authorizationList).toHaveLength(1);
    expect(receipt.status).toBe('success');
    expect(receipt.type).toBe('eip7702');
    expect(receipt.from).toBe(relayer.address.toLowerCase());

    expect(await usdcBalance(recipient)).toBe(7n * USDC);
    expect(await usdcBalance(wallet.address)).toBe(93n * USDC);
    expect(await pub.getBalance({ address: wallet.address })).toBe(0n);
    expect(await pub.getCode({ address: wallet.address })).toBe(concat(['0xef0100', d.delegate.toLowerCase() as Address]));
    const [event] = parseEventLogs({ abi: entryPoint08Abi, eventName: 'UserOperationEvent', logs: receipt.logs });
    expect(event?.args).toMatchObject({ userOpHash, sender: wallet.address, paymaster: d.paymaster, nonce: 0n, success: true });
    const cost = event!.args.actualGasCost;
    expect(cost).toBeGreaterThan(0n);
    expect(await depositOf()).toBe(depositBefore - cost);
    expect(await paymasterDeposit(anvil.rpcUrl, d.entryPoint, d.paymaster)).toBe(depositBefore - cost);
    expect(await onChainNonce(wallet.address)).toBe(1n);
    expect(await entryPointNonce(anvil.rpcUrl, d.entryPoint, wallet.address)).toBe(1n);

    expect(userOperationOutcome(receipt, { userOpHash, token: usdc, from: wallet.address, to: recipient, amount: 7n * USDC, entryPoint: d.entryPoint })).toEqual({
      success: true,
      actualGasCost: cost.toString(),
      actualGasUsed: event!.args.actualGasUsed.toString(),
      nonce: '0',
      transferProven: true,
    });
    // Another amount or recipient is not proven by this receipt.
    expect(userOperationOutcome(receipt, { userOpHash, token: usdc, from: wallet.address, to: recipient, amount: 6n * USDC, entryPoint: d.entryPoint })?.transferProven).toBe(false);
    const found = await findUserOperationEvent(anvil.rpcUrl, d.entryPoint, userOpHash, fromBlock);
    expect(found).toMatchObject({ txHash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, success: true, actualGasCost: cost, nonce: 0n, sender: wallet.address });
    console.log(`first sponsored transfer: tx gasUsed ${receipt.gasUsed}, actualGasUsed ${event!.args.actualGasUsed}, actualGasCost ${cost} wei, relayer gas limit ${request.gas}`);
  });

  it('second transfer: no authorization (type 2), the EntryPoint nonce rises by exactly one', async () => {
    const delegation = await readDelegation(anvil.rpcUrl, wallet.address, d.delegate);
    expect(delegation).toMatchObject({ delegated: true, delegatedTo: d.delegate, isContract: false });
    const { op, userOpHash } = await signedTransfer(wallet, recipient, 3n * USDC);
    expect(op.authorization).toBeUndefined();
    expect(op.nonce).toBe(1n);
    const { receipt, request } = await relay(op);
    expect(request.authorizationList).toBeUndefined();
    expect(receipt.type).toBe('eip1559');
    expect(await usdcBalance(recipient)).toBe(10n * USDC);
    expect(await onChainNonce(wallet.address)).toBe(2n);
    expect(await pub.getBalance({ address: wallet.address })).toBe(0n);
    const outcome = userOperationOutcome(receipt, { userOpHash, token: usdc, from: wallet.address, to: recipient, amount: 3n * USDC, entryPoint: d.entryPoint });
    expect(outcome).toMatchObject({ success: true, transferProven: true, nonce: '1' });
    console.log(`later sponsored transfer: tx gasUsed ${receipt.gasUsed}, actualGasUsed ${outcome?.actualGasUsed}, actualGasCost ${outcome?.actualGasCost} wei`);
  });

  it('resending the stored op after inclusion: the EntryPoint refuses it (AA25) and nothing changes', async () => {
    const op = parseUserOperation(firstStored);
    const before = { recipient: await usdcBalance(recipient), deposit: await depositOf(), nonce: await onChainNonce(wallet.address) };
    const refused = await prepareHandleOpsTransaction(anvil.rpcUrl, { op, relayer: relayer.address, entryPoint: d.entryPoint }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UserOperationRejectedError);
    expect(refused).toMatchObject({ code: 'AA25', reason: 'AA25 invalid account nonce' });
    // Broadcast anyway (gas limit set by hand): the transaction reverts on chain.
    const data = encodeFunctionData({ abi: entryPoint08Abi, functionName: 'handleOps', args: [[packUserOperation(op)], relayer.address] });
    const forced = { to: d.entryPoint, data, gas: 500_000n, authorizationList: op.authorization ? [op.authorization] : undefined };
    const { receipt } = await sendRelayerTransaction(anvil.rpcUrl, relayer, forced, { chainId: anvil.chainId, ...(await pub.estimateFeesPerGas()) });
    expect(receipt.status).toBe('reverted');
    expect({ recipient: await usdcBalance(recipient), deposit: await depositOf(), nonce: await onChainNonce(wallet.address) }).toEqual(before);
  });

  it('simulation: a transfer above the balance fails with ERC20InsufficientBalance, a token without code fails, a dead node throws', async () => {
    const balance = await usdcBalance(wallet.address);
    const simulation = await simulateTokenTransfer(anvil.rpcUrl, { token: usdc, from: wallet.address, to: recipient, amount: balance + 1n });
    expect(simulation).toMatchObject({ ok: false, errorName: 'ERC20InsufficientBalance', errorArgs: [wallet.address, balance.toString(), (balance + 1n).toString()] });
    expect(simulation.ok || simulation.data.startsWith('0xe450d38c')).toBe(true);
    const noToken = await simulateTokenTransfer(anvil.rpcUrl, { token: recipient, from: wallet.address, to: recipient, amount: 1n });
    expect(noToken).toMatchObject({ ok: false, message: `no contract at token address ${recipient}` });
    // A node that does not answer is an error, not a refused transfer.
    await expect(simulateTokenTransfer('http://127.0.0.1:1', { token: usdc, from: wallet.address, to: recipient, amount: 1n })).rejects.toThrow();
  });

  it('a sponsorship signed by another key is refused by the paymaster (AA34)', async () => {
    const other = await usdcOnlyWallet(5n * USDC);
    const { op } = await signedTransfer(other, recipient, USDC, { sponsor: privateKeyToAccount(generatePrivateKey()) });
    await expect(prepareHandleOpsTransaction(anvil.rpcUrl, { op, relayer: relayer.address, entryPoint: d.entryPoint })).rejects.toMatchObject({ code: 'AA34' });
  });

  it('a sponsorship whose window has passed is refused by the EntryPoint (AA32)', async () => {
    const other = await usdcOnlyWallet(5n * USDC);
    const now = Math.floor(Date.now() / 1000);
    const { op } = await signedTransfer(other, recipient, USDC, { window: { validUntil: now - 60, validAfter: now - 120 } });
    await expect(prepareHandleOpsTransaction(anvil.rpcUrl, { op, relayer: relayer.address, entryPoint: d.entryPoint })).rejects.toMatchObject({ code: 'AA32' });
  });

  it('the owner signs the userOpHash raw: an EIP-191 signature of it is refused (AA24)', async () => {
    const other = await usdcOnlyWallet(5n * USDC);
    const { op } = await signedTransfer(other, recipient, USDC, { ownerSignsEip191: true });
    await expect(prepareHandleOpsTransaction(anvil.rpcUrl, { op, relayer: relayer.address, entryPoint: d.entryPoint })).rejects.toMatchObject({ code: 'AA24' });
  });

  it('two ops of one wallet in one bundle: each outcome counts only the logs of its own execution', async () => {
    const other = await usdcOnlyWallet(10n * USDC);
    const to = privateKeyToAccount(generatePrivateKey()).address;
    const first = await signedTransfer(other, to, 6n * USDC);
    // Same sender, recipient and amount; it reverts (4 USDC left), so only the first Transfer exists.
    const second = await signedTransfer(other, to, 6n * USDC, { laterInBundle: { nonce: 1n } });
    const data = encodeFunctionData({ abi: entryPoint08Abi, functionName: 'handleOps', args: [[packUserOperation(first.op), packUserOperation(second.op)], relayer.address] });
    const { receipt } = await sendRelayerTransaction(
      anvil.rpcUrl,
      relayer,
      { to: d.entryPoint, data, gas: 800_000n, authorizationList: [first.op.authorization!] },
      { chainId: anvil.chainId, ...(await pub.estimateFeesPerGas()) },
    );
    expect(receipt.status).toBe('success');
    expect(await usdcBalance(to)).toBe(6n * USDC);
    expect(await onChainNonce(other.address)).toBe(2n);
    const expectation = { token: usdc, from: other.address, to, amount: 6n * USDC, entryPoint: d.entryPoint };
    expect(userOperationOutcome(receipt, { ...expectation, userOpHash: first.userOpHash })).toMatchObject({ success: true, transferProven: true, nonce: '0' });
    const failed = userOperationOutcome(receipt, { ...expectation, userOpHash: second.userOpHash });
    expect(failed).toMatchObject({ success: false, transferProven: false, nonce: '1' });
    expect(BigInt(failed!.actualGasCost)).toBeGreaterThan(0n);
    expect(failed!.revertReason?.slice(0, 10)).toBe('0xe450d38c'); // ERC20InsufficientBalance
    expect(userOperationOutcome(receipt, { ...expectation, userOpHash: `0x${'ab'.repeat(32)}` })).toBeUndefined();
  });
});
