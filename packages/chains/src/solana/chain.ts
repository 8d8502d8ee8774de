/**
 * The local Solana devnet's chain state machine over an in-process LiteSVM (see devnet.ts for the
 * chain and commitment model); rpc-methods.ts translates JSON-RPC calls to calls on it.
 */
import { Clock, FailedTransactionMetadata, LiteSVM } from 'litesvm';
import {
  address,
  blockhash as toBlockhash,
  getBase58Decoder,
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
import { buildSignedTransaction, formatUiAmount } from './spl.ts';
import { describeTransactionError, transactionErrorToJson, type RpcTransactionError } from './txError.ts';

export type Commitment = 'processed' | 'confirmed' | 'finalized';

/** Blockhashes stay valid for this many slots after the slot that produced them (mainnet MAX_PROCESSING_AGE). */
export const BLOCKHASH_VALID_SLOTS = 150;
export const LAMPORTS_PER_SIGNATURE = 5000n;
export const COMMITMENT_LAG: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };
export const SLOTS_PER_EPOCH = 432_000;
const COMPUTE_BUDGET_PROGRAM = address('ComputeBudget111111111111111111111111111111');
const SYSTEM_PROGRAM = address('11111111111111111111111111111111');
/** System instruction index of AdvanceNonceAccount, and the size of a nonce account (nonce::state::Versions). */
const ADVANCE_NONCE_ACCOUNT = 4;
const NONCE_ACCOUNT_SIZE = 80;
const TOKEN_2022_PROGRAM = address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb');
/** A Token-2022 account longer than a classic one says what it is at this offset (2: an account, 1: a mint). */
const TOKEN_2022_ACCOUNT_TYPE_OFFSET = 165;

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

/** A landed transaction as kept in the state file (the decoded forms are rebuilt from `wire`). */
export type StoredTx = Omit<TxRecord, 'tx' | 'message'>;

export interface ChainState {
  genesisHash: string;
  slot: number;
  transactionCount: number;
  airdropNonce: number;
  /** [slot, blockhash, unix time] of the slots whose blockhashes are still remembered. */
  blockhashes: Array<[number, string, number]>;
  txs: StoredTx[];
  /** LiteSVM's own snapshot: accounts, sysvars, feature set. */
  svm: Uint8Array;
}

interface AccountWrite {
  slot: number;
  address: Address;
  pre: MaybeEncodedAccount;
}

const b58dec = getBase58Decoder(); // bytes -> string
const b64enc = getBase64Encoder();
const txDecoder = getTransactionDecoder();
const msgDecoder = getCompiledTransactionMessageDecoder();
const tokenDecoder = getTokenDecoder();
const mintDecoder = getMintDecoder();

export class LocalChain {
  readonly svm: LiteSVM;
  slot = 0;
  /**
   * Random per chain (LiteSVM's first blockhash is the same in every instance), kept in the state
   * file: a devnet that answers another genesis hash than before has started fresh.
   */
  readonly genesisHash: string;
  private readonly blockhashSlot = new Map<string, number>();
  private readonly slotBlockhash = new Map<number, string>();
  private readonly slotTime = new Map<number, number>();
  private readonly txs = new Map<string, TxRecord>();
  private writes: AccountWrite[] = [];
  /** Every account a landed transaction left as a token account (either program), for getTokenAccountsByOwner. */
  private readonly tokenAccountAddresses = new Set<Address>();
  private airdropNonce = 0;
  transactionCount = 0;

  constructor(restored?: ChainState) {
    // LiteSVM's own blockhash check (latest only) is off: isLifetimeValid implements the validity window.
    this.svm = (restored ? LiteSVM.fromBytes(restored.svm) : new LiteSVM()).withBlockhashCheck(false);
    if (!restored) {
      this.genesisHash = b58dec.decode(crypto.getRandomValues(new Uint8Array(32)));
      this.enterSlot(0);
      return;
    }
    this.genesisHash = restored.genesisHash;
    this.transactionCount = restored.transactionCount;
    this.airdropNonce = restored.airdropNonce;
    for (const [slot, hash, time] of restored.blockhashes) {
      this.blockhashSlot.set(hash, slot);
      this.slotBlockhash.set(slot, hash);
      this.slotTime.set(slot, time);
    }
    for (const stored of restored.txs) {
      const { tx, message } = this.decode(stored.wire);
      this.txs.set(stored.signature, { ...stored, tx, message });
      this.noteTokenAccounts(message.staticAccounts);
    }
    this.slot = restored.slot;
    // The journal of the last two slots is not kept: two more slots make everything before the stop final.
    this.advance(2);
  }

  /** Everything needed to continue this chain in another process (see state-file.ts). */
  toState(): ChainState {
    return {
      genesisHash: this.genesisHash,
      slot: this.slot,
      transactionCount: this.transactionCount,
      airdropNonce: this.airdropNonce,
      blockhashes: [...this.slotBlockhash].map(([slot, hash]) => [slot, hash, this.slotTime.get(slot) ?? 0]),
      txs: [...this.txs.values()].map(({ tx: _tx, message: _message, ...stored }) => stored),
      svm: this.svm.toBytes(),
    };
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
    this.noteTokenAccounts(keys);
    return signature;
  }

  private noteTokenAccounts(keys: readonly Address[]): void {
    for (const k of keys) if (this.tokenAccountFields(this.svm.getAccount(k))) this.tokenAccountAddresses.add(k);
  }

  /** Mint, owner and amount of a token account of either program (the first 165 bytes are the same layout), else null. */
  tokenAccountFields(a: MaybeEncodedAccount): { mint: Address; owner: Address; amount: bigint } | null {
    if (!a.exists || (a.programAddress !== TOKEN_PROGRAM_ADDRESS && a.programAddress !== TOKEN_2022_PROGRAM)) return null;
    const size = getTokenSize();
    const data = a.data as Uint8Array;
    if (a.programAddress === TOKEN_PROGRAM_ADDRESS ? data.length !== size : data.length < size || (data.length > size && data[TOKEN_2022_ACCOUNT_TYPE_OFFSET] !== 2)) return null;
    const token = tokenDecoder.decode(data.subarray(0, size));
    return { mint: token.mint, owner: token.owner, amount: token.amount };
  }

  /** The token accounts of `owner` under `program` as the bank at `commitment` sees them. */
  tokenAccountsOf(owner: Address, program: Address, commitment?: Commitment): { address: Address; account: MaybeEncodedAccount }[] {
    const out: { address: Address; account: MaybeEncodedAccount }[] = [];
    for (const addr of this.tokenAccountAddresses) {
      const account = this.account(addr, commitment);
      if (account.exists && account.programAddress === program && this.tokenAccountFields(account)?.owner === owner) out.push({ address: addr, account });
    }
    return out;
  }

  private tokenBalances(accounts: MaybeEncodedAccount[]): TokenBalance[] {
    const out: TokenBalance[] = [];
    accounts.forEach((a, i) => {
      const t = this.decodeTokenAccount(a);
      if (t && a.exists) out.push({ accountIndex: i, mint: t.mint, owner: t.owner, programId: a.programAddress, uiTokenAmount: uiTokenAmount(t.amount, t.decimals) });
    });
    return out;
  }

  decodeTokenAccount(a: MaybeEncodedAccount, commitment?: Commitment): { mint: Address; owner: Address; amount: bigint; decimals: number } | null {
    const token = this.tokenAccountFields(a);
    if (!token) return null;
    const mint = this.account(token.mint, commitment);
    // A Token-2022 mint with extensions is longer; its first 82 bytes are the classic layout.
    const decimals = mint.exists && mint.data.length >= getMintSize() ? mintDecoder.decode(mint.data.subarray(0, getMintSize())).decimals : 0;
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

export function uiTokenAmount(amount: bigint, decimals: number) {
  const s = formatUiAmount(amount, decimals);
  return { amount: amount.toString(), decimals, uiAmount: Number(s), uiAmountString: s };
}
