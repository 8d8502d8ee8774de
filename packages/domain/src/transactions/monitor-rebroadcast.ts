/**
 * Durable broadcast: a record whose transaction the node does not know — never sent because the
 * process died between the record's commit and the send, or dropped from the node's pool — gets
 * its stored bytes sent again by the monitor run that leased it (so one process does it): the same
 * bytes, so the same hash. This is safe for partner-signed broadcasts too: those bytes were already
 * handed to the node once, or were about to be.
 *
 * - EVM: records without a receipt whose hash `eth_getTransactionByHash` does not find.
 * - Solana: records without a signature status that the expiry rules have not resolved; a send
 *   after the blockhash expired is refused and the expiry rules resolve the record.
 * - A `pending` record is sent again only once it is `PENDING_REBROADCAST_GRACE_MS` old, so the
 *   request that wrote it has had its own send; a `submitted` one whenever it is unknown.
 *
 * A refusal never fails the record here (the node may refuse a copy of what it already mined or
 * holds): it is kept in `monitoring.lastError` and the chain evidence resolves the record.
 */
import type { TransactionRecord } from '../ports.ts';
import { BroadcastRejectedError, type EvmGateway, type Hex, type SolanaGateway } from './gateways.ts';
import type { Calls } from './monitor-evidence.ts';

export const PENDING_REBROADCAST_GRACE_MS = 10_000;

export type Rebroadcast = { outcome: 'sent' } | { outcome: 'refused'; code: string; message: string };

/** Records whose transaction may be re-sent now: stored bytes, and past the grace while `pending`. */
export function rebroadcastCandidates(records: TransactionRecord[], now: Date): TransactionRecord[] {
  return records.filter(
    (r) => r.signedTransaction !== null && (r.status === 'submitted' || (r.status === 'pending' && now.getTime() - r.createdAt.getTime() >= PENDING_REBROADCAST_GRACE_MS)),
  );
}

/** Sends each record's bytes; an answer meaning the node has (or had) the transaction is no outcome. */
async function sendEach(records: TransactionRecord[], send: (bytes: string) => Promise<unknown>, calls: Calls): Promise<Map<string, Rebroadcast>> {
  const outcomes = new Map<string, Rebroadcast>();
  await Promise.all(
    records.map(async (r) => {
      try {
        await calls.run(send(r.signedTransaction!));
        outcomes.set(r.id, { outcome: 'sent' });
      } catch (error) {
        if (!(error instanceof BroadcastRejectedError)) return; // unreachable: the next check tries again
        if (error.code === 'ALREADY_PROCESSED' || error.code === 'NONCE_TOO_LOW') return;
        outcomes.set(r.id, { outcome: 'refused', code: error.code, message: error.message.slice(0, 300) });
      }
    }),
  );
  return outcomes;
}

/** EVM: asks the node which transactions it knows (one batch), sends the others again. */
export async function rebroadcastEvm(gateway: EvmGateway, records: TransactionRecord[], calls: Calls): Promise<Map<string, Rebroadcast>> {
  if (records.length === 0) return new Map();
  const known = await calls.run(gateway.getTransactionsKnown(records.map((r) => r.hash as Hex)));
  const unknown = records.filter((_, i) => known[i] === false);
  return sendEach(unknown, (bytes) => gateway.sendRawTransaction(bytes as Hex), calls);
}

/** Solana: the records passed have no signature status; sending the same signed bytes again is idempotent. */
export function rebroadcastSolana(gateway: SolanaGateway, records: TransactionRecord[], calls: Calls): Promise<Map<string, Rebroadcast>> {
  return sendEach(records, (bytes) => gateway.sendTransaction(bytes), calls);
}
