import type { AttemptOutcome, Environment, TransactionAttempt, TransactionAttemptStore } from '@wallet/domain';
import type { Database } from '../database.ts';
import { eventsWrittenWithSaved } from './transactions.ts';
import { signatureWrittenWith } from './audit.ts';

interface AttemptRow {
  id: string;
  recordId: string;
  number: number;
  hash: string;
  signedTransaction: string;
  maxFeePerGas: string | null;
  maxPriorityFeePerGas: string | null;
  recentBlockhash: string | null;
  lastValidBlockHeight: string | number | bigint | null;
  sentBlock: string | number | bigint;
  sentAt: Date;
  outcome: string;
  reason: string;
}

const ATTEMPT_COLUMNS = `id, record_id AS "recordId", number, hash, signed_transaction AS "signedTransaction", max_fee_per_gas AS "maxFeePerGas",
  max_priority_fee_per_gas AS "maxPriorityFeePerGas", recent_blockhash AS "recentBlockhash", last_valid_block_height AS "lastValidBlockHeight", sent_block AS "sentBlock", sent_at AS "sentAt", outcome, reason`;

const toAttempt = (row: AttemptRow): TransactionAttempt => ({
  ...row,
  lastValidBlockHeight: row.lastValidBlockHeight === null ? null : BigInt(row.lastValidBlockHeight),
  sentBlock: BigInt(row.sentBlock),
  sentAt: new Date(row.sentAt),
  outcome: row.outcome as AttemptOutcome,
});

/** Fee replacements of EVM transfer records and rebuilds of Solana ones (the domain's TransactionAttemptStore); one statement per method. */
export function createTransactionAttemptStore({ query }: Database): TransactionAttemptStore {
  return {
    async forRecords(recordIds) {
      const byRecord = new Map<string, TransactionAttempt[]>();
      if (recordIds.length === 0) return byRecord;
      const rows = await query<AttemptRow>(`SELECT ${ATTEMPT_COLUMNS} FROM transaction_attempts WHERE record_id = ANY($1::uuid[]) ORDER BY record_id, number`, [recordIds]);
      for (const row of rows) {
        const list = byRecord.get(row.recordId);
        if (list) list.push(toAttempt(row));
        else byRecord.set(row.recordId, [toAttempt(row)]);
      }
      return byRecord;
    },

    async add(owner, a, signature) {
      // The lease, the status and the attempt number are checked in the statement that writes, so two
      // monitors (or a monitor whose lease lapsed) never store two plans for one nonce; the attempt's
      // signature (audit row, event) is written with it or not at all.
      const values: unknown[] = [a.id, a.recordId, a.number, a.hash, a.signedTransaction, a.maxFeePerGas, a.maxPriorityFeePerGas, a.sentBlock.toString(), a.sentAt, a.outcome, a.reason, owner, a.recentBlockhash, a.lastValidBlockHeight?.toString() ?? null];
      const signed = signature ? `, ${signatureWrittenWith(signature, values)}` : '';
      const rows = await query<{ id: string }>(
        `WITH record AS (
           UPDATE transaction_records SET auto_retry_reason = $11, updated_at = now()
           WHERE id = $2::uuid AND lease_owner = $12 AND status = 'submitted'
             AND NOT EXISTS (SELECT 1 FROM transaction_attempts WHERE record_id = $2::uuid AND number >= $3)
           RETURNING id
         ), saved AS (
           INSERT INTO transaction_attempts (id, record_id, number, hash, signed_transaction, max_fee_per_gas, max_priority_fee_per_gas, recent_blockhash, last_valid_block_height, sent_block, sent_at, outcome, reason)
           SELECT $1::uuid, record.id, $3, $4, $5, $6, $7, $13, $14::bigint, $8::bigint, $9::timestamptz, $10, $11 FROM record
           ON CONFLICT DO NOTHING
           RETURNING id
         )${signed}
         SELECT saved.id FROM saved${signature ? ' CROSS JOIN signature_spent' : ''}`,
        values,
      );
      return rows.length === 1;
    },

    async markSent(recordId, hash, at, events = []) {
      const values: unknown[] = [recordId, hash, at];
      const written = eventsWrittenWithSaved(events, values);
      await query(
        `WITH saved AS (
           UPDATE transaction_attempts SET outcome = 'pending', sent_at = $3::timestamptz WHERE record_id = $1::uuid AND hash = $2 AND outcome = 'unknown' RETURNING id
         ), ${written}
         SELECT 1`,
        values,
      );
    },

    async settle(resolved) {
      if (resolved.length === 0) return;
      await query(
        `UPDATE transaction_attempts a SET outcome = CASE WHEN a.hash = r.winning THEN 'included' ELSE 'lost' END
         FROM unnest($1::uuid[], $2::text[]) AS r(record_id, winning)
         WHERE a.record_id = r.record_id`,
        [resolved.map((r) => r.recordId), resolved.map((r) => r.winningHash)],
      );
    },

    async setReasons(owner, reasons) {
      if (reasons.length === 0) return;
      await query(
        `UPDATE transaction_records t SET auto_retry_reason = r.reason, updated_at = now()
         FROM unnest($1::uuid[], $2::text[]) AS r(id, reason)
         WHERE t.id = r.id AND t.lease_owner = $3`,
        [reasons.map((r) => r.recordId), reasons.map((r) => r.reason), owner],
      );
    },

    async environmentOf(apiKeyId) {
      const rows = await query<{ environment: string | null }>(`SELECT environment FROM api_keys WHERE id = $1::uuid`, [apiKeyId]);
      return (rows[0]?.environment as Environment | null | undefined) ?? null;
    },
  };
}
