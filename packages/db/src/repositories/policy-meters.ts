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

/** A charge as the reserving function takes it: the stored form plus the verdict's bounds. */
interface BoundedCharge extends StoredCharge {
  min: string | null;
  max: string | null;
}

/** Raised by `policy_spend_reserve` when a meter left its bounds; DETAIL holds the current values. */
const METERS_MOVED = 'policy spend meters moved';
// Each retry follows a meter that crossed a limit the decision depends on; more than this means a bug.
const maxAttempts = 100;
// Meter values last seen by this process: hints that save a read, never trusted for a decision
// that sticks (the reserving statement checks the bounds; a denial decided on a hint is re-read).
const maxHints = 10_000;

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

/**
 * Merges charges of the same meter (their amounts add up) and sorts them by `meterKeyId`: every
 * statement locks meters in that one order, so two requests sharing meters never deadlock.
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

const movedValues = (error: unknown): Array<[string, string]> | null => {
  const e = error as { code?: string; message?: string; detail?: string };
  return e?.code === 'P0001' && e.message?.includes(METERS_MOVED) && e.detail ? (JSON.parse(e.detail) as Array<[string, string]>) : null;
};

/**
 * Spend meters and reservations (the policy evaluation's `MeterStore`), plus the pruning of meters
 * whose window has ended and of settled reservations. On every metered signature: one statement
 * decides nothing but checks and reserves (`policy_spend_reserve`), one settles.
 */
export function createPolicyMeterStore({ prisma, query }: Database): MeterStore & SpendMeterPruning {
  const hints = new Map<string, MeterValue>();
  const hint = (id: string, value: MeterValue) => {
    if (hints.size >= maxHints && !hints.has(id)) hints.clear();
    hints.set(id, value);
  };

  /** Current values in one statement; a missing meter is 0. */
  const readValues = async (keys: MeterKey[]) => {
    const rows = await query<{ i: number; spent: string | null; reserved: string | null }>(
      `SELECT k.i::int AS i, m.spent::text AS spent, m.reserved::text AS reserved
       FROM ROWS FROM (jsonb_to_recordset($1::jsonb) AS (
         "projectId" uuid, environment text, "apiKeyId" uuid, "walletId" uuid, network text, asset text,
         "windowMs" bigint, "windowStart" timestamptz)) WITH ORDINALITY AS k(
         "projectId", environment, "apiKeyId", "walletId", network, asset, "windowMs", "windowStart", i)
       LEFT JOIN policy_spend_meters m ON m.project_id = k."projectId" AND m.environment = k.environment
         AND m.api_key_id = k."apiKeyId" AND m.wallet_id = k."walletId" AND m.network = k.network AND m.asset = k.asset
         AND m.window_ms = k."windowMs" AND m.window_start = k."windowStart"`,
      [JSON.stringify(keys.map((k) => toStored(k, 0n)))],
    );
    const values = new Map<string, MeterValue>();
    for (const row of rows) {
      const key = keys[row.i - 1]!;
      const value = { spent: BigInt(row.spent ?? 0), reserved: BigInt(row.reserved ?? 0) };
      values.set(meterKeyId(key), value);
      hint(meterKeyId(key), value);
    }
    return values;
  };

  /** The hinted values of every key, or null when one is missing. */
  const hinted = (keys: MeterKey[]) => {
    const values = new Map<string, MeterValue>();
    for (const key of keys) {
      const id = meterKeyId(key);
      const value = hints.get(id);
      if (!value) return null;
      values.set(id, value);
    }
    return values;
  };

  /**
   * `reserved` -> `to`, only from `reserved`: a second commit, or a commit after a release, does
   * nothing. One statement (atomic on its own): the reservation's row lock orders a concurrent
   * commit and release, and its charges (stored in lock order) settle their meters.
   */
  const finish = async (id: string, to: 'spent' | 'released', charges: MeterCharge[]) => {
    const settled = await query<{ settled: boolean }>(`SELECT policy_spend_settle($1::uuid, $2) AS settled`, [id, to]);
    if (!settled[0]?.settled) return;
    for (const { key, amount } of charges) {
      const value = hints.get(meterKeyId(key));
      if (value) hint(meterKeyId(key), { spent: value.spent + (to === 'spent' ? amount : 0n), reserved: value.reserved - amount });
    }
  };

  const handle = (id: string, charges: MeterCharge[]): MeterReservationHandle => ({
    id,
    commit: () => finish(id, 'spent', charges),
    release: () => finish(id, 'released', charges),
  });

  return {
    async reserve(charges, decide) {
      const sorted = normalize(charges);
      if (sorted.length === 0) return { result: decide(new Map()).result, reservation: noReservation };
      const keys = sorted.map((c) => c.key);
      const ids = keys.map(meterKeyId);
      let values = hinted(keys);
      let fresh = false;
      if (!values) [values, fresh] = [await readValues(keys), true];
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        const verdict = decide(values);
        if (!verdict.reserve) {
          if (fresh) return { result: verdict.result, reservation: noReservation };
          [values, fresh] = [await readValues(keys), true];
          continue;
        }
        const charged = sorted.filter((c) => c.amount > 0n);
        const id = charged.length > 0 ? randomUUID() : null;
        const input: BoundedCharge[] = sorted.map((c, i) => {
          const bound = verdict.bounds.get(ids[i]!);
          return { ...toStored(c.key, c.amount), min: bound?.min?.toString() ?? null, max: bound?.max?.toString() ?? null };
        });
        let seen: Array<[string, string]>;
        try {
          const rows = await query<{ seen: Array<[string, string]> }>(`SELECT policy_spend_reserve($1::jsonb, $2::uuid) AS seen`, [JSON.stringify(input), id]);
          seen = rows[0]!.seen;
        } catch (error) {
          const current = movedValues(error);
          if (!current) throw error;
          values = new Map(current.map(([spent, reserved], i) => [ids[i]!, { spent: BigInt(spent), reserved: BigInt(reserved) }]));
          for (const [meterId, value] of values) hint(meterId, value);
          fresh = true;
          continue;
        }
        // The values the statement found (within the bounds), plus this request's charges.
        sorted.forEach((c, i) => hint(ids[i]!, { spent: BigInt(seen[i]![0]), reserved: BigInt(seen[i]![1]) + c.amount }));
        return { result: verdict.result, reservation: id ? handle(id, charged) : noReservation };
      }
      throw new Error(`policy spend meters kept moving: no stable decision after ${maxAttempts} attempts`);
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
