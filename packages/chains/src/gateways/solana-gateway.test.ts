import {
  appendTransactionMessageInstructions,
  blockhash,
  createSolanaRpc,
  createTransactionMessage,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase64Decoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  setTransactionMessageLifetimeUsingDurableNonce,
  signTransaction,
  signTransactionMessageWithSigners,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type Nonce,
} from '@solana/kit';
import {
  SYSTEM_PROGRAM_ADDRESS,
  getAdvanceNonceAccountInstruction,
  getCreateAccountInstruction,
  getInitializeNonceAccountInstruction,
  getNonceSize,
  getTransferSolInstruction,
} from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BroadcastRejectedError, ChainUnavailableError, type SolanaGateway } from '@wallet/domain/transactions/gateways.ts';
import { startSolanaDevnet, type SolanaDevnet } from '../solana/devnet.ts';
import { getAssociatedTokenAddress } from '../solana/spl.ts';
import { startRpcFaultProxy, type RpcFaultProxy } from '../testing/index.ts';
import { createSolanaGateway, parseJsonWithU64 } from './solana-gateway.ts';

const SOL = 1_000_000_000n;
const b64enc = getBase64Encoder();
const b64dec = getBase64Decoder();
const txDecoder = getTransactionDecoder();
const msgDecoder = getCompiledTransactionMessageDecoder();
const randomBase58 = (bytes = 32) => getBase58Decoder().decode(crypto.getRandomValues(new Uint8Array(bytes)));

let devnet: SolanaDevnet;
let proxy: RpcFaultProxy;
let gw: SolanaGateway;
let viaProxy: SolanaGateway;
let rpc: ReturnType<typeof createSolanaRpc>;
let sender: KeyPairSigner;

beforeAll(async () => {
  devnet = await startSolanaDevnet({ slotMs: 100 });
  proxy = await startRpcFaultProxy(devnet.rpcUrl);
  gw = createSolanaGateway({ network: 'SOLANA_DEVNET', rpcUrl: devnet.rpcUrl });
  viaProxy = createSolanaGateway({ network: 'SOLANA_DEVNET', rpcUrl: proxy.url, timeoutMs: 1_000 });
  rpc = createSolanaRpc(devnet.rpcUrl);
  sender = await generateKeyPairSigner();
  await devnet.fundWallet({ to: sender.address, lamports: 5n * SOL, usdcBaseUnits: 100_000_000n, commitment: 'confirmed' });
});
afterAll(async () => {
  await proxy?.stop();
  await devnet?.stop();
});

/** Sign an unsigned wire transaction (base64) with the given key pairs, as the custody layer would. */
async function sign(wire: string, ...signers: KeyPairSigner[]): Promise<string> {
  const tx = txDecoder.decode(b64enc.encode(wire));
  return getBase64EncodedWireTransaction(await signTransaction(signers.map((s) => s.keyPair), tx));
}

async function waitFor<T>(fn: () => Promise<T>, ok: (v: T) => boolean, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (ok(v)) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Wait until every signature is finalized; returns the confirmation levels seen for the first. */
async function waitFinalized(signatures: string[]): Promise<string[]> {
  const seen: string[] = [];
  await waitFor(
    () => gw.getSignatureStatuses(signatures),
    (st) => {
      const cs = st[0]?.confirmationStatus;
      if (cs && seen.at(-1) !== cs) seen.push(cs);
      return st.every((s) => s?.confirmationStatus === 'finalized');
    },
    `finalization of ${signatures.join(',')}`,
  );
  return seen;
}

async function tokenBalance(owner: Address): Promise<bigint> {
  const ata = await getAssociatedTokenAddress(owner, devnet.usdcMint);
  const { value } = await rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send();
  return BigInt(value.amount);
}

async function rejection(p: Promise<unknown>): Promise<BroadcastRejectedError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(BroadcastRejectedError);
  return e as BroadcastRejectedError;
}

/** A transaction signed by `payer` with the given lifetime (recent blockhash, or durable nonce). */
async function signedTx(
  payer: KeyPairSigner,
  instructions: Instruction[],
  lifetime: { blockhash: string } | { nonce: string; nonceAccountAddress: Address; nonceAuthorityAddress: Address },
): Promise<string> {
  const base = pipe(createTransactionMessage({ version: 0 }), (m) => setTransactionMessageFeePayerSigner(payer, m));
  const withLifetime =
    'blockhash' in lifetime
      ? setTransactionMessageLifetimeUsingBlockhash({ blockhash: blockhash(lifetime.blockhash), lastValidBlockHeight: 0n }, base)
      : setTransactionMessageLifetimeUsingDurableNonce({ ...lifetime, nonce: lifetime.nonce as Nonce }, base);
  const tx = await signTransactionMessageWithSigners(appendTransactionMessageInstructions(instructions, withLifetime));
  return getBase64EncodedWireTransaction(tx);
}

describe('SolanaGateway on the LiteSVM devnet', () => {
  it('builds an unsigned SOL transfer; signed and sent it goes processed → finalized and moves the lamports', async () => {
    const to = (await generateKeyPairSigner()).address;
    const { blockhash: hash, lastValidBlockHeight } = await gw.getLatestBlockhash();
    expect(lastValidBlockHeight).toBeGreaterThan(0n);
    expect(await gw.isBlockhashValid(hash)).toBe(true);

    const before = await gw.getBalance(sender.address);
    const built = await gw.buildTransfer({ from: sender.address, to, amount: 12_345_678n, recentBlockhash: hash });
    expect(built.createsTokenAccount).toBe(false);
    const unsigned = txDecoder.decode(b64enc.encode(built.transaction));
    expect(Object.keys(unsigned.signatures)).toEqual([sender.address]); // fee payer = only signer
    expect(unsigned.signatures[sender.address]).toBeNull(); // zeroed slot
    const message = msgDecoder.decode(unsigned.messageBytes);
    expect(message.version).toBe(0);
    expect(message.lifetimeToken).toBe(hash);
    expect(message.staticAccounts[0]).toBe(sender.address);

    const fee = await gw.getFeeForMessage(b64dec.decode(unsigned.messageBytes));
    expect(fee).toBe(5000n);

    const signature = await gw.sendTransaction(await sign(built.transaction, sender));
    expect(signature).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    const seen = await waitFinalized([signature]);
    expect(seen.at(-1)).toBe('finalized');
    expect(['processed', 'confirmed']).toContain(seen[0]);
    const [status] = await gw.getSignatureStatuses([signature]);
    expect(status).toMatchObject({ confirmationStatus: 'finalized', err: null });
    expect(status!.slot).toBeTypeOf('bigint');

    expect(await gw.getBalance(to)).toBe(12_345_678n);
    expect(await gw.getBalance(sender.address)).toBe(before - 12_345_678n - 5000n);
    // Sending the same signed transaction again: the node already has it.
    expect((await rejection(gw.sendTransaction(await sign(built.transaction, sender)))).code).toBe('ALREADY_PROCESSED');
  });

  it('builds legacy transactions when asked', async () => {
    const legacy = createSolanaGateway({ network: 'SOLANA_DEVNET', rpcUrl: devnet.rpcUrl, transactionVersion: 'legacy' });
    const to = (await generateKeyPairSigner()).address;
    const { blockhash: hash } = await legacy.getLatestBlockhash();
    const built = await legacy.buildTransfer({ from: sender.address, to, amount: 1_000_000n, recentBlockhash: hash });
    expect(msgDecoder.decode(txDecoder.decode(b64enc.encode(built.transaction)).messageBytes).version).toBe('legacy');
    const signature = await legacy.sendTransaction(await sign(built.transaction, sender));
    await waitFinalized([signature]);
    expect(await legacy.getBalance(to)).toBe(1_000_000n);
  });

  it('SPL transfer creates the recipient token account the first time only', async () => {
    const recipient = (await generateKeyPairSigner()).address;
    const ata = await getAssociatedTokenAddress(recipient, devnet.usdcMint);
    expect(await gw.getMintDecimals(devnet.usdcMint)).toBe(6);
    expect(await gw.accountExists(ata)).toBe(false);
    const senderTokens = await tokenBalance(sender.address);

    const first = await gw.buildTransfer({ from: sender.address, to: recipient, amount: 1_500_000n, mint: devnet.usdcMint, recentBlockhash: (await gw.getLatestBlockhash()).blockhash });
    expect(first.createsTokenAccount).toBe(true);
    const firstMessage = msgDecoder.decode(txDecoder.decode(b64enc.encode(first.transaction)).messageBytes);
    expect('instructions' in firstMessage && firstMessage.instructions).toHaveLength(2);
    await waitFinalized([await gw.sendTransaction(await sign(first.transaction, sender))]);
    expect(await gw.accountExists(ata)).toBe(true);
    expect(await tokenBalance(recipient)).toBe(1_500_000n);

    const second = await gw.buildTransfer({ from: sender.address, to: recipient, amount: 500_000n, mint: devnet.usdcMint, recentBlockhash: (await gw.getLatestBlockhash()).blockhash });
    expect(second.createsTokenAccount).toBe(false);
    const secondMessage = msgDecoder.decode(txDecoder.decode(b64enc.encode(second.transaction)).messageBytes);
    expect('instructions' in secondMessage && secondMessage.instructions).toHaveLength(1);
    await waitFinalized([await gw.sendTransaction(await sign(second.transaction, sender))]);
    expect(await tokenBalance(recipient)).toBe(2_000_000n);
    expect(await tokenBalance(sender.address)).toBe(senderTokens - 2_000_000n);
  });

  it('mint decimals, account existence, blockhash validity, finalized height, fee for an unknown blockhash', async () => {
    expect(await gw.getMintDecimals(sender.address)).toBeNull(); // a wallet, not a mint
    expect(await gw.getMintDecimals(randomBase58())).toBeNull(); // no account
    expect(await gw.accountExists(sender.address)).toBe(true);
    expect(await gw.accountExists(randomBase58())).toBe(false);
    await expect(gw.buildTransfer({ from: sender.address, to: sender.address, amount: 1n, mint: sender.address, recentBlockhash: randomBase58() })).rejects.toThrow(/not an SPL Token mint/);

    const unknownHash = randomBase58();
    expect(await gw.isBlockhashValid(unknownHash)).toBe(false);
    const built = await gw.buildTransfer({ from: sender.address, to: randomBase58(), amount: 1n, recentBlockhash: unknownHash });
    expect(await gw.getFeeForMessage(b64dec.decode(txDecoder.decode(b64enc.encode(built.transaction)).messageBytes))).toBeNull();

    const h1 = await gw.getFinalizedBlockHeight();
    expect(h1).toBeLessThanOrEqual(BigInt(devnet.getSlot()));
    const s1 = await gw.getFinalizedSlot();
    expect(s1).toBeLessThanOrEqual(BigInt(devnet.getSlot()) - 2n); // finalized two slots behind the tip
    devnet.advanceSlots(3);
    expect(await gw.getFinalizedBlockHeight()).toBeGreaterThanOrEqual(h1 + 3n);
    expect(await gw.getFinalizedSlot()).toBeGreaterThanOrEqual(s1 + 3n);
  });

  it('refusals: insufficient lamports, unfunded fee payer, token shortfall, unknown blockhash, unsigned', async () => {
    const { blockhash: hash } = await gw.getLatestBlockhash();
    const to = (await generateKeyPairSigner()).address;

    const tooMuch = await gw.buildTransfer({ from: sender.address, to, amount: 1_000n * SOL, recentBlockhash: hash });
    const insufficient = await rejection(gw.sendTransaction(await sign(tooMuch.transaction, sender)));
    expect(insufficient.code).toBe('INSUFFICIENT_NATIVE_BALANCE');
    expect(insufficient.message).toMatch(/simulation failed/);

    const nobody = await generateKeyPairSigner();
    const unfunded = await gw.buildTransfer({ from: nobody.address, to, amount: 1n, recentBlockhash: hash });
    expect((await rejection(gw.sendTransaction(await sign(unfunded.transaction, nobody)))).code).toBe('INSUFFICIENT_NATIVE_BALANCE');

    // A new recipient funded below the rent-exempt minimum: the transaction's fault, not the sender's balance.
    const belowRent = await gw.buildTransfer({ from: sender.address, to, amount: 1_000n, recentBlockhash: hash });
    const rent = await rejection(gw.sendTransaction(await sign(belowRent.transaction, sender)));
    expect(rent.code).toBe('EXECUTION_FAILED');
    expect(rent.message).toMatch(/insufficient funds for rent/);

    const tokens = await gw.buildTransfer({ from: sender.address, to, amount: 10n ** 15n, mint: devnet.usdcMint, recentBlockhash: hash });
    expect((await rejection(gw.sendTransaction(await sign(tokens.transaction, sender)))).code).toBe('EXECUTION_FAILED');

    const stale = await gw.buildTransfer({ from: sender.address, to, amount: 1n, recentBlockhash: randomBase58() });
    expect((await rejection(gw.sendTransaction(await sign(stale.transaction, sender)))).code).toBe('BLOCKHASH_NOT_FOUND');

    const unsigned = await gw.buildTransfer({ from: sender.address, to, amount: 1n, recentBlockhash: hash });
    expect((await rejection(gw.sendTransaction(unsigned.transaction))).code).toBe('INVALID_TRANSACTION');
    expect((await rejection(gw.sendTransaction('bm90IGEgdHJhbnNhY3Rpb24='))).code).toBe('INVALID_TRANSACTION');
    expect(await gw.getBalance(to)).toBe(0n);
  });

  it('durable nonce account round trip: create, read, use as a transaction lifetime, advanced', async () => {
    const nonceAccount = await generateKeyPairSigner();
    const rent = await rpc.getMinimumBalanceForRentExemption(BigInt(getNonceSize())).send();
    expect(await gw.getNonceAccount(nonceAccount.address)).toBeNull(); // missing
    expect(await gw.getNonceAccount(sender.address)).toBeNull(); // a plain wallet
    expect(await gw.getNonceAccount(devnet.usdcMint)).toBeNull(); // not owned by the System program

    const create = await signedTx(
      sender,
      [
        getCreateAccountInstruction({ payer: sender, newAccount: nonceAccount, lamports: rent, space: getNonceSize(), programAddress: SYSTEM_PROGRAM_ADDRESS }),
        getInitializeNonceAccountInstruction({ nonceAccount: nonceAccount.address, nonceAuthority: sender.address }),
      ],
      await gw.getLatestBlockhash(),
    );
    await waitFinalized([await gw.sendTransaction(create)]);
    const state = await gw.getNonceAccount(nonceAccount.address);
    expect(state).toEqual({ authority: sender.address, nonce: expect.stringMatching(/^[1-9A-HJ-NP-Za-km-z]{32,44}$/) });

    // A transfer whose lifetime is the durable nonce (first instruction: AdvanceNonceAccount).
    const to = (await generateKeyPairSigner()).address;
    const lifetime = { nonce: state!.nonce, nonceAccountAddress: nonceAccount.address, nonceAuthorityAddress: sender.address };
    const durable = await signedTx(sender, [getTransferSolInstruction({ source: sender, destination: to, amount: lamports(SOL / 100n) })], lifetime);
    expect(await gw.isBlockhashValid(state!.nonce)).toBe(false); // a nonce is not a recent blockhash
    expect(await gw.getFeeForMessage(b64dec.decode(txDecoder.decode(b64enc.encode(durable)).messageBytes))).toBe(5000n);
    await waitFinalized([await gw.sendTransaction(durable)]);
    expect(await gw.getBalance(to)).toBe(SOL / 100n);
    const advanced = await gw.getNonceAccount(nonceAccount.address);
    expect(advanced?.authority).toBe(sender.address);
    expect(advanced?.nonce).not.toBe(state!.nonce);

    // The consumed nonce cannot be used again.
    const replay = await signedTx(sender, [getTransferSolInstruction({ source: sender, destination: to, amount: lamports(1n) })], lifetime);
    expect((await rejection(gw.sendTransaction(replay))).code).toBe('BLOCKHASH_NOT_FOUND');

    // An explicit advance with a recent blockhash moves it again.
    devnet.advanceSlots(1);
    const advance = await signedTx(sender, [getAdvanceNonceAccountInstruction({ nonceAccount: nonceAccount.address, nonceAuthority: sender })], await gw.getLatestBlockhash());
    await waitFinalized([await gw.sendTransaction(advance)]);
    expect((await gw.getNonceAccount(nonceAccount.address))?.nonce).not.toBe(advanced!.nonce);
  });

  it('getSignatureStatuses: input order, null when unknown, > 256 signatures in one HTTP request', async () => {
    proxy.setMode('pass');
    const pass = createSolanaGateway({ network: 'SOLANA_DEVNET', rpcUrl: proxy.url });
    const to = (await generateKeyPairSigner()).address;
    const built = await gw.buildTransfer({ from: sender.address, to, amount: SOL / 100n, recentBlockhash: (await gw.getLatestBlockhash()).blockhash });
    const real = await gw.sendTransaction(await sign(built.transaction, sender));
    const sigs = Array.from({ length: 300 }, () => randomBase58(64));
    sigs[270] = real;
    const before = proxy.requests;
    const methodsBefore = proxy.methods.length;
    const statuses = await pass.getSignatureStatuses(sigs);
    expect(proxy.requests - before).toBe(1);
    expect(proxy.methods.slice(methodsBefore)).toEqual(['getSignatureStatuses', 'getSignatureStatuses']);
    expect(statuses).toHaveLength(300);
    expect(statuses.filter((s) => s !== null)).toHaveLength(1);
    expect(statuses[270]).toMatchObject({ err: null });
    expect(await pass.getSignatureStatuses([])).toEqual([]);
  });

  it('fault proxy: drop, http500, delay beyond the time-out, internal error → ChainUnavailableError', async () => {
    const built = await gw.buildTransfer({ from: sender.address, to: randomBase58(), amount: SOL / 100n, recentBlockhash: (await gw.getLatestBlockhash()).blockhash });
    const signed = await sign(built.transaction, sender);
    try {
      for (const mode of ['drop', 'http500', { delayMs: 2_500 }, { failMethods: ['getLatestBlockhash', 'getSignatureStatuses', 'sendTransaction', 'getAccountInfo'] }] as const) {
        proxy.setMode(mode);
        const label = JSON.stringify(mode);
        await expect(viaProxy.getLatestBlockhash(), label).rejects.toBeInstanceOf(ChainUnavailableError);
        await expect(viaProxy.getSignatureStatuses([randomBase58(64)]), label).rejects.toBeInstanceOf(ChainUnavailableError);
        await expect(viaProxy.sendTransaction(signed), label).rejects.toBeInstanceOf(ChainUnavailableError);
        await expect(viaProxy.getNonceAccount(sender.address), label).rejects.toBeInstanceOf(ChainUnavailableError);
      }
      // failMethods only fails the listed methods.
      expect(await viaProxy.getBalance(sender.address)).toBeGreaterThan(0n);
    } finally {
      proxy.setMode('pass');
    }
    expect(await viaProxy.sendTransaction(signed)).toMatch(/^[1-9A-HJ-NP-Za-km-z]+$/);
  });
});

describe('parseJsonWithU64', () => {
  it('keeps u64 values exact and leaves strings alone', () => {
    expect(parseJsonWithU64('{"a":18446744073709551615,"b":5,"c":"18446744073709551615","d":[1.5,-9007199254740993],"e":"x\\"1e99"}')).toEqual({
      a: 18446744073709551615n,
      b: 5,
      c: '18446744073709551615',
      d: [1.5, -9007199254740993n],
      e: 'x"1e99',
    });
  });
});
