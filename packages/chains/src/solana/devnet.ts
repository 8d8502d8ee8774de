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
 * Non-standard methods: `devnet_advanceSlots [n]` (advance n slots now, returns the new slot) and
 * `devnet_fundWallet [{to, lamports?, usdcBaseUnits?}]` (amounts as strings/numbers; returns {signatures}).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Clock, FailedTransactionMetadata, LiteSVM } from 'litesvm';
import {
  address,
  blockhash as toBlockhash,
  generateKeyPairSigner,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  lamports as toLamports,
  type Address,
  type CompiledTransactionMessage,
  type CompiledTransactionMessageWithLifetime,
  type Instruction,
  type KeyPairSigner,
  type MaybeEncodedAccount,
  type Transaction,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { TOKEN_PROGRAM_ADDRESS, getMintDecoder, getMintSize, getTokenDecoder, getTokenSize } from '@solana-program/token';
import {
  USDC_DECIMALS,
  buildSignedTransaction,
  formatUiAmount,
  getCreateMintInstructions,
  getMintToOwnerInstructions,
} from './spl.ts';
import { describeTransactionError, transactionErrorToJson, type RpcTransactionError } from './txError.ts';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** Blockhashes stay valid for this many slots after the slot that produced them (mainnet MAX_PROCESSING_AGE). */
export const BLOCKHASH_VALID_SLOTS = 150;
export const LAMPORTS_PER_SIGNATURE = 5000n;
const COMMITMENT_LAG: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };
const SLOTS_PER_EPOCH = 432_000;
const U64_MAX = 18_446_744_073_709_551_615n;
const COMPUTE_BUDGET_PROGRAM = address('ComputeBudget111111111111111111111111111111');
const SYSTEM_PROGRAM = address('11111111111111111111111111111111');
/** System instruction index of AdvanceNonceAccount, and the size of a nonce account (nonce::state::Versions). */
const ADVANCE_NONCE_ACCOUNT = 4;
const NONCE_ACCOUNT_SIZE = 80;

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
}

/** JSON-RPC error carrying code/message/data. */
export class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { amount: string; decimals: number; uiAmount: number; uiAmountString: string };
}

interface TxRecord {
  signature: string;
  slot: number;
  blockTime: number;
  err: RpcTransactionError | null;
  fee: bigint;
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  logs: string[];
  computeUnits: bigint;
  wire: Uint8Array;
  tx: Transaction;
  message: CompiledTransactionMessage & CompiledTransactionMessageWithLifetime;
}

interface AccountWrite {
  slot: number;
  address: Address;
  pre: MaybeEncodedAccount;
}

const b58enc = getBase58Encoder(); // string -> bytes
const b58dec = getBase58Decoder(); // bytes -> string
const b64enc = getBase64Encoder();
const b64dec = getBase64Decoder();
const txDecoder = getTransactionDecoder();
const msgDecoder = getCompiledTransactionMessageDecoder();
const tokenDecoder = getTokenDecoder();
const mintDecoder = getMintDecoder();

/** The chain state machine; the HTTP layer below only translates JSON-RPC to calls on this. */
class LocalChain {
  readonly svm = new LiteSVM().withBlockhashCheck(false);
  slot = 0;
  readonly genesisHash: string;
  private readonly blockhashSlot = new Map<string, number>();
  private readonly slotBlockhash = new Map<number, string>();
  private readonly slotTime = new Map<number, number>();
  private readonly txs = new Map<string, TxRecord>();
  private writes: AccountWrite[] = [];
  private airdropNonce = 0;
  transactionCount = 0;

  constructor() {
    this.genesisHash = this.svm.latestBlockhash();
    this.enterSlot(0);
  }

  private enterSlot(slot: number): void {
    const now = Math.floor(Date.now() / 1000);
    const epoch = BigInt(Math.floor(slot / SLOTS_PER_EPOCH));
    this.svm.setClock(new Clock(BigInt(slot), BigInt(now), epoch, epoch, BigInt(now)));
    const hash = this.svm.latestBlockhash();
    this.slot = slot;
    this.blockhashSlot.set(hash, slot);
    this.slotBlockhash.set(slot, hash);
    this.slotTime.set(slot, now);
    // Keep 2x the validity window of history around, then forget (so ancient hashes read as "not found").
    const forget = slot - 2 * BLOCKHASH_VALID_SLOTS;
    const old = this.slotBlockhash.get(forget);
    if (old !== undefined) {
      this.blockhashSlot.delete(old);
      this.slotBlockhash.delete(forget);
      this.slotTime.delete(forget);
    }
    // Writes at slots <= slot-2 are visible at every commitment now.
    if (this.writes.length > 0) this.writes = this.writes.filter((w) => w.slot > slot - 2);
  }

  advance(n = 1): number {
    for (let i = 0; i < n; i++) {
      this.svm.expireBlockhash();
      this.enterSlot(this.slot + 1);
    }
    return this.slot;
  }

  commitmentSlot(commitment: Commitment = 'finalized'): number {
    return Math.max(0, this.slot - COMMITMENT_LAG[commitment]);
  }

  latestBlockhash(commitment?: Commitment): { slot: number; blockhash: string; lastValidBlockHeight: number } {
    const slot = this.commitmentSlot(commitment);
    const hash = this.slotBlockhash.get(slot);
    if (hash === undefined) throw new Error(`no blockhash for slot ${slot}`);
    return { slot, blockhash: hash, lastValidBlockHeight: slot + BLOCKHASH_VALID_SLOTS };
  }

  isBlockhashValid(hash: string, commitment: Commitment = 'finalized'): boolean {
    const issued = this.blockhashSlot.get(hash);
    const at = this.commitmentSlot(commitment);
    return issued !== undefined && issued <= at && at - issued <= BLOCKHASH_VALID_SLOTS;
  }

  /**
   * Whether a message's lifetime is still good: a recent blockhash, or (durable nonce) a first instruction
   * System AdvanceNonceAccount on a nonce account whose stored nonce is the message's lifetime token.
   */
  isLifetimeValid(message: CompiledTransactionMessage & CompiledTransactionMessageWithLifetime, commitment: Commitment = 'finalized'): boolean {
    if (this.isBlockhashValid(message.lifetimeToken, commitment)) return true;
    const first = 'instructions' in message ? message.instructions[0] : undefined;
    if (!first || message.staticAccounts[first.programAddressIndex] !== SYSTEM_PROGRAM) return false;
    const data = first.data;
    if (!data || data.length < 4 || new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(0, true) !== ADVANCE_NONCE_ACCOUNT) return false;
    const nonceAccount = first.accountIndices?.[0] === undefined ? undefined : message.staticAccounts[first.accountIndices[0]];
    return nonceAccount !== undefined && this.storedNonce(nonceAccount, commitment) === message.lifetimeToken;
  }

  /** The durable nonce (base58) held by an initialized, current-version System nonce account, else null. */
  storedNonce(addr: Address, commitment?: Commitment): string | null {
    const a = this.account(addr, commitment);
    if (!a.exists || a.programAddress !== SYSTEM_PROGRAM || a.data.length !== NONCE_ACCOUNT_SIZE) return null;
    const d = a.data as Uint8Array;
    const view = new DataView(d.buffer, d.byteOffset, d.byteLength);
    if (view.getUint32(0, true) !== 1 || view.getUint32(4, true) !== 1) return null; // version Current, state Initialized
    return b58dec.decode(d.subarray(40, 72));
  }

  /** Account as seen by the bank at `commitment` (undoing journaled writes newer than that bank). */
  account(addr: Address, commitment?: Commitment): MaybeEncodedAccount {
    const at = this.commitmentSlot(commitment);
    for (const w of this.writes) if (w.slot > at && w.address === addr) return w.pre;
    return this.svm.getAccount(addr);
  }

  decode(wire: Uint8Array): { tx: Transaction; message: TxRecord['message']; signature: string } {
    let tx: Transaction;
    let message: TxRecord['message'];
    try {
      tx = txDecoder.decode(wire);
      message = msgDecoder.decode(tx.messageBytes);
    } catch (e) {
      throw new RpcError(-32602, `invalid transaction: failed to deserialize (${(e as Error).message})`);
    }
    const feePayer = message.staticAccounts[0];
    const sigBytes = feePayer === undefined ? null : tx.signatures[feePayer];
    if (!sigBytes) throw new RpcError(-32602, 'invalid transaction: missing fee payer signature');
    return { tx, message, signature: b58dec.decode(sigBytes) };
  }

  private simulateRaw(tx: Transaction, sigVerify: boolean) {
    const prev = this.svm.withSigverify(sigVerify);
    try {
      return prev.simulateTransaction(tx);
    } finally {
      this.svm.withSigverify(true);
    }
  }

  simulate(
    wire: Uint8Array,
    opts: { sigVerify?: boolean; replaceRecentBlockhash?: boolean; commitment?: Commitment },
  ): Record<string, unknown> {
    const { tx, message } = this.decode(wire);
    const base = { accounts: null, returnData: null, innerInstructions: null, loadedAccountsDataSize: 0 };
    if (!opts.replaceRecentBlockhash && !this.isLifetimeValid(message, 'processed')) {
      return { ...base, err: 'BlockhashNotFound', logs: [], unitsConsumed: 0 };
    }
    let res: ReturnType<LocalChain['simulateRaw']>;
    try {
      res = this.simulateRaw(tx, opts.sigVerify ?? false);
    } catch (e) {
      return { ...base, err: 'SignatureFailure', logs: [String((e as Error).message)], unitsConsumed: 0 };
    }
    const meta = res.meta();
    const out: Record<string, unknown> = {
      ...base,
      err: res instanceof FailedTransactionMetadata ? transactionErrorToJson(res.err()) : null,
      logs: meta.logs(),
      unitsConsumed: meta.computeUnitsConsumed(),
    };
    if (opts.replaceRecentBlockhash) {
      const { blockhash, lastValidBlockHeight } = this.latestBlockhash('processed');
      out.replacementBlockhash = { blockhash, lastValidBlockHeight };
    }
    return out;
  }

  /** sendTransaction: returns the signature or throws RpcError (preflight failures). */
  send(wire: Uint8Array, opts: { skipPreflight?: boolean }): string {
    const { tx, message, signature } = this.decode(wire);
    const preflight = !opts.skipPreflight;
    const preflightError = (err: RpcTransactionError, logs: string[] = [], units: bigint | number = 0) =>
      new RpcError(-32002, `Transaction simulation failed: ${describeTransactionError(err)}`, {
        err,
        logs,
        accounts: null,
        unitsConsumed: units,
        returnData: null,
        innerInstructions: null,
      });
    if (this.txs.has(signature)) {
      if (preflight) throw preflightError('AlreadyProcessed');
      return signature;
    }
    if (!this.isLifetimeValid(message, 'processed')) {
      if (preflight) throw preflightError('BlockhashNotFound');
      return signature; // accepted by the "node", never lands
    }
    if (Object.values(tx.signatures).some((s) => s === null)) {
      throw new RpcError(-32003, 'Transaction signature verification failure');
    }
    if (preflight) {
      const sim = this.simulateRaw(tx, true);
      if (sim instanceof FailedTransactionMetadata) {
        const m = sim.meta();
        throw preflightError(transactionErrorToJson(sim.err()), m.logs(), m.computeUnitsConsumed());
      }
    }
    const keys = message.staticAccounts;
    const preAccounts = keys.map((k) => this.svm.getAccount(k));
    const preBalances = preAccounts.map((a) => (a.exists ? BigInt(a.lamports) : 0n));
    const preTokenBalances = this.tokenBalances(preAccounts);
    const res = this.svm.sendTransaction(tx);
    const failed = res instanceof FailedTransactionMetadata;
    const postBalances = keys.map((k) => BigInt(this.svm.getBalance(k) ?? 0n));
    // A failed transaction "landed" iff the fee was charged (LiteSVM commits the fee for execution failures only).
    if (failed && !(postBalances[0]! < preBalances[0]!)) {
      if (preflight) throw preflightError(transactionErrorToJson(res.err()), res.meta().logs());
      return signature; // dropped (e.g. fee payer can't pay)
    }
    const slot = this.slot;
    keys.forEach((k, i) => this.writes.push({ slot, address: k, pre: preAccounts[i]! }));
    const meta = res instanceof FailedTransactionMetadata ? res.meta() : res;
    this.txs.set(signature, {
      signature,
      slot,
      blockTime: this.slotTime.get(slot) ?? Math.floor(Date.now() / 1000),
      err: res instanceof FailedTransactionMetadata ? transactionErrorToJson(res.err()) : null,
      fee: LAMPORTS_PER_SIGNATURE * BigInt(message.header.numSignerAccounts),
      preBalances,
      postBalances,
      preTokenBalances,
      postTokenBalances: this.tokenBalances(keys.map((k) => this.svm.getAccount(k))),
      logs: meta.logs(),
      computeUnits: meta.computeUnitsConsumed(),
      wire,
      tx,
      message,
    });
    this.transactionCount++;
    return signature;
  }

  private tokenBalances(accounts: MaybeEncodedAccount[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    accounts.forEach((a, i) => {
      const t = this.decodeTokenAccount(a);
      if (t) out.push({ accountIndex: i, mint: t.mint, owner: t.owner, programId: TOKEN_PROGRAM_ADDRESS, uiTokenAmount: uiTokenAmount(t.amount, t.decimals) });
    });
    return out;
  }

  decodeTokenAccount(a: MaybeEncodedAccount, commitment?: Commitment): { mint: Address; owner: Address; amount: bigint; decimals: number } | null {
    if (!a.exists || a.programAddress !== TOKEN_PROGRAM_ADDRESS || a.data.length !== getTokenSize()) return null;
    const token = tokenDecoder.decode(a.data);
    const mint = this.account(token.mint, commitment);
    const decimals = mint.exists && mint.data.length === getMintSize() ? mintDecoder.decode(mint.data).decimals : 0;
    return { mint: token.mint, owner: token.owner, amount: token.amount, decimals };
  }

  getTx(signature: string): TxRecord | undefined {
    return this.txs.get(signature);
  }

  status(signature: string): Record<string, unknown> | null {
    const rec = this.txs.get(signature);
    if (!rec) return null;
    const age = this.slot - rec.slot;
    const confirmationStatus: Commitment = age >= 2 ? 'finalized' : age >= 1 ? 'confirmed' : 'processed';
    return {
      slot: rec.slot,
      confirmations: confirmationStatus === 'finalized' ? null : age,
      err: rec.err,
      confirmationStatus,
      status: rec.err === null ? { Ok: null } : { Err: rec.err },
    };
  }

  /** Faucet transfer from the devnet's airdrop keypair; lands immediately (unique per call via a compute-unit-limit nonce). */
  async airdrop(faucet: KeyPairSigner, to: Address, amount: bigint): Promise<string> {
    const nonce = (this.airdropNonce = (this.airdropNonce + 1) % 1_000_000);
    const limit = new Uint8Array(5);
    limit[0] = 2; // SetComputeUnitLimit
    new DataView(limit.buffer).setUint32(1, 10_000 + nonce, true);
    const ixs: Instruction[] = [
      { programAddress: COMPUTE_BUDGET_PROGRAM, data: limit },
      getTransferSolInstruction({ source: faucet, destination: to, amount: toLamports(amount) }),
    ];
    return this.sendInstructions(faucet, ixs);
  }

  async sendInstructions(feePayer: KeyPairSigner, instructions: Instruction[]): Promise<string> {
    const { blockhash, lastValidBlockHeight } = this.latestBlockhash('processed');
    const { wire } = await buildSignedTransaction({
      feePayer,
      instructions,
      blockhash: toBlockhash(blockhash),
      lastValidBlockHeight: BigInt(lastValidBlockHeight),
    });
    const sig = this.send(b64enc.encode(wire) as Uint8Array, {});
    const rec = this.txs.get(sig);
    if (!rec || rec.err) throw new Error(`devnet internal transaction ${sig} failed: ${JSON.stringify(rec?.err)}`);
    return sig;
  }
}

function uiTokenAmount(amount: bigint, decimals: number) {
  const s = formatUiAmount(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(s), uiAmountString: s };
}

/** JSON with bigints emitted as raw JSON numbers (kit parses u64s back into bigint). */
function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v) => (typeof v === 'bigint' ? `__u64__${v}` : v)).replace(/"__u64__(-?\d+)"/g, '$1');
}

type Params = unknown[];
type Config = Record<string, unknown> | undefined;

function cfg(params: Params, index: number): Config {
  const c = params[index];
  return c && typeof c === 'object' && !Array.isArray(c) ? (c as Record<string, unknown>) : undefined;
}
function commitmentOf(c: Config): Commitment | undefined {
  const v = c?.commitment;
  if (v === undefined || v === null) return undefined;
  if (v === 'processed' || v === 'confirmed' || v === 'finalized') return v;
  throw new RpcError(-32602, `Invalid params: unknown commitment ${String(v)}`);
}
function str(params: Params, index: number, what: string): string {
  const v = params[index];
  if (typeof v !== 'string') throw new RpcError(-32602, `Invalid params: expected ${what} at position ${index}`);
  return v;
}
function addr(params: Params, index: number): Address {
  const v = str(params, index, 'address');
  try {
    return address(v);
  } catch {
    throw new RpcError(-32602, `Invalid param: Invalid`);
  }
}
function wireBytes(data: string, encoding: unknown): Uint8Array {
  try {
    return (encoding === 'base64' ? b64enc.encode(data) : b58enc.encode(data)) as Uint8Array;
  } catch {
    throw new RpcError(-32602, `invalid transaction: failed to decode ${String(encoding ?? 'base58')} string`);
  }
}

function encodeAccount(a: MaybeEncodedAccount, encoding: unknown): Record<string, unknown> | null {
  if (!a.exists) return null;
  const bytes = a.data as Uint8Array;
  const data = encoding === 'base58' ? [b58dec.decode(bytes), 'base58'] : encoding === undefined || encoding === 'binary' ? b58dec.decode(bytes) : [b64dec.decode(bytes), 'base64'];
  return { data, executable: a.executable, lamports: BigInt(a.lamports), owner: a.programAddress, rentEpoch: U64_MAX, space: BigInt(bytes.length) };
}

/**
 * Start the devnet. See the module comment for the chain / commitment model.
 */
export async function startSolanaDevnet(opts: StartSolanaDevnetOptions = {}): Promise<SolanaDevnet> {
  const slotMs = opts.slotMs ?? 400;
  const chain = new LocalChain();
  const [faucet, mintAuthority, mint] = await Promise.all([generateKeyPairSigner(), generateKeyPairSigner(), generateKeyPairSigner()]);
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

  const handlers: Record<string, (params: Params) => unknown> = {
    getHealth: () => 'ok',
    getVersion: () => ({ 'solana-core': '2.2.0-litesvm', 'feature-set': 0 }),
    getGenesisHash: () => chain.genesisHash,
    getSlot: (p) => BigInt(chain.commitmentSlot(commitmentOf(cfg(p, 0)))),
    getBlockHeight: (p) => BigInt(chain.commitmentSlot(commitmentOf(cfg(p, 0)))),
    getEpochInfo: (p) => {
      const slot = chain.commitmentSlot(commitmentOf(cfg(p, 0)));
      return {
        absoluteSlot: BigInt(slot),
        blockHeight: BigInt(slot),
        epoch: BigInt(Math.floor(slot / SLOTS_PER_EPOCH)),
        slotIndex: BigInt(slot % SLOTS_PER_EPOCH),
        slotsInEpoch: BigInt(SLOTS_PER_EPOCH),
        transactionCount: BigInt(chain.transactionCount),
      };
    },
    getLatestBlockhash: (p) => {
      const { slot, blockhash, lastValidBlockHeight } = chain.latestBlockhash(commitmentOf(cfg(p, 0)));
      return { context: { slot: BigInt(slot) }, value: { blockhash, lastValidBlockHeight: BigInt(lastValidBlockHeight) } };
    },
    isBlockhashValid: (p) => {
      const c = commitmentOf(cfg(p, 1));
      return { context: { slot: BigInt(chain.commitmentSlot(c)) }, value: chain.isBlockhashValid(str(p, 0, 'blockhash'), c) };
    },
    getFeeForMessage: (p) => {
      const c = commitmentOf(cfg(p, 1));
      let message: ReturnType<typeof msgDecoder.decode>;
      try {
        message = msgDecoder.decode(b64enc.encode(str(p, 0, 'message')));
      } catch {
        throw new RpcError(-32602, 'invalid message');
      }
      const fee = chain.isLifetimeValid(message, c) ? LAMPORTS_PER_SIGNATURE * BigInt(message.header.numSignerAccounts) : null;
      return { context: { slot: BigInt(chain.commitmentSlot(c)) }, value: fee };
    },
    getMinimumBalanceForRentExemption: (p) => chain.svm.minimumBalanceForRentExemption(BigInt(Number(p[0] ?? 0))),
    getBalance: (p) => {
      const c = commitmentOf(cfg(p, 1));
      const a = chain.account(addr(p, 0), c);
      return { context: { slot: BigInt(chain.commitmentSlot(c)) }, value: a.exists ? BigInt(a.lamports) : 0n };
    },
    getAccountInfo: (p) => {
      const c = cfg(p, 1);
      const commitment = commitmentOf(c);
      return { context: { slot: BigInt(chain.commitmentSlot(commitment)) }, value: encodeAccount(chain.account(addr(p, 0), commitment), c?.encoding) };
    },
    getMultipleAccounts: (p) => {
      const c = cfg(p, 1);
      const commitment = commitmentOf(c);
      const list = Array.isArray(p[0]) ? (p[0] as string[]) : [];
      return {
        context: { slot: BigInt(chain.commitmentSlot(commitment)) },
        value: list.map((a) => encodeAccount(chain.account(addr([a], 0), commitment), c?.encoding)),
      };
    },
    getTokenAccountBalance: (p) => {
      const commitment = commitmentOf(cfg(p, 1));
      const t = chain.decodeTokenAccount(chain.account(addr(p, 0), commitment), commitment);
      if (!t) throw new RpcError(-32602, 'Invalid param: could not find account');
      return { context: { slot: BigInt(chain.commitmentSlot(commitment)) }, value: uiTokenAmount(t.amount, t.decimals) };
    },
    sendTransaction: (p) => {
      const c = cfg(p, 1);
      return chain.send(wireBytes(str(p, 0, 'transaction'), c?.encoding), { skipPreflight: c?.skipPreflight === true });
    },
    simulateTransaction: (p) => {
      const c = cfg(p, 1);
      const commitment = commitmentOf(c);
      const value = chain.simulate(wireBytes(str(p, 0, 'transaction'), c?.encoding), {
        sigVerify: c?.sigVerify === true,
        replaceRecentBlockhash: c?.replaceRecentBlockhash === true,
        commitment,
      });
      return { context: { slot: BigInt(chain.slot) }, value };
    },
    getSignatureStatuses: (p) => {
      const sigs = Array.isArray(p[0]) ? (p[0] as unknown[]) : [];
      if (sigs.length > 256) throw new RpcError(-32602, 'Too many inputs provided; max 256');
      return { context: { slot: BigInt(chain.slot) }, value: sigs.map((s) => (typeof s === 'string' ? chain.status(s) : null)) };
    },
    getTransaction: (p) => {
      const sig = str(p, 0, 'signature');
      const c = typeof p[1] === 'string' ? { encoding: p[1] } : cfg(p, 1);
      const commitment = commitmentOf(c) ?? 'finalized';
      if (commitment === 'processed') throw new RpcError(-32602, 'Method does not support commitment below `confirmed`');
      const rec = chain.getTx(sig);
      if (!rec || rec.slot > chain.commitmentSlot(commitment)) return null;
      const maxVersion = c?.maxSupportedTransactionVersion;
      const version = rec.message.version;
      if (version !== 'legacy' && (maxVersion === undefined || maxVersion === null || Number(maxVersion) < version)) {
        throw new RpcError(
          -32015,
          `Transaction version (${version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${version}`,
        );
      }
      const encoding = c?.encoding ?? 'json';
      const m = rec.message;
      const transaction =
        encoding === 'base64'
          ? [b64dec.decode(rec.wire), 'base64']
          : encoding === 'base58'
            ? [b58dec.decode(rec.wire), 'base58']
            : {
                signatures: Object.values(rec.tx.signatures).map((s) => (s ? b58dec.decode(s) : '1111111111111111111111111111111111111111111111111111111111111111')),
                message: {
                  accountKeys: m.staticAccounts,
                  header: {
                    numRequiredSignatures: m.header.numSignerAccounts,
                    numReadonlySignedAccounts: m.header.numReadonlySignerAccounts,
                    numReadonlyUnsignedAccounts: m.header.numReadonlyNonSignerAccounts,
                  },
                  recentBlockhash: m.lifetimeToken,
                  instructions: ('instructions' in m ? m.instructions : []).map((ix) => ({
                    programIdIndex: ix.programAddressIndex,
                    accounts: ix.accountIndices ?? [],
                    data: b58dec.decode(ix.data ?? new Uint8Array()),
                    stackHeight: null,
                  })),
                  ...(version === 'legacy' ? {} : { addressTableLookups: [] }),
                },
              };
      return {
        slot: BigInt(rec.slot),
        blockTime: BigInt(rec.blockTime),
        ...(maxVersion === undefined || maxVersion === null ? {} : { version }),
        transaction,
        meta: {
          err: rec.err,
          status: rec.err === null ? { Ok: null } : { Err: rec.err },
          fee: rec.fee,
          preBalances: rec.preBalances,
          postBalances: rec.postBalances,
          preTokenBalances: rec.preTokenBalances,
          postTokenBalances: rec.postTokenBalances,
          innerInstructions: [],
          logMessages: rec.logs,
          rewards: [],
          loadedAddresses: { writable: [], readonly: [] },
          computeUnitsConsumed: rec.computeUnits,
        },
      };
    },
    devnet_advanceSlots: (p) => BigInt(advanceSlots(Math.max(0, Math.min(10_000, Number(p[0] ?? 1))))),
  };
  const asyncHandlers: Record<string, (params: Params) => Promise<unknown>> = {
    requestAirdrop: async (p) => {
      const amount = BigInt(p[1] as number | string);
      if (amount <= 0n) throw new RpcError(-32602, 'Invalid params: lamports must be > 0');
      return chain.airdrop(faucet, addr(p, 0), amount);
    },
    devnet_fundWallet: async (p) => {
      const o = (cfg(p, 0) ?? {}) as Record<string, unknown>;
      const big = (v: unknown) => (v === undefined || v === null ? undefined : BigInt(v as string | number));
      return fundWallet({
        to: String(o.to),
        lamports: big(o.lamports),
        usdcBaseUnits: big(o.usdcBaseUnits),
        commitment: (o.commitment as Commitment | undefined) ?? 'processed',
      });
    },
  };

  async function handleOne(req: unknown): Promise<Record<string, unknown>> {
    const r = (req && typeof req === 'object' && !Array.isArray(req) ? req : {}) as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown };
    const id = r.id === undefined ? null : r.id;
    if (r.jsonrpc !== '2.0' || typeof r.method !== 'string') {
      return { jsonrpc: '2.0', id, error: { code: -32600, message: 'Invalid request' } };
    }
    const params = Array.isArray(r.params) ? r.params : r.params === undefined || r.params === null ? [] : [r.params];
    try {
      const sync = handlers[r.method];
      const asyncFn = asyncHandlers[r.method];
      if (!sync && !asyncFn) return { jsonrpc: '2.0', id, error: { code: -32601, message: 'Method not found' } };
      const result = sync ? sync(params) : await asyncFn!(params);
      return { jsonrpc: '2.0', id, result };
    } catch (e) {
      if (e instanceof RpcError) {
        return { jsonrpc: '2.0', id, error: { code: e.code, message: e.message, ...(e.data === undefined ? {} : { data: e.data }) } };
      }
      return { jsonrpc: '2.0', id, error: { code: -32603, message: `Internal error: ${(e as Error)?.message ?? String(e)}` } };
    }
  }

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
      for (const w of slotWaiters) w.resolve();
      slotWaiters.clear();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
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
