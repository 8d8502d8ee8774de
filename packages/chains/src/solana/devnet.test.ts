import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  appendTransactionMessageInstruction,
  appendTransactionMessageInstructions,
  blockhash,
  compileTransactionMessage,
  createSolanaRpc,
  devnet as devnetClusterUrl,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getCompiledTransactionMessageEncoder,
  getSignatureFromTransaction,
  isSolanaError,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  signTransactionMessageWithSigners,
  signature as toSignature,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Nonce,
  type Signature,
  type TransactionMessageBytesBase64,
} from '@solana/kit';
import {
  NonceState,
  SYSTEM_PROGRAM_ADDRESS,
  fetchNonce,
  getCreateAccountInstruction,
  getInitializeNonceAccountInstruction,
  getNonceSize,
  getTransferSolInstruction,
} from '@solana-program/system';
import { createSolanaGateway } from '../gateways/solana-gateway.ts';
import { fundSolanaWallet, startSolanaDevnet, type SolanaDevnet } from './devnet.ts';
import { TOKEN_PROGRAM_ADDRESS, USDC_DECIMALS, getAssociatedTokenAddress, getTransferTokenInstructions } from './spl.ts';

const connect = (url: string) => createSolanaRpc(devnetClusterUrl(url)); // devnet-typed: exposes requestAirdrop
type Rpc = ReturnType<typeof connect>;
const SOL = 1_000_000_000n;

let devnet: SolanaDevnet;
let rpc: Rpc;

beforeAll(async () => {
  devnet = await startSolanaDevnet({ slotMs: 100 });
  rpc = connect(devnet.rpcUrl);
});
afterAll(async () => {
  await devnet?.stop();
});

async function rawCall(body: unknown, url = devnet.rpcUrl): Promise<any> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return res.json();
}

async function signedTx(payer: KeyPairSigner, instructions: Instruction[], hash?: string) {
  const latest = hash
    ? { blockhash: blockhash(hash), lastValidBlockHeight: 0n }
    : (await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value;
  const tx = await pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayerSigner(payer, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
    (m) => appendTransactionMessageInstructions(instructions, m),
    (m) => signTransactionMessageWithSigners(m),
  );
  return { wire: getBase64EncodedWireTransaction(tx), signature: getSignatureFromTransaction(tx) };
}

/** Poll getSignatureStatuses until `level`, returning every confirmationStatus observed along the way. */
async function waitForStatus(sig: Signature, level: 'confirmed' | 'finalized', timeoutMs = 10_000) {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const { value } = await rpc.getSignatureStatuses([sig]).send();
    const st = value[0];
    if (st?.confirmationStatus && seen.at(-1) !== st.confirmationStatus) seen.push(st.confirmationStatus);
    if (st && (st.confirmationStatus === level || st.confirmationStatus === 'finalized')) return { status: st, seen };
    if (Date.now() > deadline) throw new Error(`timeout waiting for ${sig} to be ${level}; seen ${seen.join(',')}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

function randomBase58(bytes: number): string {
  return getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(bytes)));
}

describe('solana devnet (LiteSVM behind JSON-RPC)', () => {
  it('answers basic node methods through kit', async () => {
    expect(await rpc.getHealth().send()).toBe('ok');
    expect((await rpc.getVersion().send())['solana-core']).toMatch(/^2\./);
    expect(typeof (await rpc.getGenesisHash().send())).toBe('string');
    expect(await rpc.getSlot().send()).toBeGreaterThan(0n);
    // A batch is answered atomically (no slot tick in between): default commitment = finalized = processed - 2.
    const [processed, confirmed, finalized] = await rawCall([
      { jsonrpc: '2.0', id: 1, method: 'getSlot', params: [{ commitment: 'processed' }] },
      { jsonrpc: '2.0', id: 2, method: 'getSlot', params: [{ commitment: 'confirmed' }] },
      { jsonrpc: '2.0', id: 3, method: 'getSlot' },
    ]);
    expect([processed.result - confirmed.result, processed.result - finalized.result]).toEqual([1, 2]);
    const epoch = await rpc.getEpochInfo().send();
    expect(epoch.absoluteSlot).toBeGreaterThan(0n);
    expect(await rpc.getMinimumBalanceForRentExemption(165n).send()).toBe(2_039_280n);
    const bh = await rpc.getLatestBlockhash().send();
    expect(bh.value.lastValidBlockHeight).toBe(bh.context.slot + 150n);
    expect((await rpc.isBlockhashValid(bh.value.blockhash).send()).value).toBe(true);
  });

  it('airdrops and exposes commitment-aware balances', async () => {
    const w = await generateKeyPairSigner();
    const sig = await rpc.requestAirdrop(w.address, lamports(2n * SOL)).send();
    // Lands immediately at `processed`; the finalized bank (2 slots behind) has it only once the
    // airdrop is finalized. Finality is monotonic: if it is not finalized after the read, it was
    // not at the read either (on a loaded machine the 2 slots can pass before the read).
    expect((await rpc.getBalance(w.address, { commitment: 'processed' }).send()).value).toBe(2n * SOL);
    const finalizedBalance = (await rpc.getBalance(w.address, { commitment: 'finalized' }).send()).value;
    const finalizedAfter = (await rpc.getSignatureStatuses([sig]).send()).value[0]?.confirmationStatus === 'finalized';
    if (!finalizedAfter) expect(finalizedBalance).toBe(0n);
    else expect([0n, 2n * SOL]).toContain(finalizedBalance);
    await waitForStatus(sig, 'finalized');
    expect((await rpc.getBalance(w.address).send()).value).toBe(2n * SOL);
    // Same-amount airdrops to the same address in the same slot must still be distinct transactions.
    // (Raw batch: kit's client coalesces identical in-flight requests into one.)
    const req = { jsonrpc: '2.0', method: 'requestAirdrop', params: [w.address, Number(SOL)] };
    const [a, b] = await rawCall([{ ...req, id: 1 }, { ...req, id: 2 }]);
    expect(typeof a.result).toBe('string');
    expect(a.result).not.toBe(b.result);
    expect((await rpc.getBalance(w.address, { commitment: 'processed' }).send()).value).toBe(4n * SOL);
  });

  it('SOL transfer goes processed → confirmed → finalized with the right balances and getTransaction', async () => {
    const from = await generateKeyPairSigner();
    const to = await generateKeyPairSigner();
    await fundSolanaWallet(devnet, { to: from.address, lamports: 3n * SOL });
    const { wire, signature } = await signedTx(from, [getTransferSolInstruction({ source: from, destination: to.address, amount: lamports(SOL) })]);
    const sent = await rpc.sendTransaction(wire, { encoding: 'base64' }).send();
    expect(sent).toBe(signature);

    const confirmed = await waitForStatus(signature, 'confirmed');
    expect(confirmed.status.err).toBeNull();
    const finalized = await waitForStatus(signature, 'finalized');
    expect(finalized.status.confirmations).toBeNull();
    expect(new Set([...confirmed.seen, ...finalized.seen]).has('finalized')).toBe(true);

    expect((await rpc.getBalance(to.address).send()).value).toBe(SOL);
    expect((await rpc.getBalance(from.address).send()).value).toBe(2n * SOL - 5000n);

    const tx = await rpc.getTransaction(signature, { encoding: 'base64', maxSupportedTransactionVersion: 0 }).send();
    expect(tx).not.toBeNull();
    expect(tx!.meta!.err).toBeNull();
    expect(tx!.meta!.fee).toBe(5000n);
    expect(tx!.meta!.preBalances[0]).toBe(3n * SOL);
    expect(tx!.meta!.postBalances[0]).toBe(2n * SOL - 5000n);
    expect(tx!.meta!.postBalances[1]).toBe(SOL);
    expect(tx!.transaction[0]).toBe(wire);
    expect(tx!.slot).toBe(finalized.status.slot);
    expect(Number(tx!.blockTime)).toBeGreaterThan(1_600_000_000);
    expect(tx!.meta!.logMessages!.length).toBeGreaterThan(0);
    const json = await rpc.getTransaction(signature, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    expect(json!.transaction.message.accountKeys[0]).toBe(from.address);
    expect(json!.transaction.signatures[0]).toBe(signature);
  });

  it('SPL USDC transfer between funded wallets, recipient ATA created idempotently in the same tx', async () => {
    const [a, b, c] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
    const mint = devnet.usdcMint;
    const funded = await Promise.all([
      fundSolanaWallet(devnet, { to: a.address, lamports: SOL, usdcBaseUnits: 100_000_000n }),
      fundSolanaWallet(devnet, { to: b.address, lamports: SOL }),
    ]);
    expect(funded.flatMap((f) => f.signatures)).toHaveLength(4);
    const ataA = await getAssociatedTokenAddress(a.address, mint);
    const ataB = await getAssociatedTokenAddress(b.address, mint);
    const ataC = await getAssociatedTokenAddress(c.address, mint);
    expect((await rpc.getTokenAccountBalance(ataA).send()).value).toMatchObject({ amount: '100000000', decimals: 6, uiAmountString: '100' });
    expect((await rpc.getTokenAccountBalance(ataB).send()).value.amount).toBe('0');

    const ixs = [
      ...(await getTransferTokenInstructions({ from: a, to: b.address, mint, amount: 25_000_000n, decimals: USDC_DECIMALS })),
      ...(await getTransferTokenInstructions({ from: a, to: c.address, mint, amount: 1_500_000n, decimals: USDC_DECIMALS })),
    ];
    const { wire, signature } = await signedTx(a, ixs);
    await rpc.sendTransaction(wire, { encoding: 'base64' }).send();
    await waitForStatus(signature, 'confirmed');

    const bal = async (ata: Address) => (await rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send()).value;
    expect(await bal(ataA)).toMatchObject({ amount: '73500000', uiAmountString: '73.5', decimals: 6 });
    expect(await bal(ataB)).toMatchObject({ amount: '25000000', uiAmountString: '25' });
    expect(await bal(ataC)).toMatchObject({ amount: '1500000', uiAmountString: '1.5' });

    const info = await rpc.getAccountInfo(ataC, { encoding: 'base64', commitment: 'confirmed' }).send();
    expect(info.value?.owner).toBe(TOKEN_PROGRAM_ADDRESS);
    expect(info.value?.space).toBe(165n);

    const tx = await rpc.getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    const post = tx!.meta!.postTokenBalances!.find((t) => t.owner === c.address);
    expect(post?.uiTokenAmount.amount).toBe('1500000');
    expect(tx!.meta!.preTokenBalances!.some((t) => t.owner === c.address)).toBe(false);
  });

  it('rejects an unknown blockhash with -32002 "Blockhash not found"', async () => {
    const payer = await generateKeyPairSigner();
    await fundSolanaWallet(devnet, { to: payer.address, lamports: SOL, commitment: 'processed' });
    const ix = getTransferSolInstruction({ source: payer, destination: payer.address, amount: lamports(1n) });
    const { wire } = await signedTx(payer, [ix], randomBase58(32));

    const raw = await rawCall({ jsonrpc: '2.0', id: 7, method: 'sendTransaction', params: [wire, { encoding: 'base64' }] });
    expect(raw.id).toBe(7);
    expect(raw.error.code).toBe(-32002);
    expect(raw.error.message).toMatch(/Blockhash not found/);
    expect(raw.error.data.err).toBe('BlockhashNotFound');

    const err = await rpc.sendTransaction(wire, { encoding: 'base64' }).send().then(() => null, (e: unknown) => e);
    expect(isSolanaError(err, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE)).toBe(true);
    expect(isSolanaError((err as Error).cause, SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND)).toBe(true);

    // skipPreflight: the "node" accepts it but it never lands
    const sig = await rpc.sendTransaction(wire, { encoding: 'base64', skipPreflight: true }).send();
    expect((await rpc.getSignatureStatuses([sig]).send()).value[0]).toBeNull();
  });

  it('a blockhash expires after 150 slots (isBlockhashValid, sendTransaction, getFeeForMessage)', async () => {
    const payer = await generateKeyPairSigner();
    await fundSolanaWallet(devnet, { to: payer.address, lamports: SOL, commitment: 'processed' });
    const latest = (await rpc.getLatestBlockhash({ commitment: 'processed' }).send()).value;
    const message = pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingBlockhash(latest, m),
      (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: payer, destination: payer.address, amount: lamports(1n) }), m),
    );
    const msgB64 = getBase64Decoder().decode(getCompiledTransactionMessageEncoder().encode(compileTransactionMessage(message)));
    expect((await rpc.getFeeForMessage(msgB64 as never, { commitment: 'processed' }).send()).value).toBe(5000n);

    const valid = async () => (await rpc.isBlockhashValid(latest.blockhash, { commitment: 'processed' }).send()).value;
    expect(await valid()).toBe(true);
    await rawCall({ jsonrpc: '2.0', id: 1, method: 'devnet_advanceSlots', params: [140] });
    expect(await valid()).toBe(true);
    const blockHeight = await rpc.getBlockHeight({ commitment: 'processed' }).send();
    expect(blockHeight).toBeLessThanOrEqual(latest.lastValidBlockHeight);
    const adv = await rawCall({ jsonrpc: '2.0', id: 2, method: 'devnet_advanceSlots', params: [11] });
    expect(BigInt(adv.result)).toBeGreaterThan(latest.lastValidBlockHeight);
    expect(await valid()).toBe(false);
    expect((await rpc.getFeeForMessage(msgB64 as never, { commitment: 'processed' }).send()).value).toBeNull();

    const tx = await signTransactionMessageWithSigners(message);
    const raw = await rawCall({ jsonrpc: '2.0', id: 3, method: 'sendTransaction', params: [getBase64EncodedWireTransaction(tx), { encoding: 'base64' }] });
    expect(raw.error).toMatchObject({ code: -32002, message: 'Transaction simulation failed: Blockhash not found' });
  });

  it('preflight rejects failing transactions; skipPreflight lands them with err and a fee', async () => {
    const payer = await generateKeyPairSigner();
    const other = await generateKeyPairSigner();
    await fundSolanaWallet(devnet, { to: payer.address, lamports: SOL, commitment: 'processed' });
    const ix = getTransferSolInstruction({ source: payer, destination: other.address, amount: lamports(5n * SOL) });
    const { wire, signature } = await signedTx(payer, [ix]);
    const pre = await rawCall({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [wire, { encoding: 'base64' }] });
    expect(pre.error.code).toBe(-32002);
    expect(pre.error.data.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(pre.error.message).toBe('Transaction simulation failed: Error processing Instruction 0: custom program error: 0x1');
    expect((await rpc.getSignatureStatuses([signature]).send()).value[0]).toBeNull();

    expect(await rpc.sendTransaction(wire, { encoding: 'base64', skipPreflight: true }).send()).toBe(signature);
    const st = (await rawCall({ jsonrpc: '2.0', id: 2, method: 'getSignatureStatuses', params: [[signature]] })).result.value[0];
    expect(st.err).toEqual({ InstructionError: [0, { Custom: 1 }] });
    expect(st.status).toEqual({ Err: { InstructionError: [0, { Custom: 1 }] } });
    expect((await rpc.getBalance(payer.address, { commitment: 'processed' }).send()).value).toBe(SOL - 5000n);

    const sim = await rpc.simulateTransaction(wire, { encoding: 'base64' }).send();
    expect(sim.value.err).toBeTruthy();
  });

  it('getSignatureStatuses returns null for unknown signatures', async () => {
    const unknown = toSignature(randomBase58(64));
    const { value } = await rpc.getSignatureStatuses([unknown]).send();
    expect(value).toEqual([null]);
    expect(await rpc.getTransaction(unknown, { encoding: 'json', maxSupportedTransactionVersion: 0 }).send()).toBeNull();
  });

  it('supports batch requests and reports unknown methods', async () => {
    const out = await rawCall([
      { jsonrpc: '2.0', id: 1, method: 'getHealth' },
      { jsonrpc: '2.0', id: 'two', method: 'getSlot', params: [{ commitment: 'processed' }] },
      { jsonrpc: '2.0', id: 3, method: 'noSuchMethod' },
    ]);
    expect(out).toHaveLength(3);
    expect(out[0]).toEqual({ jsonrpc: '2.0', id: 1, result: 'ok' });
    expect(out[1].id).toBe('two');
    expect(typeof out[1].result).toBe('number');
    expect(out[2].error.code).toBe(-32601);
    const parse = (await fetch(devnet.rpcUrl, { method: 'POST', body: '{nope' }).then((r) => r.json())) as { error: { code: number } };
    expect(parse.error.code).toBe(-32700);
  });

  it('serves what the chain gateways use: base64 accounts with owner, searchTransactionHistory, finalized block height', async () => {
    const w = await generateKeyPairSigner();
    const [airdrop] = (await fundSolanaWallet(devnet, { to: w.address, lamports: SOL, commitment: 'confirmed' })).signatures;
    const acct = await rawCall({ jsonrpc: '2.0', id: 1, method: 'getAccountInfo', params: [devnet.usdcMint, { encoding: 'base64', commitment: 'confirmed' }] });
    expect(acct.result.value.owner).toBe(TOKEN_PROGRAM_ADDRESS);
    expect(acct.result.value.data[1]).toBe('base64');
    expect(Buffer.from(acct.result.value.data[0], 'base64')[44]).toBe(USDC_DECIMALS);
    expect((await rawCall({ jsonrpc: '2.0', id: 2, method: 'getAccountInfo', params: [randomBase58(32), { encoding: 'base64' }] })).result.value).toBeNull();
    const st = await rawCall({ jsonrpc: '2.0', id: 3, method: 'getSignatureStatuses', params: [[airdrop, randomBase58(64)], { searchTransactionHistory: true }] });
    expect(st.result.value[0].confirmationStatus).toMatch(/confirmed|finalized/);
    expect(st.result.value[1]).toBeNull();
    const [height, slot] = await rawCall([
      { jsonrpc: '2.0', id: 4, method: 'getBlockHeight', params: [{ commitment: 'finalized' }] },
      { jsonrpc: '2.0', id: 5, method: 'getSlot', params: [{ commitment: 'processed' }] },
    ]);
    expect(slot.result - height.result).toBe(2);
  });

  it('durable nonces: create + initialize a nonce account, read it back, use it as a transaction lifetime', async () => {
    const payer = await generateKeyPairSigner();
    const nonceAccount = await generateKeyPairSigner();
    await fundSolanaWallet(devnet, { to: payer.address, lamports: SOL, commitment: 'processed' });
    const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(getNonceSize())).send();
    const create = await signedTx(payer, [
      getCreateAccountInstruction({ payer, newAccount: nonceAccount, lamports: rent, space: getNonceSize(), programAddress: SYSTEM_PROGRAM_ADDRESS }),
      getInitializeNonceAccountInstruction({ nonceAccount: nonceAccount.address, nonceAuthority: payer.address }),
    ]);
    await rpc.sendTransaction(create.wire, { encoding: 'base64' }).send();
    await waitForStatus(create.signature, 'confirmed');

    const gateway = createSolanaGateway({ network: 'SOLANA_DEVNET', rpcUrl: devnet.rpcUrl });
    const state = await gateway.getNonceAccount(nonceAccount.address);
    expect(state?.authority).toBe(payer.address);
    const decoded = (await fetchNonce(rpc, nonceAccount.address, { commitment: 'confirmed' })).data;
    expect(decoded.state).toBe(NonceState.Initialized);
    expect(decoded.blockhash).toBe(state!.nonce);

    // A transfer with the nonce as its lifetime (AdvanceNonceAccount first): fee quoted, accepted, nonce advanced.
    const other = await generateKeyPairSigner();
    const durable = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingDurableNonce({ nonce: state!.nonce as Nonce, nonceAccountAddress: nonceAccount.address, nonceAuthorityAddress: payer.address }, m),
      (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: payer, destination: other.address, amount: lamports(SOL / 10n) }), m),
      (m) => signTransactionMessageWithSigners(m),
    );
    const message = getBase64Decoder().decode(durable.messageBytes) as TransactionMessageBytesBase64;
    expect((await rpc.getFeeForMessage(message, { commitment: 'processed' }).send()).value).toBe(5000n);
    expect((await rpc.isBlockhashValid(blockhash(state!.nonce), { commitment: 'processed' }).send()).value).toBe(false);
    const wire = getBase64EncodedWireTransaction(durable);
    expect((await rpc.simulateTransaction(wire, { encoding: 'base64' }).send()).value.err).toBeNull();
    const sig = await rpc.sendTransaction(wire, { encoding: 'base64' }).send();
    await waitForStatus(sig, 'confirmed');
    expect((await rpc.getBalance(other.address, { commitment: 'confirmed' }).send()).value).toBe(SOL / 10n);
    const after = await gateway.getNonceAccount(nonceAccount.address);
    expect(after?.nonce).not.toBe(state!.nonce);

    // The consumed nonce no longer works: same answer as an unknown blockhash.
    const replay = await pipe(
      createTransactionMessage({ version: 0 }),
      (m) => setTransactionMessageFeePayerSigner(payer, m),
      (m) => setTransactionMessageLifetimeUsingDurableNonce({ nonce: state!.nonce as Nonce, nonceAccountAddress: nonceAccount.address, nonceAuthorityAddress: payer.address }, m),
      (m) => appendTransactionMessageInstruction(getTransferSolInstruction({ source: payer, destination: other.address, amount: lamports(SOL / 20n) }), m),
      (m) => signTransactionMessageWithSigners(m),
    );
    const raw = await rawCall({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [getBase64EncodedWireTransaction(replay), { encoding: 'base64' }] });
    expect(raw.error).toMatchObject({ code: -32002, message: 'Transaction simulation failed: Blockhash not found' });
  });

  it('stop() closes the server', async () => {
    const other = await startSolanaDevnet({ slotMs: 50 });
    expect((await rawCall({ jsonrpc: '2.0', id: 1, method: 'getHealth' }, other.rpcUrl)).result).toBe('ok');
    await other.stop();
    await expect(fetch(other.rpcUrl, { method: 'POST', body: '{}' })).rejects.toThrow();
  });
});
