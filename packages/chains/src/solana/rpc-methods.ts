/**
 * The devnet's JSON-RPC methods: each translates one call to the chain state machine (chain.ts).
 * Non-standard: `devnet_advanceSlots [n]` and `devnet_fundWallet [{to, lamports?, usdcBaseUnits?}]`.
 */
import {
  address,
  getBase58Decoder,
  getBase58Encoder,
  getBase64Decoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  type Address,
  type KeyPairSigner,
  type MaybeEncodedAccount,
} from '@solana/kit';
import {
  LAMPORTS_PER_SIGNATURE,
  RpcError,
  SLOTS_PER_EPOCH,
  uiTokenAmount,
  type Commitment,
  type LocalChain,
} from './chain.ts';
import type { FundSolanaWalletOptions } from './devnet.ts';

const U64_MAX = 18_446_744_073_709_551_615n;
const b58enc = getBase58Encoder();
const b58dec = getBase58Decoder();
const b64enc = getBase64Encoder();
const b64dec = getBase64Decoder();
const msgDecoder = getCompiledTransactionMessageDecoder();

export interface RpcContext {
  chain: LocalChain;
  faucet: KeyPairSigner;
  advanceSlots(n: number): number;
  fundWallet(o: FundSolanaWalletOptions): Promise<{ signatures: string[] }>;
}

/** One JSON-RPC request object in, its response object out (errors as JSON-RPC errors, never thrown). */
export function createRpcHandler({ chain, faucet, advanceSlots, fundWallet }: RpcContext): (req: unknown) => Promise<Record<string, unknown>> {
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
    getTokenAccountsByOwner: (p) => {
      const filter = cfg(p, 1);
      const c = cfg(p, 2);
      const commitment = commitmentOf(c);
      if (c?.encoding !== 'base64') throw new RpcError(-32602, 'Invalid params: this devnet answers getTokenAccountsByOwner in base64 encoding only');
      let accounts: ReturnType<typeof chain.tokenAccountsOf>;
      if (typeof filter?.programId === 'string') accounts = chain.tokenAccountsOf(addr(p, 0), addr([filter.programId], 0), commitment);
      else if (typeof filter?.mint === 'string') {
        const mint = addr([filter.mint], 0);
        const program = chain.account(mint, commitment);
        if (!program.exists) throw new RpcError(-32602, 'Invalid param: could not find mint');
        accounts = chain.tokenAccountsOf(addr(p, 0), program.programAddress, commitment).filter((t) => chain.tokenAccountFields(t.account)?.mint === mint);
      } else throw new RpcError(-32602, 'Invalid params: expected {mint} or {programId}');
      return { context: { slot: BigInt(chain.commitmentSlot(commitment)) }, value: accounts.map((t) => ({ pubkey: t.address, account: encodeAccount(t.account, 'base64') })) };
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
  return handleOne;
}

/** JSON with bigints emitted as raw JSON numbers (kit parses u64s back into bigint). */
export function toJson(value: unknown): string {
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
