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

/** Raised by `policy_spend_reserve` when a meter left its bounds; DETAIL holds the current totals. */
const METERS_MOVED = 'policy spend meters moved';
// Each retry follows a meter that crossed a limit the decision depends on; more than this means a bug.
const maxAttempts = 100;
// Meter totals last seen by this process: hints that save a read, never trusted for a decision
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
 * statement locks meters in that one order, so two requests sharing meters never deadlock. The
 * meters of one request share project, environment, API key, wallet and network.
 */
function normalize(charges: MeterCharge[]): MeterCharge[] {
  const byId = new Map<string, MeterCharge>();
  for (const charge of charges) {
    if (charge.amount < 0n) throw new RangeError(`meter charge ${meterKeyId(charge.key)} is negative`);
    if (!Number.isSafeInteger(charge.key.windowMs) || charge.key.windowMs <= 0) throw new RangeError(`meter window ${charge.key.windowMs} is not a positive integer`);
    const first = charges[0]!.key;
    const { key } = charge;
    if (key.projectId !== first.projectId || key.environment !== first.environment || key.apiKeyId !== first.apiKeyId || key.walletId !== first.walletId || key.network !== first.network) {
      throw new RangeError('the meters of one request must share project, environment, API key, wallet and network');
    }
    const id = meterKeyId(key);
    const seen = byId.get(id);
    byId.set(id, seen ? { key: seen.key, amount: seen.amount + charge.amount } : charge);
  }
  return [...byId.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, charge]) => charge);
}

const movedTotals = (error: unknown): bigint[] | null => {
  const e = error as { code?: string; message?: string; detail?: string };
  return e?.code === 'P0001' && e.message?.includes(METERS_MOVED) && e.detail ? e.detail.split(',').map((v) => BigInt(v)) : null;
};

/**
 * Spend meters and reservations (the policy evaluation's `MeterStore`), plus the pruning of meters
 * whose window has ended and of settled reservations. A meter keeps one total, `used` (spent +
 * held); what is held is the sum of its `reserved` reservations. On every metered signature: one
 * statement checks and reserves (`policy_spend_reserve`); the reservation becomes spent in the
 * signature's audit append (`policy_spend_settle`, which only marks it).
 */
export function createPolicyMeterStore({ query }: Database): MeterStore & SpendMeterPruning {
  const hints = new Map<string, bigint>();
  const hint = (id: string, total: bigint) => {
    if (hints.size >= maxHints && !hints.has(id)) hints.clear();
    hints.set(id, total);
  };

  /** Totals and held amounts, in one statement; a missing meter is 0. */
  const readMeters = async (keys: MeterKey[]) => {
    const rows = await query<{ i: number; used: string | null; held: string }>(
      `SELECT k.i::int AS i, m.used::text AS used,
         (SELECT coalesce(sum((c->>'amount')::numeric), 0) FROM policy_spend_reservations r, jsonb_array_elements(r.charges) c
          WHERE r.status = 'reserved' AND r.project_id = k."projectId" AND c->>'environment' = k.environment
            AND (c->>'apiKeyId')::uuid = k."apiKeyId" AND (c->>'walletId')::uuid = k."walletId" AND c->>'network' = k.network
            AND c->>'asset' = k.asset AND (c->>'windowMs')::bigint = k."windowMs" AND (c->>'windowStart')::timestamptz = k."windowStart")::text AS held
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
      const id = meterKeyId(keys[row.i - 1]!);
      const used = BigInt(row.used ?? 0);
      const held = BigInt(row.held);
      values.set(id, { spent: used - held, reserved: held });
      hint(id, used);
    }
    return values;
  };

  /** Current totals of the meters, one statement (the decision needs nothing else). */
  const readTotals = async (keys: MeterKey[]) => {
    const rows = await query<{ i: number; used: string | null }>(
      `SELECT k.i::int AS i, m.used::text AS used
       FROM unnest($1::text[], $2::bigint[], $3::timestamptz[]) WITH ORDINALITY AS k(asset, window_ms, window_start, i)
       LEFT JOIN policy_spend_meters m ON m.project_id = $4::uuid AND m.environment = $5 AND m.api_key_id = $6::uuid
         AND m.wallet_id = $7::uuid AND m.network = $8 AND m.asset = k.asset AND m.window_ms = k.window_ms AND m.window_start = k.window_start`,
      [keys.map((k) => k.asset), keys.map((k) => String(k.windowMs)), keys.map((k) => k.windowStart.toISOString()), ...scopeOf(keys[0]!)],
    );
    const totals = new Map<string, bigint>();
    for (const row of rows) {
      const id = meterKeyId(keys[row.i - 1]!);
      totals.set(id, BigInt(row.used ?? 0));
      hint(id, BigInt(row.used ?? 0));
    }
    return totals;
  };

  const scopeOf = (key: MeterKey) => [key.projectId, key.environment, key.apiKeyId, key.walletId, key.network];

  /** The hinted totals of every key, or null when one is missing. */
  const hinted = (keys: MeterKey[]) => {
    const totals = new Map<string, bigint>();
    for (const key of keys) {
      const id = meterKeyId(key);
      const total = hints.get(id);
      if (total === undefined) return null;
      totals.set(id, total);
    }
    return totals;
  };

  /** `reserved` -> `to`, only from `reserved` (see `policy_spend_settle`); a release takes the charges off the hints too. */
  const finish = async (id: string, to: 'spent' | 'released', charges: MeterCharge[]) => {
    const settled = await query<{ settled: boolean }>(`SELECT policy_spend_settle($1::uuid, $2) AS settled`, [id, to]);
    if (!settled[0]?.settled || to === 'spent') return;
    for (const { key, amount } of charges) {
      const total = hints.get(meterKeyId(key));
      if (total !== undefined) hint(meterKeyId(key), total - amount);
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
      let totals = hinted(keys);
      let fresh = false;
      if (!totals) [totals, fresh] = [await readTotals(keys), true];
      for (let attempt = 1; attempt <= maxAttempts; attempt++) {
        const verdict = decide(totals);
        if (!verdict.reserve) {
          if (fresh) return { result: verdict.result, reservation: noReservation };
          [totals, fresh] = [await readTotals(keys), true];
          continue;
        }
        const charged = sorted.filter((c) => c.amount > 0n);
        const id = charged.length > 0 ? randomUUID() : null;
        const bounds = ids.map((meterId) => verdict.bounds.get(meterId));
        let found: string[];
        try {
          const rows = await query<{ found: string[] }>(
            `SELECT policy_spend_reserve($1::uuid, $2, $3::uuid, $4::uuid, $5, $6::text[], $7::bigint[], $8::timestamptz[], $9::numeric[], $10::numeric[], $11::numeric[], $12::uuid, $13::jsonb)::text[] AS found`,
            [
              ...scopeOf(keys[0]!),
              keys.map((k) => k.asset),
              keys.map((k) => String(k.windowMs)),
              keys.map((k) => k.windowStart.toISOString()),
              sorted.map((c) => c.amount.toString()),
              bounds.map((b) => b?.min?.toString() ?? null),
              bounds.map((b) => b?.max?.toString() ?? null),
              id,
              id ? JSON.stringify(charged.map((c) => toStored(c.key, c.amount))) : null,
            ],
          );
          found = rows[0]!.found;
        } catch (error) {
          const current = movedTotals(error);
          if (!current) throw error;
          totals = new Map(current.map((total, i) => [ids[i]!, total]));
          for (const [meterId, total] of totals) hint(meterId, total);
          fresh = true;
          continue;
        }
        // The totals the statement found (within the bounds), plus this request's charges.
        sorted.forEach((c, i) => hint(ids[i]!, BigInt(found[i]!) + c.amount));
        return { result: verdict.result, reservation: id ? handle(id, charged) : noReservation };
      }
      throw new Error(`policy spend meters kept moving: no stable decision after ${maxAttempts} attempts`);
    },

    read(keys) {
      return keys.length === 0 ? Promise.resolve(new Map()) : readMeters(keys);
    },

    // The prunes run on the driver, like every statement the idle workers run: a Prisma query would
    // load Prisma's query compiler (WebAssembly, ~45 MB resident) into a process at rest.
    async pruneMeters(windowEndedBefore, limit) {
      // window_start < cutoff lets the window_start index narrow the scan; the window end decides.
      const rows = await query(
        `DELETE FROM policy_spend_meters WHERE ctid IN (
           SELECT ctid FROM policy_spend_meters
           WHERE window_start < $1::timestamptz
             AND window_start + window_ms * interval '1 millisecond' < $1::timestamptz
           LIMIT $2)
         RETURNING 1`,
        [windowEndedBefore, limit],
      );
      return rows.length;
    },

    async pruneReservations(settledBefore, limit) {
      const rows = await query(
        `DELETE FROM policy_spend_reservations WHERE id IN (
           SELECT id FROM policy_spend_reservations
           WHERE settled_at < $1::timestamptz AND status IN ('spent', 'released')
           LIMIT $2)
         RETURNING 1`,
        [settledBefore, limit],
      );
      return rows.length;
    },
  };
}
