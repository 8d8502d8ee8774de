import type { SponsoredOperationStore, SponsoredPatch } from '@wallet/domain';
import type { Database } from '../database.ts';
import { signatureEvents, signatureWrittenWith } from './audit.ts';
import { eventsWrittenWithSaved, fieldParams, fromRecordRow, RECORD_COLUMNS, type RecordRow } from './transactions.ts';

/** What a sponsored step may write (callers may pass more: only these fields are written). */
const SPONSORED_PATCH_FIELDS: (keyof SponsoredPatch)[] = [
  'status', 'stage', 'reviewId', 'userOperationHash', 'userOperation', 'actualGasCost', 'hash', 'signedTransaction',
  'blockNumber', 'blockHash', 'failureStage', 'failureCode', 'failureMessage', 'monitoring', 'submittedAt', 'resolvedAt',
  'evidenceAt', 'nextCheckAt', 'consecutiveErrors',
];

/** Fields a patch may clear: an explicit null is written as NULL (undefined leaves the column). */
const NULLABLE = new Set<keyof SponsoredPatch>(['stage', 'reviewId', 'nextCheckAt', 'failureStage', 'failureCode', 'failureMessage']);

/**
 * An operation of the same wallet and chain that an `accepted` record t must wait for, because both
 * would be drafted with the same EntryPoint nonce: one signed and not yet included, one being
 * signed now (leased), or an older accepted one still waiting its turn.
 */
const OPERATION_AHEAD = `SELECT 1 FROM transaction_records o
  WHERE o.execution_mode = 'sponsored' AND o.wallet_id = t.wallet_id AND o.chain_id = t.chain_id AND o.id <> t.id AND o.resolved_at IS NULL
    AND (o.stage IN ('signed', 'submitted', 'submission_unknown')
         OR (o.stage = 'accepted' AND o.lease_until >= $2)
         OR (o.stage = 'accepted' AND o.next_check_at IS NOT NULL AND (o.created_at, o.id) < (t.created_at, t.id)))`;

/**
 * Sponsored records under their own lease (transaction_records.lease_owner/lease_until, like the
 * monitor's, which skips sponsored records): one statement per lease, per save, per resume.
 */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function createSponsoredOperationStore({ query }: Database): SponsoredOperationStore {
  return {
    async leaseDue(owner, now, leaseUntil, limit, only) {
      const ids = only?.filter((id) => UUID.test(id));
      if (ids && ids.length === 0) return [];
      const rows = await query<RecordRow>(
        `UPDATE transaction_records SET lease_owner = $1, lease_until = $3
         WHERE id IN (
           SELECT id FROM transaction_records t
           WHERE execution_mode = 'sponsored' AND next_check_at <= $2 AND (lease_until IS NULL OR lease_until < $2)
             AND (t.stage <> 'accepted' OR NOT EXISTS (${OPERATION_AHEAD}))
             ${ids ? 'AND t.id = ANY($5::uuid[])' : ''}
           ORDER BY next_check_at LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING ${RECORD_COLUMNS}`,
        ids ? [owner, now, leaseUntil, limit, ids] : [owner, now, leaseUntil, limit],
      );
      return rows.map(fromRecordRow).sort((a, b) => a.nextCheckAt!.getTime() - b.nextCheckAt!.getTime());
    },

    async save(owner, id, patch, events, options = {}) {
      const values: unknown[] = [id, owner];
      const set: Record<string, unknown> = {};
      const nulls: string[] = [];
      for (const field of SPONSORED_PATCH_FIELDS) {
        const value = patch[field];
        if (value === null && NULLABLE.has(field)) nulls.push(field);
        else if (value !== null) set[field] = value;
      }
      const { columns, expressions } = fieldParams(set, SPONSORED_PATCH_FIELDS, values);
      const sets = [
        ...columns.map((c, i) => `${c} = ${expressions[i]}`),
        ...nulls.map((f) => `"${f.replace(/[A-Z]/g, (l) => `_${l.toLowerCase()}`)}" = NULL`),
        ...(options.keepLease ? [] : ['lease_owner = NULL', 'lease_until = NULL']),
        'check_count = check_count + 1',
        'updated_at = now()',
      ];
      let claim = '';
      let guard = '';
      if (options.nonce) {
        const n = options.nonce;
        values.push(n.allocatorId, n.chainId, n.nonce, n.reservationId);
        const at = values.length;
        claim = `claimed AS (
           DELETE FROM nonce_reservations WHERE wallet_id = $${at - 3}::uuid AND chain_id = $${at - 2} AND nonce = $${at - 1}::int AND reservation_id = $${at}::uuid
             AND EXISTS (SELECT 1 FROM transaction_records WHERE id = $1::uuid AND lease_owner = $2)
           RETURNING 1
         ), `;
        guard = ' AND EXISTS (SELECT 1 FROM claimed)';
      }
      if (options.onlyIfStage !== undefined) {
        values.push(options.onlyIfStage);
        guard += ` AND stage = $${values.length}`;
      }
      const signed = options.signature ? `, ${signatureWrittenWith(options.signature, values, 'saved', { events: false })}` : '';
      const [row] = await query<RecordRow>(
        `WITH ${claim}saved AS (
           UPDATE transaction_records SET ${sets.join(', ')}
           WHERE id = $1::uuid AND lease_owner = $2 AND execution_mode = 'sponsored'${guard}
           RETURNING ${RECORD_COLUMNS}
         ), ${eventsWrittenWithSaved([...signatureEvents(options.signature), ...events], values)}${signed}
         SELECT saved.* FROM saved${options.signature ? ' CROSS JOIN signature_spent' : ''}`,
        values,
      );
      return row ? fromRecordRow(row) : null;
    },

    async resume(projectId, walletId, id, reviewId, now) {
      const [row] = await query<RecordRow>(
        `UPDATE transaction_records SET stage = 'accepted', review_id = NULL, next_check_at = $5, lease_owner = NULL, lease_until = NULL, updated_at = now()
         WHERE id = $1::uuid AND project_id = $2::uuid AND wallet_id = $3::uuid AND execution_mode = 'sponsored'
           AND stage = 'requires_action' AND review_id = $4
         RETURNING ${RECORD_COLUMNS}`,
        [id, projectId, walletId, reviewId, now],
      );
      return row ? fromRecordRow(row) : null;
    },
  };
}
