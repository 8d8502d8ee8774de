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

type MeterRow = { api_key_id: string; wallet_id: string; network: string; asset: string; window_ms: string; start_ms: string; spent: string; reserved: string };

/** The values of meter rows by meter id (rows of one project and environment). */
function valuesOf(projectId: string, environment: MeterKey['environment'], rows: MeterRow[]): Map<string, MeterValue> {
  const values = new Map<string, MeterValue>();
  for (const row of rows) {
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
  return values;
}

/** The charges as a JSON array for `jsonb_to_recordset`, with the meter value each was decided on. */
function chargesJson(charges: MeterCharge[], values: Map<string, MeterValue>): string {
  return JSON.stringify(
    charges.map((c) => {
      const value = values.get(meterKeyId(c.key))!;
      return { ...toStored(c.key, c.amount), expected: (value.spent + value.reserved).toString() };
    }),
  );
}

const chargeColumns = Prisma.sql`"projectId" uuid, environment text, "apiKeyId" uuid, "walletId" uuid, network text, asset text,
  "windowMs" bigint, "windowStart" timestamptz, amount numeric, expected numeric`;
const meterIsCharge = Prisma.sql`m.project_id = c."projectId" AND m.environment = c.environment AND m.api_key_id = c."apiKeyId"
  AND m.wallet_id = c."walletId" AND m.network = c.network AND m.asset = c.asset
  AND m.window_ms = c."windowMs" AND m.window_start = c."windowStart"`;
/** A meter row's identity and amounts as text, read from the alias `m`. */
const meterColumns = Prisma.sql`m.api_key_id::text, m.wallet_id::text, m.network, m.asset, m.window_ms::text,
  (extract(epoch FROM m.window_start) * 1000)::bigint::text AS start_ms, m.spent::text, m.reserved::text`;

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

  // The last value this process saw of each meter it reserved on (a hint: the reserving statement
  // checks it). Bounded: cleared when full.
  const lastSeen = new Map<string, MeterValue>();
  const remember = (key: MeterKey, value: MeterValue, added: bigint) => {
    if (lastSeen.size >= 10_000) lastSeen.clear();
    lastSeen.set(meterKeyId(key), { spent: value.spent, reserved: value.reserved + added });
  };
  const remembered = (charges: MeterCharge[]): Map<string, MeterValue> | null => {
    const values = new Map<string, MeterValue>();
    for (const c of charges) {
      const value = lastSeen.get(meterKeyId(c.key));
      if (!value) return null;
      values.set(meterKeyId(c.key), value);
    }
    return values;
  };

  /** The meters' values, creating missing ones at 0 (in the sorted order), in one statement. */
  const readOrCreate = async (projectId: string, environment: MeterKey['environment'], keys: MeterKey[]) => {
    const rows = Prisma.join(
      keys.map(
        (k) => Prisma.sql`(${k.projectId}::uuid, ${k.environment}, ${k.apiKeyId}::uuid, ${k.walletId}::uuid, ${k.network}, ${k.asset},
          ${String(k.windowMs)}::bigint, ${k.windowStart}::timestamptz)`,
      ),
    );
    // The SELECT does not see rows the INSERT adds in the same statement: those come from RETURNING.
    const found = await prisma.$queryRaw<MeterRow[]>`
      WITH wanted (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start) AS (VALUES ${rows}),
      created AS (
        INSERT INTO policy_spend_meters AS m (project_id, environment, api_key_id, wallet_id, network, asset, window_ms, window_start)
        SELECT * FROM wanted ON CONFLICT DO NOTHING
        RETURNING ${meterColumns}
      )
      SELECT ${meterColumns} FROM policy_spend_meters m
      WHERE (m.project_id, m.environment, m.api_key_id, m.wallet_id, m.network, m.asset, m.window_ms, m.window_start) IN (SELECT * FROM wanted)
      UNION ALL SELECT * FROM created`;
    return valuesOf(projectId, environment, found);
  };
  /** Read again when another statement created a meter after this one's snapshot was taken. */
  const readMeters = async (projectId: string, environment: MeterKey['environment'], keys: MeterKey[]) => {
    for (let attempt = 1; ; attempt++) {
      const values = await readOrCreate(projectId, environment, keys);
      if (values.size === keys.length) return values;
      if (attempt === 5) throw new Error(`read ${values.size} of ${keys.length} meters`);
    }
  };

  /**
   * `reserved` -> `to`, only from `reserved`: a second commit, or a commit after a release, does
   * nothing. One statement (atomic on its own): the reservation's row lock orders a concurrent
   * commit and release, and its charges (stored in lock order) settle their meters.
   */
  const finish = async (id: string, to: 'spent' | 'released') => {
    const spend = to === 'spent';
    const rows = await prisma.$queryRaw<Array<MeterRow & { project_id: string; environment: string }>>`
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
        AND m.window_ms = charge."windowMs" AND m.window_start = charge."windowStart"
      RETURNING m.project_id::text, m.environment, ${meterColumns}`;
    for (const row of rows) {
      for (const [id, value] of valuesOf(row.project_id, row.environment as MeterKey['environment'], [row])) if (lastSeen.has(id)) lastSeen.set(id, value);
    }
  };

  const handle = (id: string): MeterReservationHandle => ({
    id,
    commit: () => finish(id, 'spent'),
    release: () => finish(id, 'released'),
  });

  return {
    /**
     * Optimistic: decide on the meters' values (this process's last known ones when it has them,
     * else read, creating missing meters at 0), then reserve in one statement that locks the meters
     * and applies only if every one still holds the value decided on (`spent + reserved`, which a
     * commit or release of another reservation leaves alone or lowers). If another request got there
     * first the statement changes nothing and the decision is made again on fresh values, so a limit
     * is never overshot; each round lets at least one request through, so all finish. A denial on
     * remembered values is checked again on fresh ones before it stands.
     */
    async reserve(charges, decide) {
      const sorted = normalize(charges);
      if (sorted.length === 0) return { result: decide(new Map()).result, reservation: noReservation };
      const { projectId, environment } = sorted[0]!.key;
      let values = remembered(sorted);
      let fresh = values === null;
      for (;;) {
        values ??= await readMeters(projectId, environment, sorted.map((c) => c.key));
        const verdict = decide(values);
        if (!verdict.reserve) {
          if (fresh) return { result: verdict.result, reservation: noReservation };
          values = null;
          fresh = true;
          continue;
        }
        const charged = sorted.filter((c) => c.amount > 0n);
        const id = charged.length > 0 ? randomUUID() : null;
        const stored = JSON.stringify(charged.map((c) => toStored(c.key, c.amount)));
        const [row] = await prisma.$queryRaw<Array<{ ok: boolean }>>`
          WITH c AS (SELECT * FROM jsonb_to_recordset(${chargesJson(sorted, values)}::jsonb) AS c(${chargeColumns})),
          locked AS (SELECT 1 FROM policy_spend_meters m JOIN c ON ${meterIsCharge} WHERE m.spent + m.reserved = c.expected FOR UPDATE OF m),
          ok AS (SELECT count(*) = ${sorted.length} AS ok FROM locked),
          reserved AS (
            UPDATE policy_spend_meters m SET reserved = m.reserved + c.amount, updated_at = now()
            FROM c, ok WHERE ok.ok AND c.amount > 0 AND ${meterIsCharge}
            RETURNING 1
          ),
          reservation AS (
            INSERT INTO policy_spend_reservations (id, project_id, environment, status, charges)
            SELECT ${id}::uuid, ${projectId}::uuid, ${environment}, 'reserved', ${stored}::jsonb FROM ok WHERE ok.ok AND ${id !== null}
            RETURNING 1
          )
          SELECT ok.ok FROM ok`;
        if (row?.ok) {
          for (const c of sorted) remember(c.key, values.get(meterKeyId(c.key))!, c.amount);
          return { result: verdict.result, reservation: id === null ? noReservation : handle(id) };
        }
        values = null;
        fresh = true;
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
