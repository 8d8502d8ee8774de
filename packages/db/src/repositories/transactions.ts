import type {
  BatchCall,
  ChainResetStore,
  ExecutionMode,
  FailureStage,
  IntentKind,
  MonitoringInfo,
  NewEvent,
  ServiceInitiated,
  TransactionPatch,
  TransactionRecord,
  TransactionStatus,
  TransactionStore,
} from '@wallet/domain';
import { NonceReservationLostError } from '@wallet/domain';
import { randomUUID } from 'node:crypto';
import { afterPosition, newestFirst } from './keyset.ts';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { eventData } from './users.ts';
import { signatureEvents, signatureWrittenWith } from './audit.ts';

type Row = Prisma.TransactionRecordGetPayload<object>;

export function toTransactionRecord(row: Row): TransactionRecord {
  return {
    ...row,
    walletType: row.walletType as TransactionRecord['walletType'],
    intentKind: row.intentKind as IntentKind,
    status: row.status as TransactionStatus,
    serviceInitiated: row.serviceInitiated as ServiceInitiated | null,
    executionMode: row.executionMode as ExecutionMode,
    failureStage: row.failureStage as FailureStage | null,
    monitoring: (row.monitoring as MonitoringInfo | null) ?? null,
    calls: (row.calls as unknown as BatchCall[] | null) ?? null,
  };
}

/** Every column of a record, named as TransactionRecord names it (for statements run on the driver directly). */
export const RECORD_COLUMNS = [
  'id', 'project_id', 'partner_id', 'wallet_id', 'wallet_type', 'intent_kind', 'status', 'chain_id', 'network', 'from_address',
  'to', 'value', 'token_address', 'nonce', 'hash', 'recent_blockhash', 'last_valid_block_height', 'nonce_account', 'block_number',
  'block_hash', 'failure_stage', 'failure_code', 'failure_message', 'monitoring', 'cancellation_of', 'service_initiated', 'request_id', 'api_key_id',
  'idempotency_key', 'signed_transaction', 'execution_mode', 'stage', 'review_id', 'user_operation_hash', 'actual_gas_cost', 'user_operation',
  'auto_retry', 'auto_retry_max_fee_per_gas', 'auto_retry_reason', 'calls', 'submitted_at', 'resolved_at', 'evidence_at', 'evidence_block', 'next_check_at', 'check_count', 'consecutive_errors', 'created_at', 'updated_at',
]
  .map((c) => `"${c}" AS "${c.replace(/_([a-z])/g, (_m, l: string) => l.toUpperCase())}"`)
  .join(', ');

/** A record as a statement with RECORD_COLUMNS returns it. */
export type RecordRow = Omit<TransactionRecord, 'lastValidBlockHeight' | 'blockNumber' | 'evidenceBlock'> & {
  lastValidBlockHeight: string | number | bigint | null;
  blockNumber: string | number | bigint | null;
  evidenceBlock: string | number | bigint | null;
};

const toBig = (v: string | number | bigint | null) => (v === null ? null : BigInt(v));

export function fromRecordRow(row: RecordRow): TransactionRecord {
  return {
    ...row,
    lastValidBlockHeight: toBig(row.lastValidBlockHeight),
    blockNumber: toBig(row.blockNumber),
    evidenceBlock: toBig(row.evidenceBlock),
    monitoring: row.monitoring ?? null,
  };
}

function patchData(patch: TransactionPatch): Prisma.TransactionRecordUpdateInput {
  const { monitoring, ...rest } = patch;
  return {
    ...rest,
    ...(monitoring !== undefined ? { monitoring: (monitoring ?? undefined) as Prisma.InputJsonObject | undefined } : {}),
  };
}

/** The fields of a new record and of a patch: column and SQL type (for statements run on the driver directly). */
const FIELD_COLUMNS: Record<string, [column: string, type: string]> = {
  id: ['id', 'uuid'], projectId: ['project_id', 'uuid'], partnerId: ['partner_id', 'uuid'], walletId: ['wallet_id', 'uuid'],
  walletType: ['wallet_type', 'text'], intentKind: ['intent_kind', 'text'], status: ['status', 'text'], chainId: ['chain_id', 'text'],
  network: ['network', 'text'], fromAddress: ['from_address', 'text'], to: ['to', 'text'], value: ['value', 'text'],
  tokenAddress: ['token_address', 'text'], nonce: ['nonce', 'int'], hash: ['hash', 'text'], recentBlockhash: ['recent_blockhash', 'text'],
  lastValidBlockHeight: ['last_valid_block_height', 'bigint'], nonceAccount: ['nonce_account', 'text'], blockNumber: ['block_number', 'bigint'],
  blockHash: ['block_hash', 'text'], failureStage: ['failure_stage', 'text'], failureCode: ['failure_code', 'text'],
  failureMessage: ['failure_message', 'text'], monitoring: ['monitoring', 'jsonb'], cancellationOf: ['cancellation_of', 'uuid'],
  serviceInitiated: ['service_initiated', 'text'],
  requestId: ['request_id', 'text'], apiKeyId: ['api_key_id', 'uuid'], idempotencyKey: ['idempotency_key', 'text'],
  signedTransaction: ['signed_transaction', 'text'], executionMode: ['execution_mode', 'text'], stage: ['stage', 'text'],
  reviewId: ['review_id', 'text'], userOperationHash: ['user_operation_hash', 'text'], actualGasCost: ['actual_gas_cost', 'text'],
  userOperation: ['user_operation', 'text'], autoRetry: ['auto_retry', 'boolean'], autoRetryMaxFeePerGas: ['auto_retry_max_fee_per_gas', 'text'],
  autoRetryReason: ['auto_retry_reason', 'text'], calls: ['calls', 'jsonb'], submittedAt: ['submitted_at', 'timestamptz'], resolvedAt: ['resolved_at', 'timestamptz'],
  evidenceAt: ['evidence_at', 'timestamptz'], evidenceBlock: ['evidence_block', 'bigint'], nextCheckAt: ['next_check_at', 'timestamptz'],
  checkCount: ['check_count', 'int'], consecutiveErrors: ['consecutive_errors', 'int'], createdAt: ['created_at', 'timestamptz'],
};

/** The fields a new record is inserted with. */
export const NEW_RECORD_FIELDS = Object.keys(FIELD_COLUMNS).filter(
  (f) => !['blockNumber', 'blockHash', 'resolvedAt', 'evidenceAt', 'evidenceBlock', 'checkCount', 'consecutiveErrors'].includes(f),
);

/** A field's value as the driver takes it (bigints as text, JSON as text). */
const driverValue = (value: unknown) => (typeof value === 'bigint' ? value.toString() : value !== null && typeof value === 'object' && !(value instanceof Date) ? JSON.stringify(value) : value);

/** What a patch may change (callers may pass a whole record: only these fields of it are written). */
const PATCH_FIELDS: (keyof TransactionPatch)[] = [
  'status', 'hash', 'blockNumber', 'blockHash', 'failureStage', 'failureCode', 'failureMessage', 'monitoring',
  'submittedAt', 'resolvedAt', 'evidenceAt', 'evidenceBlock', 'nextCheckAt', 'checkCount', 'consecutiveErrors',
];

/**
 * The `fields` of `source` that are set, as `"column"` names and `$n::type` expressions, their
 * values appended to `values` (parameters numbered after what `values` already holds). Undefined
 * fields are left out, as Prisma leaves them out.
 */
export function fieldParams(source: object, fields: readonly string[], values: unknown[]): { columns: string[]; expressions: string[] } {
  const columns: string[] = [];
  const expressions: string[] = [];
  for (const field of fields) {
    const value = (source as Record<string, unknown>)[field];
    if (value === undefined) continue;
    const spec = FIELD_COLUMNS[field]!;
    values.push(driverValue(value));
    columns.push(`"${spec[0]}"`);
    expressions.push(`$${values.length}::${spec[1]}`);
  }
  return { columns, expressions };
}

/**
 * `written AS (...)`: inserts `events` (their values appended to `values`) only when the CTE named
 * `saved` returned a row, so the events come with the record's write or not at all.
 */
export function eventsWrittenWithSaved(events: NewEvent[], values: unknown[]): string {
  const at = values.length;
  values.push(events.map((e) => e.id), events.map((e) => e.projectId), events.map((e) => e.type), events.map((e) => JSON.stringify(e.data)), events.map((e) => e.transactionId ?? null));
  return `written AS (
    INSERT INTO events (id, project_id, type, data, transaction_id)
    SELECT e.id, e.project_id, e.type, e.data, e.transaction_id
    FROM unnest($${at + 1}::text[], $${at + 2}::uuid[], $${at + 3}::text[], $${at + 4}::jsonb[], $${at + 5}::uuid[])
      AS e(id, project_id, type, data, transaction_id)
    WHERE EXISTS (SELECT 1 FROM saved)
  )`;
}

/** A `nonce_reservations` row another request may take: released, or its reservation lapsed. */
const FREE_NONCE = '(expires_at IS NULL OR expires_at <= now())';

/**
 * The EVM nonce allocation as CTEs ending in `allocated (nonce)`: the lowest free nonce not below
 * the chain's pending nonce, else the counter. By default $1 is the wallet, $2 the chain and $3 the
 * chain's pending nonce; `guard` is an SQL condition the allocation runs under. With `reservation`
 * (SQL expressions of its id and end) the nonce stays in `nonce_reservations` under that
 * reservation until a record takes it (TransactionStore.create) or it lapses; without, the caller
 * stores it in the same statement: the yield store allocates only while it holds the operation, in
 * the statement that stores the prepared step, with the wallet and chain read from the held row.
 */
export function nonceAllocationCtes({
  wallet = '$1',
  chain = '$2',
  pending = '$3',
  guard = 'true',
  reservation,
}: { wallet?: string; chain?: string; pending?: string; guard?: string; reservation?: { id: string; until: string } } = {}): string {
  const take = reservation ? `UPDATE nonce_reservations SET reservation_id = ${reservation.id}, expires_at = ${reservation.until}` : 'DELETE FROM nonce_reservations';
  const reserveCounted = reservation
    ? `, fresh AS (
    INSERT INTO nonce_reservations (wallet_id, chain_id, nonce, reservation_id, expires_at)
    SELECT ${wallet}, ${chain}, nonce, ${reservation.id}, ${reservation.until} FROM counted
    ON CONFLICT (wallet_id, chain_id, nonce) DO UPDATE SET reservation_id = EXCLUDED.reservation_id, expires_at = EXCLUDED.expires_at
    WHERE ${FREE_NONCE.replaceAll('expires_at', 'nonce_reservations.expires_at')}
  )`
    : '';
  return `stale AS (
    DELETE FROM nonce_reservations WHERE wallet_id = ${wallet} AND chain_id = ${chain} AND nonce < ${pending} AND ${FREE_NONCE} AND ${guard}
  ), reused AS (
    ${take}
    WHERE (wallet_id, chain_id, nonce) IN (
      SELECT wallet_id, chain_id, nonce FROM nonce_reservations
      WHERE wallet_id = ${wallet} AND chain_id = ${chain} AND nonce >= ${pending} AND ${FREE_NONCE} AND ${guard}
      ORDER BY nonce LIMIT 1 FOR UPDATE SKIP LOCKED)
    RETURNING nonce
  ), counted AS (
    INSERT INTO nonce_counters (wallet_id, chain_id, next_nonce)
    SELECT ${wallet}, ${chain}, ${pending}::int + 1 WHERE ${guard} AND NOT EXISTS (SELECT 1 FROM reused)
    ON CONFLICT (wallet_id, chain_id) DO UPDATE SET next_nonce = GREATEST(nonce_counters.next_nonce, ${pending}::int) + 1
    RETURNING next_nonce - 1 AS nonce
  )${reserveCounted}, allocated AS (
    SELECT nonce FROM reused UNION ALL SELECT nonce FROM counted
  )`;
}

/** Makes a nonce free to take again (the reservation's own row, or any row of a nonce no record holds any more). */
export const FREE_NONCE_SQL = `INSERT INTO nonce_reservations (wallet_id, chain_id, nonce) VALUES ($1::uuid, $2, $3)
  ON CONFLICT (wallet_id, chain_id, nonce) DO UPDATE SET reservation_id = NULL, expires_at = NULL`;

/**
 * Transaction records, EVM nonce allocation and the monitor's leases. Allocation, leasing and
 * batch rescheduling are single SQL statements so they stay atomic across processes without an
 * interactive transaction.
 */
export function createTransactionStore({ prisma, query }: Database): TransactionStore {
  return {
    async allocateNonce(walletId, chainId, chainPendingNonce, leaseMs) {
      const reservationId = randomUUID();
      const rows = await query<{ nonce: number }>(
        `WITH ${nonceAllocationCtes({ reservation: { id: '$4::uuid', until: "now() + $5::int * interval '1 millisecond'" } })} SELECT nonce FROM allocated`,
        [walletId, chainId, chainPendingNonce, reservationId, leaseMs],
      );
      const nonce = rows[0]?.nonce;
      if (nonce === undefined) throw new Error('nonce allocation returned no row');
      return { nonce: Number(nonce), reservationId };
    },

    async releaseNonce(walletId, chainId, nonce, reservationId) {
      if (reservationId === undefined) {
        await query(FREE_NONCE_SQL, [walletId, chainId, nonce]);
        return;
      }
      // Only while it is still this reservation's: a lapsed one may belong to another request now.
      await query(
        `UPDATE nonce_reservations SET reservation_id = NULL, expires_at = NULL
         WHERE wallet_id = $1::uuid AND chain_id = $2 AND nonce = $3 AND reservation_id = $4::uuid`,
        [walletId, chainId, nonce, reservationId],
      );
    },

    async create(record, events, reservationId, signature) {
      // One statement: the record and its events, with a reservation its nonce taken from it
      // (nothing is written when the reservation no longer holds that nonce), and with a signature
      // its audit row, event and spend.
      const values: unknown[] = [];
      const { columns, expressions } = fieldParams(record, NEW_RECORD_FIELDS, values);
      let claim = '';
      let insert = `VALUES (${expressions.join(', ')}, now())`;
      if (reservationId !== undefined) {
        values.push(record.walletId, record.chainId, record.nonce, reservationId);
        const n = values.length;
        claim = `claimed AS (
           DELETE FROM nonce_reservations WHERE wallet_id = $${n - 3}::uuid AND chain_id = $${n - 2} AND nonce = $${n - 1}::int AND reservation_id = $${n}::uuid
           RETURNING 1
         ), `;
        insert = `SELECT ${expressions.join(', ')}, now() WHERE EXISTS (SELECT 1 FROM claimed)`;
      }
      const signed = signature ? `, ${signatureWrittenWith(signature, values, 'saved', { events: false })}` : '';
      const [row] = await query<RecordRow>(
        `WITH ${claim}saved AS (
           INSERT INTO transaction_records (${columns.join(', ')}, updated_at) ${insert}
           RETURNING ${RECORD_COLUMNS}
         ), ${eventsWrittenWithSaved([...signatureEvents(signature), ...events], values)}${signed}
         SELECT saved.* FROM saved${signature ? ' CROSS JOIN signature_spent' : ''}`,
        values,
      );
      if (!row) throw new NonceReservationLostError(record.nonce!);
      return fromRecordRow(row);
    },

    async update(id, patch, events, onlyIfStatus) {
      // One statement: the patch only while the status is still `onlyIfStatus`, and its events only with it.
      const values: unknown[] = [id, onlyIfStatus];
      // A null monitoring leaves the column as it is (Prisma's Json? takes no plain null).
      const { columns, expressions } = fieldParams({ ...patch, monitoring: patch.monitoring ?? undefined }, PATCH_FIELDS, values);
      const sets = columns.map((c, i) => `${c} = ${expressions[i]}`);
      const [row] = await query<RecordRow>(
        `WITH saved AS (
           UPDATE transaction_records SET ${[...sets, 'updated_at = now()'].join(', ')}
           WHERE id = $1::uuid AND status = $2
           RETURNING ${RECORD_COLUMNS}
         ), ${eventsWrittenWithSaved(events, values)}
         SELECT * FROM saved`,
        values,
      );
      return row ? fromRecordRow(row) : null;
    },

    async findByIdempotencyKey(projectId, idempotencyKey) {
      const row = await prisma.transactionRecord.findUnique({ where: { projectId_idempotencyKey: { projectId, idempotencyKey } } });
      return row ? toTransactionRecord(row) : null;
    },

    async findInWallet(projectId, walletId, transactionId) {
      const row = await prisma.transactionRecord.findFirst({ where: { id: transactionId, projectId, walletId } });
      return row ? toTransactionRecord(row) : null;
    },

    async list(filter) {
      const rows = await prisma.transactionRecord.findMany({
        where: {
          projectId: filter.projectId,
          walletId: filter.walletId,
          status: filter.status,
          intentKind: filter.intentKind,
          ...afterPosition(filter.after),
        },
        orderBy: newestFirst,
        take: filter.limit,
      });
      return rows.map(toTransactionRecord);
    },

    async findByNonce(walletId, chainId, nonce) {
      const rows = await prisma.transactionRecord.findMany({ where: { walletId, chainId, nonce }, orderBy: { createdAt: 'asc' } });
      return rows.map(toTransactionRecord);
    },

    async leaseDue(owner, now, leaseUntil, limit, covered = []) {
      // One statement leases and returns the rows (the monitor's hot path: no second read).
      const rows =
        covered.length === 0
          ? await query<RecordRow>(
              `UPDATE transaction_records SET lease_owner = $1, lease_until = $3
               WHERE id IN (
                 SELECT id FROM transaction_records
                 WHERE next_check_at <= $2 AND (lease_until IS NULL OR lease_until < $2) AND execution_mode = 'legacy'
                 ORDER BY next_check_at LIMIT $4 FOR UPDATE SKIP LOCKED)
               RETURNING ${RECORD_COLUMNS}`,
              [owner, now, leaseUntil, limit],
            )
          : // Evidence now covered by finality first, then due by time. The range on evidence_block
            // (indexed, set only on unresolved records) keeps the first part cheap.
            await query<RecordRow>(
              `WITH covered AS (
                 SELECT * FROM unnest($5::text[], $6::text[], $7::bigint[]) AS c(wallet_type, chain, up_to)
               ), ready AS (
                 SELECT t.id FROM transaction_records t
                 WHERE t.evidence_block <= (SELECT max(up_to) FROM covered)
                   AND EXISTS (SELECT 1 FROM covered c
                               WHERE c.wallet_type = t.wallet_type AND t.evidence_block <= c.up_to
                                 AND c.chain = CASE WHEN t.wallet_type = 'EVM' THEN t.chain_id ELSE t.network END)
                   AND t.next_check_at IS NOT NULL AND t.consecutive_errors = 0 AND t.execution_mode = 'legacy'
                   AND (t.lease_until IS NULL OR t.lease_until < $2)
                 LIMIT $4 FOR UPDATE SKIP LOCKED
               ), due AS (
                 SELECT id FROM transaction_records
                 WHERE next_check_at <= $2 AND (lease_until IS NULL OR lease_until < $2) AND execution_mode = 'legacy' AND id NOT IN (SELECT id FROM ready)
                 ORDER BY next_check_at LIMIT (SELECT $4 - count(*) FROM ready) FOR UPDATE SKIP LOCKED
               )
               UPDATE transaction_records SET lease_owner = $1, lease_until = $3
               WHERE id IN (SELECT id FROM ready UNION ALL SELECT id FROM due)
               RETURNING ${RECORD_COLUMNS}`,
              [owner, now, leaseUntil, limit, covered.map((c) => c.walletType), covered.map((c) => c.chain), covered.map((c) => c.upTo.toString())],
            );
      return rows.map(fromRecordRow).sort((a, b) => a.nextCheckAt!.getTime() - b.nextCheckAt!.getTime());
    },

    async waitingForFinality() {
      const rows = await query<{ wallet_type: TransactionRecord['walletType']; chain: string | null; lowest: string | number | bigint }>(
        `SELECT wallet_type, CASE WHEN wallet_type = 'EVM' THEN chain_id ELSE network END AS chain, min(evidence_block) AS lowest
         FROM transaction_records
         WHERE evidence_block IS NOT NULL AND next_check_at IS NOT NULL AND consecutive_errors = 0
         GROUP BY 1, 2`,
      );
      return rows.filter((r) => r.chain !== null).map((r) => ({ walletType: r.wallet_type, chain: r.chain!, lowest: BigInt(r.lowest) }));
    },

    async reschedule(owner, checks) {
      if (checks.length === 0) return 0;
      const rows = await query<{ id: string }>(
        `UPDATE transaction_records AS t SET
           next_check_at = c.next_check_at, consecutive_errors = c.consecutive_errors,
           evidence_at = c.evidence_at, evidence_block = c.evidence_block::bigint, monitoring = c.monitoring,
           check_count = t.check_count + 1, lease_owner = NULL, lease_until = NULL, updated_at = now()
         FROM unnest($2::uuid[], $3::timestamptz[], $4::int[], $5::timestamptz[], $6::jsonb[], $7::text[])
           AS c(id, next_check_at, consecutive_errors, evidence_at, monitoring, evidence_block)
         WHERE t.id = c.id AND t.lease_owner = $1
         RETURNING t.id`,
        [
          owner,
          checks.map((c) => c.id),
          checks.map((c) => c.nextCheckAt),
          checks.map((c) => c.consecutiveErrors),
          checks.map((c) => c.evidenceAt),
          checks.map((c) => (c.monitoring ? JSON.stringify(c.monitoring) : null)),
          checks.map((c) => (c.evidenceBlock === null ? null : c.evidenceBlock.toString())),
        ],
      );
      return rows.length;
    },

    async completeChecks(owner, completions) {
      if (completions.length === 0) return [];
      const events = completions.flatMap((c) => c.events.map((e) => ({ ...e, recordId: c.id })));
      const rows = await query<{ id: string }>(
        `WITH c AS (
           SELECT * FROM unnest($2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[], $9::jsonb[],
                                $10::timestamptz[], $11::timestamptz[], $12::timestamptz[], $13::timestamptz[], $14::int[], $20::text[])
             AS c(id, status, block_number, block_hash, failure_stage, failure_code, failure_message, monitoring,
                  submitted_at, resolved_at, evidence_at, next_check_at, consecutive_errors, evidence_block)
         ), saved AS (
           UPDATE transaction_records AS t SET
             status = c.status, block_number = c.block_number::bigint, block_hash = c.block_hash,
             failure_stage = c.failure_stage, failure_code = c.failure_code, failure_message = c.failure_message,
             monitoring = c.monitoring, submitted_at = COALESCE(t.submitted_at, c.submitted_at),
             resolved_at = c.resolved_at, evidence_at = c.evidence_at, evidence_block = c.evidence_block::bigint,
             next_check_at = c.next_check_at,
             consecutive_errors = c.consecutive_errors, check_count = t.check_count + 1,
             lease_owner = NULL, lease_until = NULL, updated_at = now()
           FROM c WHERE t.id = c.id AND t.lease_owner = $1
           RETURNING t.id
         ), written AS (
           INSERT INTO events (id, project_id, type, data, transaction_id)
           SELECT e.id, e.project_id, e.type, e.data, e.transaction_id
           FROM unnest($15::text[], $16::uuid[], $17::text[], $18::jsonb[], $19::uuid[], $21::uuid[])
             AS e(id, project_id, type, data, record_id, transaction_id)
           WHERE e.record_id IN (SELECT id FROM saved)
         ), woken AS (
           -- A yield operation following one of these records looks again now, not at its next poll.
           UPDATE yield_operations SET next_run_at = now()
           WHERE status = 'submitted' AND id IN (SELECT s.operation_id FROM yield_operation_steps s WHERE s.transaction_id IN (SELECT id FROM saved))
         )
         SELECT id FROM saved`,
        [
          owner,
          completions.map((c) => c.id),
          completions.map((c) => c.status),
          completions.map((c) => (c.blockNumber === null ? null : c.blockNumber.toString())),
          completions.map((c) => c.blockHash),
          completions.map((c) => c.failureStage),
          completions.map((c) => c.failureCode),
          completions.map((c) => c.failureMessage),
          completions.map((c) => (c.monitoring ? JSON.stringify(c.monitoring) : null)),
          completions.map((c) => c.submittedAt),
          completions.map((c) => c.resolvedAt),
          completions.map((c) => c.evidenceAt),
          completions.map((c) => c.nextCheckAt),
          completions.map((c) => c.consecutiveErrors),
          events.map((e) => e.id),
          events.map((e) => e.projectId),
          events.map((e) => e.type),
          events.map((e) => JSON.stringify(e.data)),
          events.map((e) => e.recordId),
          completions.map((c) => (c.evidenceBlock === null ? null : c.evidenceBlock.toString())),
          events.map((e) => e.transactionId ?? null),
        ],
      );
      return rows.map((r) => r.id);
    },

    async completeCheck(owner, id, patch, events) {
      return prisma.$transaction(async (tx) => {
        const updated = await tx.transactionRecord.updateManyAndReturn({
          where: { id, leaseOwner: owner },
          data: { ...(patchData(patch) as Prisma.TransactionRecordUpdateManyMutationInput), leaseOwner: null, leaseUntil: null, checkCount: { increment: 1 } },
        });
        const row = updated[0];
        if (!row) return null;
        if (events.length > 0) await tx.event.createMany({ data: events.map(eventData) });
        return toTransactionRecord(row);
      });
    },
  };
}

/** What resolving a reset chain needs (packages/domain/src/transactions/chain-reset.ts). */
export function createChainResetStore(database: Database): ChainResetStore {
  // On the driver: local mode resolves reset devnets at start (every fresh DATA_DIR), and a Prisma
  // query there would load Prisma's query compiler (WebAssembly, ~45 MB resident) into a process at rest.
  const { query } = database;
  return {
    async resetNonces(chainId) {
      const rows = await query<{ n: string | number }>(
        `WITH counters AS (DELETE FROM nonce_counters WHERE chain_id = $1 RETURNING 1),
              released AS (DELETE FROM nonce_reservations WHERE chain_id = $1 RETURNING 1)
         SELECT (SELECT count(*) FROM counters) + (SELECT count(*) FROM released) AS n`,
        [chainId],
      );
      return Number(rows[0]?.n ?? 0);
    },
    async listUnresolvedOnChain(walletType, chain, limit) {
      const rows = await query<RecordRow>(
        `SELECT ${RECORD_COLUMNS} FROM transaction_records
         WHERE wallet_type = $1 AND status IN ('pending', 'submitted') AND ${walletType === 'EVM' ? 'chain_id' : 'network'} = $2
         ORDER BY created_at, id LIMIT $3`,
        [walletType, chain, limit],
      );
      return rows.map(fromRecordRow);
    },
    update: createTransactionStore(database).update,
  };
}
