/**
 * EvmGateway over plain JSON-RPC (fetch + AbortSignal.timeout). The monitor reads (getHeads, getHeadsAndFees,
 * getReceipts, getBlockHashes, getNonces) and getFeeSuggestion are each ONE HTTP request carrying a JSON-RPC batch.
 *
 * Error mapping (see packages/domain/src/transactions/gateways.ts):
 * - network error, time-out, HTTP non-2xx, unparsable body, missing batch entry, JSON-RPC -32603 (and other
 *   server-side errors on reads) → ChainUnavailableError;
 * - eth_sendRawTransaction refused by the node → BroadcastRejectedError with a code derived from the node's text
 *   (geth / anvil / reth wording); "already known" / "transaction already imported" → ALREADY_PROCESSED;
 * - eth_estimateGas failure (revert, ...) → BroadcastRejectedError('EXECUTION_FAILED'), or
 *   INSUFFICIENT_NATIVE_BALANCE when the node says the sender cannot pay.
 * - client errors on reads (invalid params, method not found) → JsonRpcError (a bug in the caller, not the chain).
 * - callAtLatestBlock: a reverting eth_call is a result `{ok: false, revertData, message}`; unavailability throws,
 *   as does a requested block the node does not have.
 */
import {
  BroadcastRejectedError,
  ChainUnavailableError,
  type EvmCallResult,
  type EvmFeeSuggestion,
  type EvmGateway,
  type EvmReceipt,
  type Hex,
} from '@wallet/domain/transactions/gateways.ts';
import { JsonRpcClient, JsonRpcError, isUnavailableError, type RpcCall, type RpcOutcome } from './json-rpc.ts';

export interface CreateEvmGatewayOptions {
  chainId: number;
  rpcUrl: string;
  /** Per HTTP request (default 10 s). */
  timeoutMs?: number;
  /** Largest JSON-RPC batch sent in one HTTP request; longer inputs are split (default 1000, geth's limit). */
  maxBatchSize?: number;
}

const SEND_REJECTIONS: [RegExp, string][] = [
  [/insufficient funds|insufficient balance|not enough funds/i, 'INSUFFICIENT_NATIVE_BALANCE'],
  [/nonce too low|nonce has already been used|invalid nonce.*(lower|too low)|old nonce/i, 'NONCE_TOO_LOW'],
  [/nonce too high|nonce gap|invalid nonce.*(higher|too high)/i, 'NONCE_TOO_HIGH'],
  [/replacement (transaction )?underpriced|replacement fee too low/i, 'REPLACEMENT_UNDERPRICED'],
  [/intrinsic gas too low|gas limit too low|gas too low|out of gas/i, 'GAS_LIMIT_TOO_LOW'],
  [
    /max fee per gas less than block base fee|fee cap less than block base fee|feecap.*(too low|below)|transaction underpriced|gas price too low|gasprice.*too low|fee too low|underpriced/i,
    'FEE_TOO_LOW',
  ],
  [/execution reverted|revert/i, 'EXECUTION_FAILED'],
  [
    /invalid chain ?id|chain ?id mismatch|invalid sender|invalid signature|failed to decode|rlp|invalid transaction|tx type not supported|transaction type not supported|oversized data|exceeds block gas limit|intrinsic gas too high|tip (above|higher than) fee cap|max priority fee per gas higher than max fee per gas|typed transaction too short|exceeds the configured cap/i,
    'INVALID_TRANSACTION',
  ],
];

/** "The node already has exactly this transaction". */
const ALREADY_KNOWN = /already known|already imported|known transaction|already in (the )?(mem)?pool/i;

export function classifyEvmRejection(message: string, fallback = 'REJECTED'): string {
  for (const [re, code] of SEND_REJECTIONS) if (re.test(message)) return code;
  return fallback;
}

const hexToBig = (v: unknown, what: string): bigint => {
  if (typeof v !== 'string' || !/^0x[0-9a-fA-F]*$/.test(v)) throw new ChainUnavailableError(`unexpected ${what} in RPC answer: ${JSON.stringify(v)}`);
  return v === '0x' ? 0n : BigInt(v);
};
const toQuantity = (n: bigint | number): Hex => `0x${n.toString(16)}`;

/** The latest block number and the finalized block: the heads' reads. */
const HEAD_CALLS: RpcCall[] = [
  { method: 'eth_blockNumber', params: [] },
  { method: 'eth_getBlockByNumber', params: ['finalized', false] },
];
/** The latest block (its base fee), the gas price and the priority suggestion: the fee suggestion's reads. */
const FEE_CALLS: RpcCall[] = [
  { method: 'eth_getBlockByNumber', params: ['latest', false] },
  { method: 'eth_gasPrice', params: [] },
  { method: 'eth_maxPriorityFeePerGas', params: [] },
];

export function createEvmGateway(opts: CreateEvmGatewayOptions): EvmGateway {
  const { chainId, rpcUrl, timeoutMs = 10_000, maxBatchSize = 1000 } = opts;
  const label = `evm:${chainId}`;
  const rpc = new JsonRpcClient({ url: rpcUrl, timeoutMs, label });

  /** Batches of reads; one HTTP request when calls.length <= maxBatchSize. */
  async function readBatch(calls: RpcCall[]): Promise<unknown[]> {
    if (calls.length <= maxBatchSize) return rpc.readBatch(calls);
    const chunks: RpcCall[][] = [];
    for (let i = 0; i < calls.length; i += maxBatchSize) chunks.push(calls.slice(i, i + maxBatchSize));
    return (await Promise.all(chunks.map((c) => rpc.readBatch(c)))).flat();
  }

  function receipt(raw: unknown): EvmReceipt | null {
    if (raw === null || raw === undefined) return null;
    const r = raw as { transactionHash?: Hex; status?: string; blockNumber?: string | null; blockHash?: Hex | null; from?: Hex };
    // Some clients answer a pending transaction with a block-less receipt: not mined yet.
    if (r.blockNumber === null || r.blockNumber === undefined || !r.blockHash) return null;
    if (r.status !== '0x1' && r.status !== '0x0') throw new ChainUnavailableError(`${label} receipt ${r.transactionHash} has no usable status (${String(r.status)})`);
    return {
      transactionHash: r.transactionHash as Hex,
      status: r.status === '0x1' ? 'success' : 'reverted',
      blockNumber: hexToBig(r.blockNumber, 'blockNumber'),
      blockHash: r.blockHash,
      from: r.from as Hex,
    };
  }

  function feeSuggestion(block: RpcOutcome, gasPrice: RpcOutcome, priority: RpcOutcome): EvmFeeSuggestion {
    const b = rpc.unwrap('eth_getBlockByNumber', block) as { baseFeePerGas?: string } | null;
    if (!b) throw new ChainUnavailableError(`${label} RPC unavailable: no latest block`);
    const baseFeePerGas = b.baseFeePerGas === undefined ? 0n : hexToBig(b.baseFeePerGas, 'baseFeePerGas');
    const price = hexToBig(rpc.unwrap('eth_gasPrice', gasPrice), 'gasPrice');
    let maxPriorityFeePerGas: bigint;
    if (priority.ok) maxPriorityFeePerGas = hexToBig(priority.result, 'maxPriorityFeePerGas');
    else if (priority.error.code === -32601) maxPriorityFeePerGas = price > baseFeePerGas ? price - baseFeePerGas : 0n; // pre-1559 client
    else maxPriorityFeePerGas = hexToBig(rpc.unwrap('eth_maxPriorityFeePerGas', priority), 'maxPriorityFeePerGas');
    return { baseFeePerGas, maxPriorityFeePerGas, maxFeePerGas: 2n * baseFeePerGas + maxPriorityFeePerGas, gasPrice: price };
  }

  function heads(latest: unknown, finalized: unknown) {
    const head = hexToBig(latest, 'block number');
    const fin = finalized === null || finalized === undefined ? 0n : hexToBig((finalized as { number?: unknown }).number, 'finalized block number');
    // Behind a load balancer the two answers may come from different nodes: never report finalized > latest.
    return { latest: head, finalized: fin > head ? head : fin };
  }

  return {
    chainId,

    async getPendingNonce(address) {
      return Number(hexToBig(await rpc.read('eth_getTransactionCount', [address, 'pending']), 'nonce'));
    },

    async estimateGas(call) {
      const tx: Record<string, unknown> = { from: call.from, to: call.to, value: toQuantity(call.value) };
      if (call.data !== undefined) tx.data = call.data;
      const o = await rpc.request('eth_estimateGas', [tx]);
      if (o.ok) return hexToBig(o.result, 'gas estimate');
      const e = o.error;
      if (isUnavailableError(e)) throw new ChainUnavailableError(`${label} RPC unavailable: eth_estimateGas failed (${e.code}: ${e.message})`);
      if (e.code === -32601 || e.code === -32700 || e.code === -32600 || e.code === -32602) throw new JsonRpcError(e.code, `${label} eth_estimateGas: ${e.message}`, e.data);
      const code = /insufficient funds|insufficient balance/i.test(e.message) ? 'INSUFFICIENT_NATIVE_BALANCE' : 'EXECUTION_FAILED';
      const err = new BroadcastRejectedError(code, `gas estimation failed: ${e.message}`);
      (err as { data?: unknown }).data = e.data;
      throw err;
    },

    async getFeeSuggestion(): Promise<EvmFeeSuggestion> {
      const [block, gasPrice, priority] = await rpc.batch(FEE_CALLS);
      return feeSuggestion(block!, gasPrice!, priority!);
    },

    async getBalance(address) {
      return hexToBig(await rpc.read('eth_getBalance', [address, 'latest']), 'balance');
    },

    async sendRawTransaction(serialized) {
      const o = await rpc.request('eth_sendRawTransaction', [serialized]);
      if (o.ok) {
        if (typeof o.result !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(o.result)) {
          throw new ChainUnavailableError(`${label} eth_sendRawTransaction answered ${JSON.stringify(o.result)}`);
        }
        return o.result.toLowerCase() as Hex;
      }
      const e = o.error;
      if (e.code === -32603 || (isUnavailableError(e) && !/nonce|fund|fee|gas|underpriced/i.test(e.message))) {
        throw new ChainUnavailableError(`${label} RPC unavailable: eth_sendRawTransaction failed (${e.code}: ${e.message})`);
      }
      // ALREADY_PROCESSED: the node already holds exactly this transaction (e.g. a retry after a lost answer), so
      // it has been broadcast; its hash is keccak256(serialized).
      const code = ALREADY_KNOWN.test(e.message)
        ? 'ALREADY_PROCESSED'
        : e.code === -32602
          ? classifyEvmRejection(e.message, 'INVALID_TRANSACTION')
          : classifyEvmRejection(e.message);
      const err = new BroadcastRejectedError(code, e.message);
      (err as { data?: unknown }).data = e.data;
      throw err;
    },

    async getHeads() {
      const [latest, finalized] = await rpc.readBatch(HEAD_CALLS);
      return heads(latest, finalized);
    },

    async getHeadsAndFees() {
      const [latest, finalized, block, gasPrice, priority] = await rpc.batch([...HEAD_CALLS, ...FEE_CALLS]);
      const read = heads(rpc.unwrap(HEAD_CALLS[0]!.method, latest!), rpc.unwrap(HEAD_CALLS[1]!.method, finalized!));
      let fees: EvmFeeSuggestion | null;
      try {
        fees = feeSuggestion(block!, gasPrice!, priority!);
      } catch {
        fees = null; // the heads stand without them
      }
      return { ...read, fees };
    },

    async getReceipts(hashes) {
      if (hashes.length === 0) return [];
      const out = await readBatch(hashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })));
      return out.map(receipt);
    },

    async getTransactionsKnown(hashes) {
      if (hashes.length === 0) return [];
      const out = await readBatch(hashes.map((h) => ({ method: 'eth_getTransactionByHash', params: [h] })));
      return out.map((t) => t !== null && t !== undefined);
    },

    async getBlockHashes(numbers) {
      if (numbers.length === 0) return [];
      const out = await readBatch(numbers.map((n) => ({ method: 'eth_getBlockByNumber', params: [toQuantity(n), false] })));
      return out.map((b) => ((b as { hash?: Hex } | null)?.hash ?? null));
    },

    async getNonces(addresses, blockTag) {
      if (addresses.length === 0) return [];
      const out = await readBatch(addresses.map((a) => ({ method: 'eth_getTransactionCount', params: [a, blockTag] })));
      return out.map((n) => Number(hexToBig(n, 'nonce')));
    },

    async callAtLatestBlock(calls, atBlock) {
      const tag = atBlock ? toQuantity(atBlock.blockNumber) : 'latest';
      const block = (await rpc.read('eth_getBlockByNumber', [tag, false])) as { number?: unknown; timestamp?: unknown } | null;
      if (!block) throw new ChainUnavailableError(`${label} RPC unavailable: no block ${atBlock ? atBlock.blockNumber : 'latest'}`);
      const blockNumber = hexToBig(block.number, 'block number');
      const blockTimestamp = hexToBig(block.timestamp, 'block timestamp');
      if (calls.length === 0) return { blockNumber, blockTimestamp, results: [] };
      const at = toQuantity(blockNumber);
      const outcomes = await rpc.batch(calls.map((c) => ({ method: 'eth_call', params: [{ ...(c.from ? { from: c.from } : {}), to: c.to, data: c.data }, at] })));
      const results = outcomes.map((o): EvmCallResult => {
        if (o.ok) return { ok: true, data: (o.result as Hex) ?? '0x' };
        const e = o.error;
        if (isUnavailableError(e)) throw new ChainUnavailableError(`${label} RPC unavailable: eth_call failed (${e.code}: ${e.message})`);
        if (e.code === -32601 || e.code === -32700 || e.code === -32600 || e.code === -32602) throw new JsonRpcError(e.code, `${label} eth_call: ${e.message}`, e.data);
        const data = typeof e.data === 'string' && e.data.startsWith('0x') ? (e.data as Hex) : null;
        return { ok: false, revertData: data, message: e.message };
      });
      return { blockNumber, blockTimestamp, results };
    },
  };
}
