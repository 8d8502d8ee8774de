/**
 * SolanaGateway over plain JSON-RPC (fetch + AbortSignal.timeout); transactions are built with @solana/kit and
 * @solana-program/{system,token} (classic SPL Token program; Token-2022 mints are not handled).
 *
 * Error mapping (see packages/domain/src/transactions/gateways.ts):
 * - network error, time-out, HTTP non-2xx, unparsable body, missing batch entry, JSON-RPC -32603 / -32005
 *   (node unhealthy) and other server-side errors on reads → ChainUnavailableError;
 * - sendTransaction refused (preflight -32002, signature failure -32003, undecodable -32602, ...) →
 *   BroadcastRejectedError: BLOCKHASH_NOT_FOUND, ALREADY_PROCESSED, INSUFFICIENT_NATIVE_BALANCE (fee payer cannot
 *   pay the fee / its rent, or a System transfer lacks lamports), INVALID_TRANSACTION, otherwise EXECUTION_FAILED for
 *   a failed simulation (including an SPL "insufficient funds", which is a token balance, and a new recipient left
 *   below the rent-exempt minimum) and REJECTED for the rest.
 * - client errors on reads (invalid params such as a malformed address) → JsonRpcError.
 *
 * Reads use `confirmed` commitment (blockhash validity: `processed`; finalized block height: `finalized`).
 */
import {
  address,
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase58Decoder,
  getBase64Encoder,
  getBase64EncodedWireTransaction,
  lamports,
  pipe,
  setTransactionMessageFeePayerSigner,
  setTransactionMessageLifetimeUsingBlockhash,
  type Instruction,
} from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS, getTransferSolInstruction } from '@solana-program/system';
import {
  TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenIdempotentInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import {
  BroadcastRejectedError,
  ChainUnavailableError,
  type SolanaGateway,
  type SolanaSignatureStatus,
} from '@wallet/domain/transactions/gateways.ts';
import { JsonRpcClient, isUnavailableError, type RpcCall } from './json-rpc.ts';

export interface CreateSolanaGatewayOptions {
  /** e.g. SOLANA_DEVNET. */
  network: string;
  rpcUrl: string;
  /** Per HTTP request (default 10 s). */
  timeoutMs?: number;
  /** Wire format of `buildTransfer` (default v0). */
  transactionVersion?: 'legacy' | 0;
}

/** getSignatureStatuses accepts at most this many signatures per call. */
export const MAX_SIGNATURES_PER_STATUS_CALL = 256;
const NONCE_ACCOUNT_SIZE = 80;
const MINT_SIZE = 82;

const b58 = getBase58Decoder(); // bytes -> base58 string
const b64 = getBase64Encoder(); // base64 string -> bytes

/**
 * JSON.parse that keeps integers beyond 2^53 exact (as bigint): Solana answers u64 values (lamports, token amounts)
 * as bare JSON numbers.
 */
export function parseJsonWithU64(text: string): unknown {
  const MARK = '\u0000u64:'; // written into the JSON text escaped (a raw control character is not valid JSON)
  const safe = text.replace(/"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g, (m) =>
    m.startsWith('"') || /[.eE]/.test(m) || Number.isSafeInteger(Number(m)) ? m : `"\\u0000u64:${m}"`,
  );
  return JSON.parse(safe, (_k, v: unknown) => (typeof v === 'string' && v.startsWith(MARK) ? BigInt(v.slice(MARK.length)) : v));
}

const big = (v: unknown, what: string): bigint => {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (typeof v === 'string' && /^\d+$/.test(v)) return BigInt(v);
  throw new ChainUnavailableError(`unexpected ${what} in RPC answer: ${String(v)}`);
};

interface AccountInfo {
  owner: string;
  data: [string, string] | string;
  lamports: unknown;
}

function accountBytes(a: AccountInfo): Uint8Array {
  if (!Array.isArray(a.data) || a.data[1] !== 'base64') throw new ChainUnavailableError('getAccountInfo did not answer base64 data');
  return b64.encode(a.data[0]) as Uint8Array;
}

const errName = (err: unknown): string | undefined =>
  typeof err === 'string' ? err : err && typeof err === 'object' ? Object.keys(err)[0] : undefined;

const rentAccountIndex = (err: unknown): number | undefined =>
  (err as { InsufficientFundsForRent?: { account_index?: number } }).InsufficientFundsForRent?.account_index;

/** Map a refused sendTransaction to a BroadcastRejectedError code. */
export function classifySolanaRejection(rpcCode: number, message: string, data?: unknown): string {
  const d = (data && typeof data === 'object' ? data : {}) as { err?: unknown; logs?: unknown };
  const name = errName(d.err);
  const logs = Array.isArray(d.logs) ? d.logs.map(String).join('\n') : '';
  if (name === 'BlockhashNotFound' || /blockhash not found/i.test(message)) return 'BLOCKHASH_NOT_FOUND';
  if (name === 'AlreadyProcessed' || /already (been )?processed/i.test(message)) return 'ALREADY_PROCESSED';
  if (
    name === 'InsufficientFundsForFee' ||
    // Rent shortfall of the fee payer (index 0); for another account (e.g. a new recipient funded below the rent-exempt
    // minimum) it is the transaction's fault, not the balance's.
    (name === 'InsufficientFundsForRent' && rentAccountIndex(d.err) === 0) ||
    name === 'AccountNotFound' || // the fee payer has never been credited
    /insufficient lamports/i.test(message) ||
    /insufficient lamports/i.test(logs) ||
    /insufficient funds for fee/i.test(message)
  ) {
    return 'INSUFFICIENT_NATIVE_BALANCE';
  }
  if (
    rpcCode === -32003 ||
    rpcCode === -32602 ||
    name === 'SignatureFailure' ||
    name === 'SanitizeFailure' ||
    name === 'InvalidAccountForFee' ||
    name === 'MissingSignatureForFee' ||
    name === 'UnsupportedVersion'
  ) {
    return 'INVALID_TRANSACTION';
  }
  if (rpcCode === -32002 || d.err !== undefined) return 'EXECUTION_FAILED';
  return 'REJECTED';
}

export function createSolanaGateway(opts: CreateSolanaGatewayOptions): SolanaGateway {
  const { network, rpcUrl, timeoutMs = 10_000, transactionVersion = 0 } = opts;
  const label = `solana:${network}`;
  const rpc = new JsonRpcClient({ url: rpcUrl, timeoutMs, label, parse: parseJsonWithU64 });

  async function accountInfo(addr: string): Promise<AccountInfo | null> {
    const res = await rpc.read<{ value: AccountInfo | null }>('getAccountInfo', [addr, { encoding: 'base64', commitment: 'confirmed' }]);
    return res?.value ?? null;
  }

  async function mintDecimals(mint: string): Promise<number | null> {
    const a = await accountInfo(mint);
    if (!a || a.owner !== TOKEN_PROGRAM_ADDRESS) return null;
    const data = accountBytes(a);
    // Mint: mintAuthority COption<Pubkey> (36) | supply u64 (8) | decimals u8 @44 | isInitialized bool @45 | freezeAuthority (36).
    if (data.length !== MINT_SIZE || data[45] !== 1) return null;
    return data[44]!;
  }

  async function exists(addr: string): Promise<boolean> {
    return (await accountInfo(addr)) !== null;
  }

  return {
    network,

    async getLatestBlockhash() {
      const res = await rpc.read<{ value: { blockhash: string; lastValidBlockHeight: unknown } }>('getLatestBlockhash', [{ commitment: 'confirmed' }]);
      return { blockhash: res.value.blockhash, lastValidBlockHeight: big(res.value.lastValidBlockHeight, 'lastValidBlockHeight') };
    },

    async isBlockhashValid(hash) {
      const res = await rpc.read<{ value: unknown }>('isBlockhashValid', [hash, { commitment: 'processed' }]);
      return res.value === true;
    },

    async getFinalizedBlockHeight() {
      return big(await rpc.read('getBlockHeight', [{ commitment: 'finalized' }]), 'block height');
    },

    async getFinalizedSlot() {
      return big(await rpc.read('getSlot', [{ commitment: 'finalized' }]), 'slot');
    },

    async getBalance(addr) {
      const res = await rpc.read<{ value: unknown }>('getBalance', [addr, { commitment: 'confirmed' }]);
      return big(res.value, 'balance');
    },

    async getTokenBalance(owner, mint) {
      const [ata] = await findAssociatedTokenPda({ owner: address(owner), mint: address(mint), tokenProgram: TOKEN_PROGRAM_ADDRESS });
      if (!(await exists(ata))) return 0n;
      const res = await rpc.read<{ value: { amount: unknown } }>('getTokenAccountBalance', [ata, { commitment: 'confirmed' }]);
      return big(res.value.amount, 'token balance');
    },

    getMintDecimals: mintDecimals,

    accountExists: exists,

    async getNonceAccount(addr) {
      const a = await accountInfo(addr);
      if (!a || a.owner !== SYSTEM_PROGRAM_ADDRESS) return null;
      const data = accountBytes(a);
      if (data.length !== NONCE_ACCOUNT_SIZE) return null;
      const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
      // nonce::state::Versions: u32 version (0 legacy, 1 current) | u32 state (0 uninitialized, 1 initialized) |
      // authority [32] | durable nonce [32] | fee calculator u64. Legacy-version nonces cannot be used by
      // transactions any more (they must be upgraded first), so they count as invalid here.
      if (view.getUint32(0, true) !== 1 || view.getUint32(4, true) !== 1) return null;
      return { authority: b58.decode(data.subarray(8, 40)), nonce: b58.decode(data.subarray(40, 72)) };
    },

    async getFeeForMessage(messageBase64) {
      const res = await rpc.read<{ value: unknown }>('getFeeForMessage', [messageBase64, { commitment: 'processed' }]);
      return res.value === null || res.value === undefined ? null : big(res.value, 'fee');
    },

    async buildTransfer(plan) {
      const from = address(plan.from);
      const to = address(plan.to);
      if (plan.amount <= 0n) throw new BroadcastRejectedError('INVALID_TRANSACTION', 'transfer amount must be positive');
      const payer = createNoopSigner(from);
      const instructions: Instruction[] = [];
      let createsTokenAccount = false;
      if (plan.mint === undefined) {
        instructions.push(getTransferSolInstruction({ source: payer, destination: to, amount: lamports(plan.amount) }));
      } else {
        const mint = address(plan.mint);
        const [[source], [destination], decimals] = await Promise.all([
          findAssociatedTokenPda({ owner: from, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
          findAssociatedTokenPda({ owner: to, mint, tokenProgram: TOKEN_PROGRAM_ADDRESS }),
          mintDecimals(mint),
        ]);
        if (decimals === null) throw new BroadcastRejectedError('INVALID_TRANSACTION', `${mint} is not an SPL Token mint`);
        createsTokenAccount = !(await exists(destination));
        if (createsTokenAccount) {
          instructions.push(getCreateAssociatedTokenIdempotentInstruction({ payer, ata: destination, owner: to, mint }));
        }
        instructions.push(getTransferCheckedInstruction({ source, mint, destination, authority: payer, amount: plan.amount, decimals }));
      }
      const message = pipe(
        createTransactionMessage({ version: transactionVersion }),
        (m) => setTransactionMessageFeePayerSigner(payer, m),
        // lastValidBlockHeight is not part of the wire format.
        (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(plan.recentBlockhash), lastValidBlockHeight: 0n }, m),
        (m) => appendTransactionMessageInstructions(instructions, m),
      );
      // Unsigned: every signature slot (here only the fee payer's) is 64 zero bytes.
      return { transaction: getBase64EncodedWireTransaction(compileTransaction(message)), createsTokenAccount };
    },

    async sendTransaction(wireBase64) {
      const o = await rpc.request('sendTransaction', [wireBase64, { encoding: 'base64', skipPreflight: false, preflightCommitment: 'confirmed' }]);
      if (o.ok) {
        if (typeof o.result !== 'string') throw new ChainUnavailableError(`${label} sendTransaction answered ${String(o.result)}`);
        return o.result;
      }
      const e = o.error;
      if (isUnavailableError(e) && e.code !== -32002 && e.code !== -32003) {
        throw new ChainUnavailableError(`${label} RPC unavailable: sendTransaction failed (${e.code}: ${e.message})`);
      }
      const err = new BroadcastRejectedError(classifySolanaRejection(e.code, e.message, e.data), e.message);
      (err as { data?: unknown }).data = e.data;
      throw err;
    },

    async getSignatureStatuses(signatures) {
      if (signatures.length === 0) return [];
      const calls: RpcCall[] = [];
      for (let i = 0; i < signatures.length; i += MAX_SIGNATURES_PER_STATUS_CALL) {
        calls.push({ method: 'getSignatureStatuses', params: [signatures.slice(i, i + MAX_SIGNATURES_PER_STATUS_CALL), { searchTransactionHistory: true }] });
      }
      const answers = calls.length === 1 ? [await rpc.read(calls[0]!.method, calls[0]!.params)] : await rpc.readBatch(calls);
      const out: (SolanaSignatureStatus | null)[] = [];
      answers.forEach((a, chunk) => {
        const value = (a as { value?: unknown } | null)?.value;
        const expected = calls[chunk]!.params[0] as string[];
        if (!Array.isArray(value) || value.length !== expected.length) {
          throw new ChainUnavailableError(`${label} getSignatureStatuses answered ${value === undefined ? 'nothing' : `${(value as unknown[]).length ?? '?'} entries`} for ${expected.length}`);
        }
        for (const s of value as ({ slot: unknown; confirmationStatus?: unknown; err?: unknown } | null)[]) {
          if (!s) {
            out.push(null);
            continue;
          }
          const cs = s.confirmationStatus;
          out.push({
            slot: big(s.slot, 'slot'),
            confirmationStatus: cs === 'processed' || cs === 'confirmed' || cs === 'finalized' ? cs : null,
            err: s.err ?? null,
          });
        }
      });
      return out;
    },
  };
}
