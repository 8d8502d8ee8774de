/**
 * A chain that started over (a local devnet whose state was lost: its genesis hash is not the one
 * recorded before) no longer holds the transactions of its unresolved records, and its accounts'
 * nonces are back at 0. This resolves those records as `failed` with `CHAIN_RESET` and forgets the
 * chain's nonce counters, so the next transfer of every wallet gets the chain's own nonce.
 */
import type { TransactionPatch, TransactionRecord, TransactionStore } from '../ports.ts';
import type { Clock } from '../shared/clock.ts';
import { resolvedEvents } from './events.ts';

export const CHAIN_RESET = 'CHAIN_RESET';

export interface ChainResetStore {
  /** Deletes the EVM nonce counters and released nonces of every wallet on `chainId`; returns how many rows went. */
  resetNonces(chainId: string): Promise<number>;
  /** Up to `limit` `pending`/`submitted` records on the chain (`chain`: EVM chain id or Solana network), oldest first. */
  listUnresolvedOnChain(walletType: TransactionRecord['walletType'], chain: string, limit: number): Promise<TransactionRecord[]>;
  update: TransactionStore['update'];
}

export interface ResetChain {
  walletType: TransactionRecord['walletType'];
  /** EVM chain id (decimal string) or Solana network. */
  chain: string;
  isDevnet: boolean;
}

const BATCH = 200;

/**
 * Fails every unresolved record of the chain (each with its events in one transaction, only while
 * it is still in the status it was read in, as any other resolution) and resets the chain's nonces.
 */
export async function resolveChainReset(
  { store, clock }: { store: ChainResetStore; clock: Clock },
  chain: ResetChain,
): Promise<{ failed: string[]; nonceRows: number }> {
  const failed: string[] = [];
  const skipped = new Set<string>();
  for (;;) {
    const batch = (await store.listUnresolvedOnChain(chain.walletType, chain.chain, BATCH + skipped.size)).filter((r) => !skipped.has(r.id));
    if (batch.length === 0) break;
    for (const record of batch) {
      const at = clock.now();
      const patch = {
        status: 'failed',
        failureStage: 'broadcast',
        failureCode: CHAIN_RESET,
        failureMessage: 'the chain was reset (a local devnet that started without its previous state): this transaction is not on it',
        monitoring: { state: 'resolved' },
        resolvedAt: at,
        nextCheckAt: null,
        evidenceAt: null,
        evidenceBlock: null,
      } satisfies TransactionPatch;
      const saved = await store.update(record.id, patch, resolvedEvents({ ...record, ...patch }, chain.isDevnet, at), record.status);
      // Not saved: another process changed it meanwhile (only possible on a shared PostgreSQL); left to it.
      if (saved) failed.push(record.id);
      else skipped.add(record.id);
    }
    if (batch.length < BATCH) break;
  }
  const nonceRows = chain.walletType === 'EVM' ? await store.resetNonces(chain.chain) : 0;
  return { failed, nonceRows };
}
