import { randomUUID } from 'node:crypto';
import type { SpendMeterPruning } from '@wallet/domain';
import {
  meterKeyId,
  type MeterCharge,
  type MeterKey,
  type MeterReservationHandle,
  type MeterStore,
  type MeterValue,
} from '@wallet/domain/policies/evaluation-types.ts';
import type { Database } from '../database.ts';
import { Prisma } from '../generated/prisma/client.ts';

/** One charge as stored in `policy_spend_reservations.charges` (amount: decimal string of base units). */
interface StoredCharge {
  projectId: string;
  environment: MeterKey['environment'];
  apiKeyId: string;
  walletId: string;
  network: string;
  asset: string;
  windowMs: number;
  windowStart: string;
  amount: string;
}

type Tx = Prisma.TransactionClient;

// Requests on one meter queue on its row lock; give queued transactions room before Prisma gives up.
const transactionOptions = { maxWait: 30_000, timeout: 30_000 };

/** Thrown out of the reserving transaction to roll it back when `decide` denies. */
class Denied extends Error {
  constructor(readonly result: unknown) {
    super('denied by the policy decision');
  }
}

const noReservation: MeterReservationHandle = { id: null, commit: async () => {}, release: async () => {} };

const toStored = (key: MeterKey, amount: bigint): StoredCharge => ({
  projectId: key.projectId,
  environment: key.environment,
  apiKeyId: key.apiKeyId,
  walletId: key.walletId,
  network: key.network,
  asset: key.asset,
  windowMs: key.windowMs,
  windowStart: key.windowStart.toISOString(),
  amount: amount.toString(),
});

const fromStored = ({ amount, windowStart, ...key }: StoredCharge): MeterCharge => ({
  key: { ...key, windowStart: new Date(windowStart) },
  amount: BigInt(amount),
});

/** The WHERE clause naming one meter (its primary key). Amounts and window lengths go as text. */
const meterIs = (k: MeterKey) => Prisma.sql`
  project_id = ${k.projectId}::uuid AND environment = ${k.environment} AND api_key_id = ${k.apiKeyId}::uuid
  AND wallet_id = ${k.walletId}::uuid AND network = ${k.network} AND asset = ${k.asset}
  AND window_ms = ${String(k.windowMs)}::bigint AND window_start = ${k.windowStart}::timestamptz`;

/**
 * Merges charges of the same meter (their amounts add up) and sorts them by `meterKeyId`: every
 * transaction locks meters in that one order, so two requests sharing meters never deadlock.
 */
function normalize(charges: MeterCharge[]): MeterCharge[] {
  const byId = new Map<string, MeterCharge>();
  for (const charge of charges) {
    if (charge.amount < 0n) throw new RangeError(`meter charge ${meterKeyId(charge.key)} is negative`);
    if (!Number.isSafeInteger(charge.key.windowMs) || charge.key.windowMs <= 0) throw new RangeError(`meter window ${charge.key.windowMs} is not a positive integer`);
    const id = meterKeyId(charge.key);
    const seen = byId.get(id);
    byId.set(id, seen ? { key: seen.key, amount: seen.amount + charge.amount } : charge);
  }
  return [...byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, charge]) => charge);
}

/** Moves each charge from `reserved` (to `spent` when `spend`), in the same lock order as `reserve`. */
async function settle(tx: Tx, charges: StoredCharge[], spend: boolean): Promise<void> {
  for (const charge of normalize(charges.map(fromStored))) {
    const amount = charge.amount.toString();
    await tx.$executeRaw`
      UPDATE policy_spend_meters
      SET reserved = reserved - ${amount}::numeric,
          spent = spent + ${spend ? amount : '0'}::numeric,
          updated_at = now()
      WHERE ${meterIs(charge.key)}`;
  }
}

/**
 * Spend meters and reservations (the policy evaluation's `MeterStore`), plus the pruning of meters
 * whose window has ended and of settled reservations.
 */
export function createPolicyMeterStore({ prisma }: Database): MeterStore & SpendMeterPruning {
  const readValues = async (db: Tx | Database['prisma'], keys: MeterKey[], lock: boolean) => {
    const values = new Map<string, MeterValue>();
    for (const key of keys) {
      const rows = lock
        ? await db.$queryRaw<Array<{ spent: string; reserved: string }>>`
            SELECT spent::text AS spent, reserved::text AS reserved FROM policy_spend_meters WHERE ${meterIs(key)} FOR UPDATE`
        : await db.$queryRaw<Array<{ spent: string; reserved: string }>>`
            SELECT spent::text AS spent, reserved::text AS reserved FROM policy_spend_meters WHERE ${meterIs(key)}`;
      const row = rows[0];
      values.set(meterKeyId(key), row ? { spent: BigInt(row.spent), reserved: BigInt(row.reserved) } : { spent: 0n, reserved: 0n });
    }
    return values;
  };

  /** `reserved` -> `to`, only from `reserved`: a second commit, or a commit after a release, does nothing. */
  const finish = (id: string, to: 'spent' | 'released') =>
    prisma.$transaction(async (tx) => {
      // The row lock taken here orders a concurrent commit and release: the second sees the new status.
      const rows = await tx.$queryRaw<Array<{ charges: StoredCharge[] }>>`
        UPDATE policy_spend_reservations SET status = ${to}, settled_at = now()
        WHERE id = ${id}::uuid AND status = 'reserved'
        RETURNING charges`;
      const row = rows[0];
      if (row) await settle(tx, row.charges, to === 'spent');
    }, transactionOptions);

  const handle = (id: string): MeterReservationHandle => ({
    id,
    commit: () => finish(id, 'spent'),
    release: () => finish(id, 'released'),
  });

  return {
    async reserve(charges, decide) {
      const sorted = normalize(charges);
      if (sorted.length === 0) return { result: decide(new Map()).result, reservation: noReservation };
      try {
        return await prisma.$transaction(async (tx) => {
          for (const { key } of sorted) {
            // Missing meters start at 0. One key at a time, in the sorted order: inserting a row
            // holds it like a lock, so creating and locking follow the same order as well.
            await tx.$executeRaw`
              INSERT INTO policy_spend_meters (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start)
              VALUES (${key.projectId}::uuid, ${key.environment}, ${key.apiKeyId}::uuid, ${key.walletId}::uuid, ${key.network}, ${key.asset},
                      ${String(key.windowMs)}::bigint, ${key.windowStart}::timestamptz)
              ON CONFLICT DO NOTHING`;
          }
          const values = await readValues(tx, sorted.map((c) => c.key), true);
          const verdict = decide(values);
          // A denial rolls back (the meters created above included): it writes nothing.
          if (!verdict.reserve) throw new Denied(verdict.result);
          const charged = sorted.filter((c) => c.amount > 0n);
          if (charged.length === 0) return { result: verdict.result, reservation: noReservation };
          for (const charge of charged) {
            await tx.$executeRaw`
              UPDATE policy_spend_meters SET reserved = reserved + ${charge.amount.toString()}::numeric, updated_at = now()
              WHERE ${meterIs(charge.key)}`;
          }
          const id = randomUUID();
          const { projectId, environment } = charged[0]!.key;
          const stored = charged.map((c) => toStored(c.key, c.amount));
          await tx.$executeRaw`
            INSERT INTO policy_spend_reservations (id, project_id, environment, status, charges)
            VALUES (${id}::uuid, ${projectId}::uuid, ${environment}, 'reserved', ${JSON.stringify(stored)}::jsonb)`;
          return { result: verdict.result, reservation: handle(id) };
        }, transactionOptions);
      } catch (error) {
        if (error instanceof Denied) return { result: error.result as never, reservation: noReservation };
        throw error;
      }
    },

    read(keys) {
      return readValues(prisma, keys, false);
    },

    async pruneMeters(windowEndedBefore, limit) {
      // window_start < cutoff lets the window_start index narrow the scan; the window end decides.
      return prisma.$executeRaw`
        DELETE FROM policy_spend_meters WHERE ctid IN (
          SELECT ctid FROM policy_spend_meters
          WHERE window_start < ${windowEndedBefore}::timestamptz
            AND window_start + window_ms * interval '1 millisecond' < ${windowEndedBefore}::timestamptz
          LIMIT ${limit})`;
    },

    async pruneReservations(settledBefore, limit) {
      return prisma.$executeRaw`
        DELETE FROM policy_spend_reservations WHERE id IN (
          SELECT id FROM policy_spend_reservations
          WHERE settled_at < ${settledBefore}::timestamptz AND status IN ('spent', 'released')
          LIMIT ${limit})`;
    },
  };
}
