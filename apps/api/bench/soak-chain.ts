/**
 * The soak's view of the chain, read straight from anvil's JSON-RPC (never through the service):
 * each wallet's mined and pending nonce, what the pool holds, and every transaction the soak's
 * wallets sent, read block by block.
 */

export type Rpc = <T>(method: string, params?: unknown[]) => Promise<T>;

export function jsonRpc(url: string): Rpc {
  let id = 0;
  return async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++id, method, params }),
      signal: AbortSignal.timeout(30_000),
    });
    const body = (await response.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
}

/** Runs `work` over `items` with at most `limit` in flight, results in item order. */
export async function mapLimited<I, O>(items: readonly I[], limit: number, work: (item: I) => Promise<O>): Promise<O[]> {
  const results = new Array<O>(items.length);
  let next = 0;
  const runners = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const at = next++;
      results[at] = await work(items[at]!);
    }
  });
  await Promise.all(runners);
  return results;
}

export interface ChainNonces {
  /** eth_getTransactionCount at `latest`: the next nonce the chain will execute. */
  latest: number;
  /** At `pending`: also counts the wallet's transactions the pool can mine next (not those queued behind a missing nonce). */
  pending: number;
}

export async function chainNonces(rpc: Rpc, addresses: readonly string[]): Promise<Map<string, ChainNonces>> {
  const read = async (address: string) => {
    const [latest, pending] = await Promise.all([
      rpc<string>('eth_getTransactionCount', [address, 'latest']),
      rpc<string>('eth_getTransactionCount', [address, 'pending']),
    ]);
    return [address.toLowerCase(), { latest: Number(latest), pending: Number(pending) }] as const;
  };
  return new Map(await mapLimited(addresses, 8, read));
}

export interface PoolState {
  /** txpool_status: transactions ready to mine and those waiting behind a missing nonce. */
  pending: number;
  queued: number;
  /** From txpool_content: the queued nonces of each sender (lower-case address); empty when the node does not answer it. */
  queuedNonces: Map<string, number[]>;
}

export async function poolState(rpc: Rpc): Promise<PoolState> {
  const status = await rpc<{ pending: string; queued: string }>('txpool_status');
  const queuedNonces = new Map<string, number[]>();
  try {
    const content = await rpc<{ queued: Record<string, Record<string, unknown>> }>('txpool_content');
    for (const [sender, byNonce] of Object.entries(content.queued ?? {})) {
      queuedNonces.set(sender.toLowerCase(), Object.keys(byNonce).map(Number).sort((a, b) => a - b));
    }
  } catch {
    // txpool_status alone still gives the totals.
  }
  return { pending: Number(status.pending), queued: Number(status.queued), queuedNonces };
}

export interface MinedTransaction {
  hash: string;
  from: string;
  to: string | null;
  value: bigint;
  nonce: number;
  block: number;
}

/** Every transaction mined in blocks `fromBlock`..latest whose sender is in `senders` (lower-case). */
export async function minedTransactionsFrom(rpc: Rpc, fromBlock: number, senders: ReadonlySet<string>): Promise<{ transactions: MinedTransaction[]; toBlock: number }> {
  const toBlock = Number(await rpc<string>('eth_blockNumber'));
  const numbers = Array.from({ length: Math.max(0, toBlock - fromBlock + 1) }, (_, i) => fromBlock + i);
  type RawTransaction = { hash: string; from: string; to: string | null; value: string; nonce: string };
  const blocks = await mapLimited(numbers, 8, (n) => rpc<{ transactions: RawTransaction[] } | null>('eth_getBlockByNumber', [`0x${n.toString(16)}`, true]));
  const transactions: MinedTransaction[] = [];
  blocks.forEach((block, i) => {
    for (const tx of block?.transactions ?? []) {
      if (!senders.has(tx.from.toLowerCase())) continue;
      transactions.push({ hash: tx.hash.toLowerCase(), from: tx.from.toLowerCase(), to: tx.to?.toLowerCase() ?? null, value: BigInt(tx.value), nonce: Number(tx.nonce), block: numbers[i]! });
    }
  });
  return { transactions, toBlock };
}
