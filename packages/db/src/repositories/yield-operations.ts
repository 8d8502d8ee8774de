import type {
  NewTransactionRecord,
  TransactionStatus,
  YieldOperationRecord,
  PreparedYieldTransaction,
  YieldOperationStore,
  YieldPlan,
  YieldStepRecord,
} from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { auditData, signatureWrittenWith } from './audit.ts';
import { fieldParams, FREE_NONCE_SQL, fromRecordRow, NEW_RECORD_FIELDS, nonceAllocationCtes, RECORD_COLUMNS, type RecordRow } from './transactions.ts';

const ACTIVE = `('pending', 'submitted')`;

/** An operation with its steps (each joined with its transaction record), named as YieldOperationRecord names it. */
export const OPERATION_SELECT = `
  SELECT o.id, o.project_id AS "projectId", o.partner_id AS "partnerId", o.wallet_id AS "walletId", o.api_key_id AS "apiKeyId",
         o.environment, o.request_id AS "requestId", o.idempotency_key AS "idempotencyKey", o.chain_id AS "chainId",
         o.market_id AS "marketId", o.source, o.action, o.amount, o.status, o.error_code AS "errorCode",
         o.error_message AS "errorMessage", o.review_id AS "reviewId", o.plan, o.consecutive_errors AS "consecutiveErrors",
         o.created_at AS "createdAt", o.updated_at AS "updatedAt",
         COALESCE((
           SELECT json_agg(json_build_object(
                    'phase', s.phase, 'transactionId', s.transaction_id, 'hash', t.hash, 'nonce', t.nonce,
                    'recordStatus', t.status, 'failureCode', t.failure_code, 'failureMessage', t.failure_message,
                    'blockNumber', t.block_number::text, 'blockHash', t.block_hash)
                  ORDER BY CASE s.phase WHEN 'approval' THEN 0 ELSE 1 END)
           FROM yield_operation_steps s JOIN transaction_records t ON t.id = s.transaction_id
           WHERE s.operation_id = o.id), '[]'::json) AS steps
  FROM yield_operations o`;

export interface OperationRow extends Omit<YieldOperationRecord, 'error' | 'steps' | 'plan'> {
  errorCode: string | null;
  errorMessage: string | null;
  reviewId: string | null;
  plan: YieldPlan;
  steps: (Omit<YieldStepRecord, 'blockNumber'> & { blockNumber: string | null })[];
}

export function toOperation(row: OperationRow): YieldOperationRecord {
  const { errorCode, errorMessage, reviewId, steps, ...rest } = row;
  return {
    ...rest,
    chainId: Number(rest.chainId),
    consecutiveErrors: Number(rest.consecutiveErrors),
    createdAt: new Date(rest.createdAt),
    updatedAt: new Date(rest.updatedAt),
    error: errorCode ? { code: errorCode as NonNullable<YieldOperationRecord['error']>['code'], message: errorMessage, ...(reviewId ? { reviewId } : {}) } : null,
    steps: steps.map((s) => ({ ...s, recordStatus: s.recordStatus as TransactionStatus, blockNumber: s.blockNumber === null ? null : BigInt(s.blockNumber) })),
  };
}

const withoutPrepared = (plan: YieldPlan): Prisma.InputJsonObject => {
  const { prepared: _prepared, ...rest } = plan;
  return rest as Prisma.InputJsonObject;
};

/**
 * Yield operations and their steps. Leasing, saving, storing a prepared step (with its nonce) and a
 * signed step (with its record) are single statements on the driver: the worker's hot path, where a
 * Prisma interactive transaction would hold PGlite's one session across several main-thread turns.
 * Resuming and a cancellation (with its nonce released and its audit row) are one transaction each.
 */
export function createYieldOperationStore({ prisma, query }: Database): YieldOperationStore {
  async function findWhere(where: string, values: unknown[]): Promise<YieldOperationRecord[]> {
    const rows = await query<OperationRow>(`${OPERATION_SELECT} WHERE ${where} ORDER BY o.created_at, o.id`, values);
    return rows.map(toOperation);
  }
  const findById = async (id: string) => (await findWhere('o.id = $1', [id]))[0] ?? null;

  return {
    async create(operation, now) {
      const inserted = await query<{ id: string }>(
        `INSERT INTO yield_operations (id, project_id, partner_id, wallet_id, api_key_id, environment, request_id, idempotency_key,
                                       chain_id, market_id, source, action, amount, status, plan, next_run_at, created_at, updated_at)
         VALUES ($1::uuid, $2::uuid, $3::uuid, $4::uuid, $5::uuid, $6, $7, $8, $9, $10, $11, $12, $13, 'pending', '{}', $14, $14, $14)
         ON CONFLICT DO NOTHING RETURNING id`,
        [
          operation.id, operation.projectId, operation.partnerId, operation.walletId, operation.apiKeyId, operation.environment, operation.requestId,
          operation.idempotencyKey, operation.chainId, operation.marketId, operation.source, operation.action, operation.amount, now,
        ],
      );
      const stored = await this.findByKey(operation.partnerId, operation.idempotencyKey);
      if (!stored) throw new Error('yield operation vanished after insert');
      return { operation: stored, created: inserted.length === 1 && stored.id === operation.id };
    },

    async findByKey(partnerId, idempotencyKey) {
      return (await findWhere('o.partner_id = $1 AND o.idempotency_key = $2', [partnerId, idempotencyKey]))[0] ?? null;
    },

    async findInWallet(projectId, walletId, operationId) {
      return (await findWhere('o.id = $1 AND o.project_id = $2 AND o.wallet_id = $3', [operationId, projectId, walletId]))[0] ?? null;
    },

    async resume(operationId, now) {
      const resumed = await prisma.$transaction(async (tx) => {
        // Resumes of one wallet and chain queue on this lock, so each sees the one before it.
        const [target] = await tx.$queryRawUnsafe<{ wallet_id: string; chain_id: number }[]>(`SELECT wallet_id, chain_id FROM yield_operations WHERE id = $1::uuid`, operationId);
        if (!target) throw new Error('yield operation vanished');
        await tx.$queryRawUnsafe(`SELECT pg_advisory_xact_lock(hashtext($1))::text`, `yield:${target.wallet_id}:${target.chain_id}`);
        return tx.$executeRawUnsafe(
          `UPDATE yield_operations o
           SET status = 'pending', error_code = NULL, error_message = NULL, review_id = NULL, next_run_at = $2, consecutive_errors = 0, updated_at = $2
           WHERE o.id = $1::uuid AND o.status = 'requires_action'
             AND NOT EXISTS (SELECT 1 FROM yield_operations p
                             WHERE p.wallet_id = o.wallet_id AND p.chain_id = o.chain_id AND p.status IN ${ACTIVE} AND p.id <> o.id)`,
          operationId,
          now,
        );
      });
      const operation = await findById(operationId);
      if (!operation) throw new Error('yield operation vanished');
      if (resumed === 1) return { outcome: 'resumed', operation };
      return operation.status === 'requires_action' ? { outcome: 'busy' } : { outcome: 'unchanged', operation };
    },

    async cancel(operationId, now, audit) {
      const refusal = await prisma.$transaction(async (tx) => {
        const [row] = await tx.$queryRawUnsafe<{ status: string; plan: YieldPlan; wallet_id: string; chain_id: number; leased: boolean; unresolved: boolean }[]>(
          `SELECT o.status, o.plan, o.wallet_id, o.chain_id, (o.lease_until IS NOT NULL AND o.lease_until > $2) AS leased,
                  EXISTS (SELECT 1 FROM yield_operation_steps s JOIN transaction_records t ON t.id = s.transaction_id
                          WHERE s.operation_id = o.id AND t.status IN ('pending', 'submitted')) AS unresolved
           FROM yield_operations o WHERE o.id = $1::uuid FOR UPDATE`,
          operationId,
          now,
        );
        if (!row) throw new Error('yield operation vanished');
        if (row.status === 'cancelled') return null;
        if (row.status === 'confirmed' || row.status === 'failed') return 'terminal' as const;
        if (row.status === 'submitted' || row.unresolved) return 'signed' as const;
        if (row.leased) return 'leased' as const;
        await tx.yieldOperation.update({
          where: { id: operationId },
          data: { status: 'cancelled', nextRunAt: null, resolvedAt: now, plan: withoutPrepared(row.plan) },
        });
        const prepared = row.plan.prepared;
        if (prepared) {
          await tx.$executeRawUnsafe(
            FREE_NONCE_SQL,
            row.wallet_id,
            String(row.chain_id),
            prepared.nonce,
          );
        }
        if (audit) await tx.auditLog.create({ data: auditData(audit) });
        return null;
      });
      const operation = (await findById(operationId))!;
      return refusal === null ? { outcome: 'cancelled', operation } : { outcome: 'refused', operation, reason: refusal };
    },

    async leaseDue(owner, now, leaseUntil, limit) {
      const leased = await query<{ id: string }>(
        `UPDATE yield_operations SET lease_owner = $1, lease_until = $3
         WHERE id IN (
           SELECT o.id FROM yield_operations o
           WHERE o.status IN ${ACTIVE} AND o.next_run_at <= $2 AND (o.lease_until IS NULL OR o.lease_until < $2)
             AND NOT EXISTS (SELECT 1 FROM yield_operations p
                             WHERE p.wallet_id = o.wallet_id AND p.chain_id = o.chain_id AND p.status IN ${ACTIVE}
                               AND (p.created_at, p.id) < (o.created_at, o.id))
           ORDER BY o.next_run_at LIMIT $4 FOR UPDATE OF o SKIP LOCKED)
         RETURNING id`,
        [owner, now, leaseUntil, limit],
      );
      if (leased.length === 0) return [];
      return findWhere('o.id = ANY($1::uuid[])', [leased.map((r) => r.id)]);
    },

    async renewLeases(owner, operationIds, leaseUntil) {
      if (operationIds.length === 0) return;
      await query(`UPDATE yield_operations SET lease_until = $3 WHERE id = ANY($2::uuid[]) AND lease_owner = $1`, [owner, operationIds, leaseUntil]);
    },

    async holdsLease(owner, operationId, now) {
      const rows = await query<{ id: string }>(`SELECT id FROM yield_operations WHERE id = $1::uuid AND lease_owner = $2 AND lease_until > $3`, [operationId, owner, now]);
      return rows.length === 1;
    },

    async save(owner, operationId, patch) {
      const values: unknown[] = [operationId, owner];
      const sets: string[] = [];
      const set = (column: string, type: string, value: unknown) => {
        values.push(value);
        sets.push(`${column} = $${values.length}::${type}`);
      };
      const { status, error, plan, nextRunAt, consecutiveErrors, resolvedAt } = patch;
      if (status !== undefined) set('status', 'text', status);
      if (error !== undefined) {
        set('error_code', 'text', error?.code ?? null);
        set('error_message', 'text', error?.message ?? null);
        set('review_id', 'text', error?.reviewId ?? null);
      }
      if (plan !== undefined) set('plan', 'jsonb', JSON.stringify(plan));
      set('next_run_at', 'timestamptz', nextRunAt);
      if (consecutiveErrors !== undefined) set('consecutive_errors', 'int', consecutiveErrors);
      if (resolvedAt !== undefined) set('resolved_at', 'timestamptz', resolvedAt);
      const saved = await query<{ id: string }>(
        `UPDATE yield_operations SET ${sets.join(', ')}, lease_owner = NULL, lease_until = NULL, updated_at = now()
         WHERE id = $1::uuid AND lease_owner = $2 RETURNING id`,
        values,
      );
      return saved.length === 1;
    },

    async prepare(owner, operationId, plan, prepared, chainPendingNonce) {
      // One statement: the nonce is allocated only while this owner holds the operation and has no
      // transaction of this phase prepared, and is stored with it (a crash leaves no allocated nonce unstored).
      const { prepared: _previous, ...rest } = plan;
      const [stored] = await query<{ prepared: PreparedYieldTransaction }>(
        `WITH held AS (
           SELECT id, wallet_id, chain_id::text AS chain_id FROM yield_operations
           WHERE id = $1::uuid AND lease_owner = $2 AND (plan->'prepared'->>'phase') IS DISTINCT FROM $3
           FOR UPDATE
         ), ${nonceAllocationCtes({ wallet: '(SELECT wallet_id FROM held)', chain: '(SELECT chain_id FROM held)', pending: '$4', guard: 'EXISTS (SELECT 1 FROM held)' })}
         UPDATE yield_operations o
         SET plan = $5::jsonb || jsonb_build_object('prepared', $6::jsonb || jsonb_build_object('nonce', a.nonce)), updated_at = now()
         FROM held h, allocated a WHERE o.id = h.id
         RETURNING o.plan->'prepared' AS prepared`,
        [operationId, owner, prepared.phase, chainPendingNonce, JSON.stringify(rest), JSON.stringify(prepared)],
      );
      if (stored) return stored.prepared;
      // Nothing allocated: the lease is gone, or this phase was prepared already (answer that one).
      const [held] = await query<{ prepared: PreparedYieldTransaction | null }>(
        `SELECT plan->'prepared' AS prepared FROM yield_operations WHERE id = $1::uuid AND lease_owner = $2`,
        [operationId, owner],
      );
      return held?.prepared?.phase === prepared.phase ? held.prepared : null;
    },

    async addStep(owner, operationId, phase, record: NewTransactionRecord, nextRunAt, signature) {
      // One statement: the record, the step and the operation's move to `submitted` (with the
      // step's signature: its audit row, event and spend), only while this owner holds it.
      const values: unknown[] = [operationId, owner, phase, nextRunAt];
      const { columns, expressions } = fieldParams(record, NEW_RECORD_FIELDS, values);
      const signed = signature ? `, ${signatureWrittenWith(signature, values, 'record')}` : '';
      const [row] = await query<RecordRow>(
        `WITH held AS (
           SELECT id FROM yield_operations WHERE id = $1::uuid AND lease_owner = $2 FOR UPDATE
         ), record AS (
           INSERT INTO transaction_records (${columns.join(', ')}, updated_at)
           SELECT ${expressions.join(', ')}, now() WHERE EXISTS (SELECT 1 FROM held)
           RETURNING ${RECORD_COLUMNS}
         ), step AS (
           INSERT INTO yield_operation_steps (operation_id, phase, transaction_id) SELECT $1::uuid, $3, "id" FROM record
         ), moved AS (
           UPDATE yield_operations SET status = 'submitted', plan = plan - 'prepared', next_run_at = $4::timestamptz, updated_at = now()
           WHERE id IN (SELECT id FROM held) AND EXISTS (SELECT 1 FROM record)
         )${signed}
         SELECT record.* FROM record${signature ? ' CROSS JOIN signature_spent' : ''}`,
        values,
      );
      return row ? fromRecordRow(row) : null;
    },

    async holdsWalletChain(walletId, chainId) {
      const rows = await query<{ one: number }>(
        `SELECT 1 AS one FROM yield_operations
         WHERE wallet_id = $1 AND chain_id = $2
           AND (status = 'submitted' OR (status IN ('pending', 'requires_action') AND plan ? 'prepared'))
         LIMIT 1`,
        [walletId, chainId],
      );
      return rows.length > 0;
    },
  };
}
