/**
 * Local Solana "devnet": a small JSON-RPC 2.0 HTTP server (ours) over an in-process LiteSVM.
 *
 * Chain model
 * - One slot per `slotMs` (default 400 ms). Every slot gets a fresh blockhash; block height == slot (no skipped slots).
 * - A blockhash issued at slot b is valid while currentSlot - b <= 150 (lastValidBlockHeight = b + 150), like mainnet's
 *   MAX_PROCESSING_AGE. Older / unknown blockhashes: isBlockhashValid → false, sendTransaction preflight → -32002
 *   "Transaction simulation failed: Blockhash not found" (with skipPreflight the signature is returned but the
 *   transaction is dropped, as a real node would). LiteSVM's own check (latest blockhash only) is disabled; we do ours.
 * - Commitment: a transaction landing at slot s is `processed` at s, `confirmed` from s+1, `finalized` from s+2.
 *   Equivalently the confirmed bank is currentSlot-1 and the finalized bank currentSlot-2. Reads that take a
 *   commitment (getBalance, getAccountInfo, getTokenAccountBalance, getLatestBlockhash, getSlot, ...) see state as of
 *   that bank: account writes of the last two slots are journaled so a `finalized` getBalance really shows the
 *   pre-transfer balance until the transfer finalizes. Default commitment is `finalized`, as on a real node.
 * - Transactions execute immediately on arrival (there is no leader/queue). Failed transactions that got past fee
 *   payment (e.g. an InstructionError) land with their `err` and pay the fee when sent with skipPreflight, like a node.
 * - Fees: 5000 lamports per signature (priority fees are not modelled in getFeeForMessage / meta.fee).
 * - Durable nonces: a message whose first instruction is System AdvanceNonceAccount and whose lifetime token equals
 *   the nonce stored in that (initialized, current-version) nonce account is accepted in place of a recent blockhash
 *   by sendTransaction, simulateTransaction and getFeeForMessage (isBlockhashValid stays blockhash-only, as on a
 *   node). Limitation: a durable-nonce transaction that lands with an error (skipPreflight) does not advance the nonce.
 * - Not supported: address lookup tables, websockets/subscriptions, getBlock, jsonParsed encoding.
 *
 * - Persistence (`statePath`): accounts, landed transactions, slot, recent blockhashes and the faucet/mint keys are
 *   written to one file (state-file.ts) every `stateIntervalMs` and on stop, and loaded on start; the chain then
 *   continues two slots after the saved one. A crash loses at most the last interval.
 *
 * Files: chain.ts (state machine), rpc-methods.ts (JSON-RPC methods), state-file.ts (persistence), this file (server).
 * Non-standard methods: `devnet_advanceSlots [n]` (advance n slots now, returns the new slot) and
 * `devnet_fundWallet [{to, lamports?, usdcBaseUnits?}]` (amounts as strings/numbers; returns {signatures}).
 */
import { renameSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { address, createKeyPairSignerFromPrivateKeyBytes, lamports as toLamports, type Address, type KeyPairSigner } from '@solana/kit';
import { getMintSize } from '@solana-program/token';
import { COMMITMENT_LAG, LocalChain, type Commitment } from './chain.ts';
import { createRpcHandler, toJson } from './rpc-methods.ts';
import { USDC_DECIMALS, getCreateMintInstructions, getMintToOwnerInstructions } from './spl.ts';
import { loadSnapshot, saveSnapshot, type DevnetKeys } from './state-file.ts';

const newPrivateKey = () => crypto.getRandomValues(new Uint8Array(32));
export interface FundSolanaWalletOptions {
  to: string;
  /** Airdropped lamports (default 1 SOL; 0 = no airdrop). */
  lamports?: bigint;
  /** USDC base units minted to `to`'s associated token account (default 0; the ATA is created either way). */
  usdcBaseUnits?: bigint;
  /** Wait until the funding transactions reach this commitment before resolving (default `finalized`). */
  commitment?: Commitment;
}

export interface SolanaDevnet {
  rpcUrl: string;
  /** `getGenesisHash`: random per chain and kept in the state file, so a fresh chain answers a new one. */
  genesisHash: string;
  /** Where an unreadable state file was moved before this start, if that happened. */
  discardedState?: string;
  /** Writes the state file now (no-op without `statePath`); also runs periodically and on stop. */
  saveState(): void;
  /** Address of the test USDC mint (6 decimals, classic SPL Token program). */
  usdcMint: Address;
  /** Mint authority of the test USDC mint (also a well-funded fee payer). */
  mintAuthority: KeyPairSigner;
  /** Current (processed) slot. */
  getSlot(): number;
  /** Advance the chain by `n` slots right now (on top of the timer). */
  advanceSlots(n: number): number;
  /** Resolve once the current slot is >= `slot`. */
  waitForSlot(slot: number): Promise<void>;
  fundWallet(opts: FundSolanaWalletOptions): Promise<{ signatures: string[] }>;
  stop(): Promise<void>;
}

export interface StartSolanaDevnetOptions {
  /** 0 / omitted = a free port. Binds 127.0.0.1. */
  port?: number;
  /** Slot duration in ms (default 400). */
  slotMs?: number;
  /**
   * Keep the chain (accounts, landed transactions, slot and blockhashes, the faucet and USDC mint
   * keys) in this file: loaded on start when it exists, written every `stateIntervalMs` and on stop.
   */
  statePath?: string;
  /** Default 5000. */
  stateIntervalMs?: number;
}

/**
 * Start the devnet. See the module comment for the chain / commitment model.
 */
export async function startSolanaDevnet(opts: StartSolanaDevnetOptions = {}): Promise<SolanaDevnet> {
  const slotMs = opts.slotMs ?? 400;
  const { statePath } = opts;
  let loaded = statePath ? loadSnapshot(statePath) : {};
  let chain: LocalChain;
  try {
    chain = new LocalChain(loaded.snapshot?.chain);
  } catch {
    // A header that decodes but a LiteSVM snapshot that does not: treated like an unreadable file.
    const discarded = `${statePath}.corrupt-${Date.now()}`;
    renameSync(statePath!, discarded);
    loaded = { discarded };
    chain = new LocalChain();
  }
  const keys: DevnetKeys = loaded.snapshot?.keys ?? { faucet: newPrivateKey(), mintAuthority: newPrivateKey(), mint: newPrivateKey() };
  const [faucet, mintAuthority, mint] = await Promise.all([
    createKeyPairSignerFromPrivateKeyBytes(keys.faucet),
    createKeyPairSignerFromPrivateKeyBytes(keys.mintAuthority),
    createKeyPairSignerFromPrivateKeyBytes(keys.mint),
  ]);
  if (!loaded.snapshot) {
    const fund = (a: Address, amount: bigint) =>
      chain.svm.setAccount({ address: a, lamports: toLamports(amount), data: new Uint8Array(), programAddress: address('11111111111111111111111111111111'), executable: false, space: 0n });
    fund(faucet.address, 1_000_000_000n * 1_000_000_000n);
    fund(mintAuthority.address, 1_000_000n * 1_000_000_000n);
    await chain.sendInstructions(
      mintAuthority,
      getCreateMintInstructions({
        payer: mintAuthority,
        mint,
        mintAuthority: mintAuthority.address,
        decimals: USDC_DECIMALS,
        rentLamports: chain.svm.minimumBalanceForRentExemption(BigInt(getMintSize())),
      }),
    );
    chain.advance(2); // the mint is finalized before anyone can look
  }
  const saveState = () => {
    if (statePath) saveSnapshot(statePath, { chain: chain.toState(), keys });
  };
  saveState();
  const saver = statePath
    ? setInterval(() => {
        try {
          saveState();
        } catch {
          // e.g. a full disk: tried again at the next interval, and on stop (where it throws).
        }
      }, opts.stateIntervalMs ?? 5_000)
    : undefined;
  saver?.unref();

  const slotWaiters = new Set<{ slot: number; resolve: () => void }>();
  let stopped = false;
  const notify = () => {
    for (const w of slotWaiters) if (chain.slot >= w.slot) (slotWaiters.delete(w), w.resolve());
  };
  const advanceSlots = (n: number) => {
    const s = chain.advance(n);
    notify();
    return s;
  };
  const timer = setInterval(() => advanceSlots(1), slotMs);
  timer.unref();

  const waitForSlot = (slot: number) =>
    chain.slot >= slot
      ? Promise.resolve()
      : stopped
        ? Promise.reject(new Error('devnet stopped'))
        : new Promise<void>((resolve) => slotWaiters.add({ slot, resolve }));

  const fundWallet = async (o: FundSolanaWalletOptions): Promise<{ signatures: string[] }> => {
    const to = address(o.to);
    const lamports = o.lamports ?? 1_000_000_000n;
    const signatures: string[] = [];
    if (lamports > 0n) signatures.push(await chain.airdrop(faucet, to, lamports));
    signatures.push(
      await chain.sendInstructions(
        mintAuthority,
        await getMintToOwnerInstructions({ payer: mintAuthority, mint: mint.address, mintAuthority, owner: to, amount: o.usdcBaseUnits ?? 0n }),
      ),
    );
    const landed = Math.max(...signatures.map((s) => chain.getTx(s)!.slot));
    await waitForSlot(landed + COMMITMENT_LAG[o.commitment ?? 'finalized']);
    return { signatures };
  };

  const handleOne = createRpcHandler({ chain, faucet, advanceSlots, fundWallet });

  async function handleHttp(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: string) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(body);
    };
    if (req.method !== 'POST') return send(405, toJson({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Use POST' } }));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: unknown;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return send(200, toJson({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
    }
    if (Array.isArray(body)) {
      if (body.length === 0) return send(200, toJson({ jsonrpc: '2.0', id: null, error: { code: -32600, message: 'Invalid request' } }));
      const out: unknown[] = [];
      for (const item of body) out.push(await handleOne(item)); // sequential: order-dependent batches stay deterministic
      return send(200, toJson(out));
    }
    return send(200, toJson(await handleOne(body)));
  }

  const server = createServer((req, res) => {
    handleHttp(req, res).catch((e) => {
      if (!res.headersSent) res.writeHead(500);
      res.end(String(e));
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    rpcUrl: `http://127.0.0.1:${port}`,
    genesisHash: chain.genesisHash,
    ...(loaded.discarded ? { discardedState: loaded.discarded } : {}),
    saveState,
    usdcMint: mint.address,
    mintAuthority,
    getSlot: () => chain.slot,
    advanceSlots,
    waitForSlot,
    fundWallet,
    async stop() {
      if (stopped) return;
      stopped = true;
      clearInterval(timer);
      clearInterval(saver);
      for (const w of slotWaiters) w.resolve();
      slotWaiters.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      saveState();
    },
  };
}

/**
 * Airdrop SOL to `to`, create its USDC associated token account (idempotent) and mint `usdcBaseUnits` into it.
 * Resolves once the transactions reach `commitment` (default finalized, i.e. ~2 slots).
 */
export function fundSolanaWallet(devnet: Pick<SolanaDevnet, 'fundWallet'>, opts: FundSolanaWalletOptions): Promise<{ signatures: string[] }> {
  return devnet.fundWallet(opts);
}

/** Same as fundSolanaWallet, for a devnet running in another process (via the non-standard `devnet_fundWallet` method). */
export async function fundSolanaWalletViaRpc(rpcUrl: string, opts: FundSolanaWalletOptions): Promise<{ signatures: string[] }> {
  const res = await fetch(rpcUrl, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'devnet_fundWallet',
      params: [{ to: opts.to, lamports: opts.lamports?.toString(), usdcBaseUnits: opts.usdcBaseUnits?.toString(), commitment: opts.commitment ?? 'finalized' }],
    }),
  });
  const body = (await res.json()) as { result?: { signatures: string[] }; error?: { message: string } };
  if (!body.result) throw new Error(`devnet_fundWallet failed: ${body.error?.message ?? res.status}`);
  return body.result;
}
