import type {
  FailureStage,
  IntentKind,
  MonitoringInfo,
  NewEvent,
  TransactionPatch,
  TransactionRecord,
  TransactionStatus,
  TransactionStore,
} from '@wallet/domain';
import type { Database } from '../database.ts';
import type { Prisma } from '../generated/prisma/client.ts';
import { eventData } from './users.ts';

type Row = Prisma.TransactionRecordGetPayload<object>;

export function toTransactionRecord(row: Row): TransactionRecord {
  return {
    ...row,
    walletType: row.walletType as TransactionRecord['walletType'],
    intentKind: row.intentKind as IntentKind,
    status: row.status as TransactionStatus,
    failureStage: row.failureStage as FailureStage | null,
    monitoring: (row.monitoring as MonitoringInfo | null) ?? null,
  };
}

function patchData(patch: TransactionPatch): Prisma.TransactionRecordUpdateInput {
  const { monitoring, ...rest } = patch;
  return {
    ...rest,
    ...(monitoring !== undefined ? { monitoring: (monitoring ?? undefined) as Prisma.InputJsonObject | undefined } : {}),
  };
}

/**
 * Transaction records, EVM nonce allocation and the monitor's leases. Allocation, leasing and
 * batch rescheduling are single SQL statements so they stay atomic across processes without an
 * interactive transaction.
 */
export function createTransactionStore({ prisma, query }: Database): TransactionStore {
  return {
    async allocateNonce(walletId, chainId, chainPendingNonce) {
      const rows = await query<{ nonce: number }>(
        `WITH stale AS (
           DELETE FROM released_nonces WHERE wallet_id = $1 AND chain_id = $2 AND nonce < $3
         ), reused AS (
           DELETE FROM released_nonces WHERE (wallet_id, chain_id, nonce) IN (
             SELECT wallet_id, chain_id, nonce FROM released_nonces
             WHERE wallet_id = $1 AND chain_id = $2 AND nonce >= $3
             ORDER BY nonce LIMIT 1 FOR UPDATE SKIP LOCKED)
           RETURNING nonce
         ), counted AS (
           INSERT INTO nonce_counters (wallet_id, chain_id, next_nonce)
           SELECT $1, $2, $3::int + 1 WHERE NOT EXISTS (SELECT 1 FROM reused)
           ON CONFLICT (wallet_id, chain_id) DO UPDATE SET next_nonce = GREATEST(nonce_counters.next_nonce, $3::int) + 1
           RETURNING next_nonce - 1 AS nonce
         )
         SELECT nonce FROM reused UNION ALL SELECT nonce FROM counted`,
        [walletId, chainId, chainPendingNonce],
      );
      const nonce = rows[0]?.nonce;
      if (nonce === undefined) throw new Error('nonce allocation returned no row');
      return Number(nonce);
    },

    async releaseNonce(walletId, chainId, nonce) {
      await query(
        `INSERT INTO released_nonces (wallet_id, chain_id, nonce) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
        [walletId, chainId, nonce],
      );
    },

    async create(record, events) {
      const { monitoring, ...rest } = record;
      const data: Prisma.TransactionRecordCreateInput = {
        ...rest,
        ...(monitoring ? { monitoring: monitoring as Prisma.InputJsonObject } : {}),
      };
      if (events.length === 0) return toTransactionRecord(await prisma.transactionRecord.create({ data }));
      const [row] = await prisma.$transaction([
        prisma.transactionRecord.create({ data }),
        prisma.event.createMany({ data: events.map(eventData) }),
      ]);
      return toTransactionRecord(row);
    },

    async update(id, patch, events) {
      const [row] = await prisma.$transaction([
        prisma.transactionRecord.update({ where: { id }, data: patchData(patch) }),
        ...(events.length > 0 ? [prisma.event.createMany({ data: events.map(eventData) })] : []),
      ]);
      return toTransactionRecord(row as Row);
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
          ...(filter.after
            ? {
                OR: [
                  { createdAt: { lt: filter.after.createdAt } },
                  { createdAt: filter.after.createdAt, id: { lt: filter.after.id } },
                ],
              }
            : {}),
        },
        orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
        take: filter.limit,
      });
      return rows.map(toTransactionRecord);
    },

    async findByNonce(walletId, chainId, nonce) {
      const rows = await prisma.transactionRecord.findMany({ where: { walletId, chainId, nonce }, orderBy: { createdAt: 'asc' } });
      return rows.map(toTransactionRecord);
    },

    async leaseDue(owner, now, leaseUntil, limit) {
      const leased = await query<{ id: string }>(
        `UPDATE transaction_records SET lease_owner = $1, lease_until = $3
         WHERE id IN (
           SELECT id FROM transaction_records
           WHERE next_check_at <= $2 AND (lease_until IS NULL OR lease_until < $2)
           ORDER BY next_check_at LIMIT $4 FOR UPDATE SKIP LOCKED)
         RETURNING id`,
        [owner, now, leaseUntil, limit],
      );
      if (leased.length === 0) return [];
      const rows = await prisma.transactionRecord.findMany({
        where: { id: { in: leased.map((r) => r.id) }, leaseOwner: owner },
        orderBy: { nextCheckAt: 'asc' },
      });
      return rows.map(toTransactionRecord);
    },

    async reschedule(owner, checks) {
      if (checks.length === 0) return 0;
      const rows = await query<{ id: string }>(
        `UPDATE transaction_records AS t SET
           next_check_at = c.next_check_at, consecutive_errors = c.consecutive_errors,
           evidence_at = c.evidence_at, monitoring = c.monitoring,
           check_count = t.check_count + 1, lease_owner = NULL, lease_until = NULL, updated_at = now()
         FROM unnest($2::uuid[], $3::timestamptz[], $4::int[], $5::timestamptz[], $6::jsonb[])
           AS c(id, next_check_at, consecutive_errors, evidence_at, monitoring)
         WHERE t.id = c.id AND t.lease_owner = $1
         RETURNING t.id`,
        [
          owner,
          checks.map((c) => c.id),
          checks.map((c) => c.nextCheckAt),
          checks.map((c) => c.consecutiveErrors),
          checks.map((c) => c.evidenceAt),
          checks.map((c) => (c.monitoring ? JSON.stringify(c.monitoring) : null)),
        ],
      );
      return rows.length;
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
