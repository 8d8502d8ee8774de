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

/**
 * Creates missing meters at 0 and locks all of them, in one statement: the rows go in the sorted
 * order and `ON CONFLICT DO UPDATE` locks an existing row as an insert holds a new one, so every
 * transaction takes its meters in the same order (no deadlock). Answers their values by meter id.
 */
async function lockMeters(tx: Tx, keys: MeterKey[]): Promise<Map<string, MeterValue>> {
  const rows = Prisma.join(
    keys.map(
      (k) => Prisma.sql`(${k.projectId}::uuid, ${k.environment}, ${k.apiKeyId}::uuid, ${k.walletId}::uuid, ${k.network}, ${k.asset},
        ${String(k.windowMs)}::bigint, ${k.windowStart}::timestamptz)`,
    ),
  );
  const locked = await tx.$queryRaw<Array<{ api_key_id: string; wallet_id: string; network: string; asset: string; window_ms: string; start_ms: string; spent: string; reserved: string }>>`
    INSERT INTO policy_spend_meters (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start)
    VALUES ${rows}
    ON CONFLICT (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start)
    DO UPDATE SET updated_at = policy_spend_meters.updated_at
    RETURNING api_key_id::text, wallet_id::text, network, asset, window_ms::text,
      (extract(epoch FROM window_start) * 1000)::bigint::text AS start_ms, spent::text, reserved::text`;
  const { projectId, environment } = keys[0]!;
  const values = new Map<string, MeterValue>();
  for (const row of locked) {
    const key: MeterKey = {
      projectId,
      environment,
      apiKeyId: row.api_key_id,
      walletId: row.wallet_id,
      network: row.network,
      asset: row.asset,
      windowMs: Number(row.window_ms),
      windowStart: new Date(Number(row.start_ms)),
    };
    values.set(meterKeyId(key), { spent: BigInt(row.spent), reserved: BigInt(row.reserved) });
  }
  if (values.size !== keys.length) throw new Error(`locked ${values.size} of ${keys.length} meters`);
  return values;
}

/**
 * Spend meters and reservations (the policy evaluation's `MeterStore`), plus the pruning of meters
 * whose window has ended and of settled reservations.
 */
export function createPolicyMeterStore({ prisma }: Database): MeterStore & SpendMeterPruning {
  /** Current values without locking (usage snapshots, dry runs); a missing meter is 0. */
  const readValues = async (keys: MeterKey[]) => {
    const values = new Map<string, MeterValue>();
    for (const key of keys) {
      const rows = await prisma.$queryRaw<Array<{ spent: string; reserved: string }>>`
        SELECT spent::text AS spent, reserved::text AS reserved FROM policy_spend_meters WHERE ${meterIs(key)}`;
      const row = rows[0];
      values.set(meterKeyId(key), row ? { spent: BigInt(row.spent), reserved: BigInt(row.reserved) } : { spent: 0n, reserved: 0n });
    }
    return values;
  };

  /**
   * `reserved` -> `to`, only from `reserved`: a second commit, or a commit after a release, does
   * nothing. One statement (atomic on its own): the reservation's row lock orders a concurrent
   * commit and release, and its charges (stored in lock order) settle their meters.
   */
  const finish = async (id: string, to: 'spent' | 'released') => {
    const spend = to === 'spent';
    await prisma.$executeRaw`
      WITH settled AS (
        UPDATE policy_spend_reservations SET status = ${to}, settled_at = now()
        WHERE id = ${id}::uuid AND status = 'reserved'
        RETURNING charges
      ), charge AS (
        SELECT c.* FROM settled, jsonb_to_recordset(settled.charges) AS c(
          "projectId" uuid, environment text, "apiKeyId" uuid, "walletId" uuid, network text, asset text,
          "windowMs" bigint, "windowStart" timestamptz, amount numeric)
      )
      UPDATE policy_spend_meters m
      SET reserved = m.reserved - charge.amount, spent = m.spent + CASE WHEN ${spend} THEN charge.amount ELSE 0 END, updated_at = now()
      FROM charge
      WHERE m.project_id = charge."projectId" AND m.environment = charge.environment AND m.api_key_id = charge."apiKeyId"
        AND m.wallet_id = charge."walletId" AND m.network = charge.network AND m.asset = charge.asset
        AND m.window_ms = charge."windowMs" AND m.window_start = charge."windowStart"`;
  };

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
          const values = await lockMeters(tx, sorted.map((c) => c.key));
          const verdict = decide(values);
          // A denial rolls back (the meters created above included): it writes nothing.
          if (!verdict.reserve) throw new Denied(verdict.result);
          const charged = sorted.filter((c) => c.amount > 0n);
          if (charged.length === 0) return { result: verdict.result, reservation: noReservation };
          const id = randomUUID();
          const { projectId, environment } = charged[0]!.key;
          const stored = charged.map((c) => toStored(c.key, c.amount));
          // One statement: the charges onto their (locked) meters, and the reservation row.
          await tx.$executeRaw`
            WITH charge AS (
              SELECT c.* FROM jsonb_to_recordset(${JSON.stringify(stored)}::jsonb) AS c(
                "projectId" uuid, environment text, "apiKeyId" uuid, "walletId" uuid, network text, asset text,
                "windowMs" bigint, "windowStart" timestamptz, amount numeric)
            ), charged AS (
              UPDATE policy_spend_meters m SET reserved = m.reserved + charge.amount, updated_at = now()
              FROM charge
              WHERE m.project_id = charge."projectId" AND m.environment = charge.environment AND m.api_key_id = charge."apiKeyId"
                AND m.wallet_id = charge."walletId" AND m.network = charge.network AND m.asset = charge.asset
                AND m.window_ms = charge."windowMs" AND m.window_start = charge."windowStart"
              RETURNING 1
            )
            INSERT INTO policy_spend_reservations (id, project_id, environment, status, charges)
            SELECT ${id}::uuid, ${projectId}::uuid, ${environment}, 'reserved', ${JSON.stringify(stored)}::jsonb
            WHERE (SELECT count(*) FROM charged) = ${charged.length}`;
          return { result: verdict.result, reservation: handle(id) };
        }, transactionOptions);
      } catch (error) {
        if (error instanceof Denied) return { result: error.result as never, reservation: noReservation };
        throw error;
      }
    },

    read(keys) {
      return readValues(keys);
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
