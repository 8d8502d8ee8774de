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
 * - Only records at least `REBROADCAST_AFTER_MS` old are looked at: a `pending` one's own request
 *   has had its send by then, and a healthy transaction has its receipt (so the extra read costs
 *   nothing while the chain keeps up).
 * - A `pending` record is sent exactly as its request would have sent it (`sendRecorded`): accepted
 *   makes it `submitted` with its broadcast event; a refusal makes it `failed` at stage `broadcast`
 *   and gives a transfer's nonce back, so it holds up nothing.
 * - A `submitted` record is sent again whenever it is unknown. A refusal does not fail it (the node
 *   may refuse a copy of what it already mined or holds): it is kept in `monitoring.lastError` and
 *   the chain evidence resolves the record.
 */
import type { TransactionRecord } from '../ports.ts';
import { BroadcastRejectedError, type EvmGateway, type Hex, type SolanaGateway } from './gateways.ts';
import type { SendOutcome } from './broadcast.ts';
import type { Calls } from './monitor-evidence.ts';

export const REBROADCAST_AFTER_MS = 10_000;

/** `sent`: the node took it (a `pending` record is `submitted` now); `failed`: a `pending` record the node refused is `failed` now. */
export type Rebroadcast = { outcome: 'sent' } | { outcome: 'refused'; code: string; message: string } | { outcome: 'failed' };

/** Saves a `pending` record's send as its request would have (broadcast.ts `sendRecorded`). */
export type SendPending = (record: TransactionRecord) => Promise<SendOutcome>;

/** Records whose transaction may be re-sent now: stored bytes, unresolved, `REBROADCAST_AFTER_MS` old. */
export function rebroadcastCandidates(records: TransactionRecord[], now: Date): TransactionRecord[] {
  return records.filter(
    (r) => r.signedTransaction !== null && (r.status === 'submitted' || r.status === 'pending') && now.getTime() - r.createdAt.getTime() >= REBROADCAST_AFTER_MS,
  );
}

/** Sends each record's bytes; an answer meaning the node has (or had) the transaction is no outcome. */
async function sendEach(records: TransactionRecord[], send: (bytes: string) => Promise<unknown>, sendPending: SendPending, calls: Calls): Promise<Map<string, Rebroadcast>> {
  const outcomes = new Map<string, Rebroadcast>();
  await Promise.all(
    records.map(async (r) => {
      if (r.status === 'pending') {
        calls.count++;
        const outcome = await sendPending(r).catch(() => null);
        if (outcome?.kind === 'accepted') outcomes.set(r.id, { outcome: 'sent' });
        if (outcome?.kind === 'refused') outcomes.set(r.id, { outcome: 'failed' });
        return;
      }
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
export async function rebroadcastEvm(gateway: EvmGateway, records: TransactionRecord[], sendPending: SendPending, calls: Calls): Promise<Map<string, Rebroadcast>> {
  if (records.length === 0) return new Map();
  const known = await calls.run(gateway.getTransactionsKnown(records.map((r) => r.hash as Hex)));
  const unknown = records.filter((_, i) => known[i] === false);
  return sendEach(unknown, (bytes) => gateway.sendRawTransaction(bytes as Hex), sendPending, calls);
}

/** Solana: the records passed have no signature status; sending the same signed bytes again is idempotent. */
export function rebroadcastSolana(gateway: SolanaGateway, records: TransactionRecord[], sendPending: SendPending, calls: Calls): Promise<Map<string, Rebroadcast>> {
  return sendEach(records, (bytes) => gateway.sendTransaction(bytes), sendPending, calls);
}
