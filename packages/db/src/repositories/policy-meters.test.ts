import { randomUUID } from 'node:crypto';
import { meterKeyId, type MeterCharge, type MeterKey, type MeterStore, type MeterValue } from '@wallet/domain/policies/evaluation-types.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createScratchDatabase, createTestDatabase, openDatabase, testDatabaseKinds, type Database } from '../database.ts';
import { createPolicyMeterStore } from './policy-meters.ts';

const DAY = 86_400_000;
const windowStart = new Date(Math.floor(Date.UTC(2027, 2, 1, 15) / DAY) * DAY);

/** A fresh meter identity (new project, key and wallet), with overrides. */
const meter = (overrides: Partial<MeterKey> = {}): MeterKey => ({
  projectId: randomUUID(),
  environment: 'development',
  apiKeyId: randomUUID(),
  walletId: randomUUID(),
  network: '84532',
  asset: 'native',
  windowMs: DAY,
  windowStart,
  ...overrides,
});

const value = (spent: bigint, reserved: bigint): MeterValue => ({ spent, reserved });
const allow = { reserve: true, result: 'allow', bounds: new Map() } as const;

/**
 * Allows while the meter's spent + reserved + this charge stays within `cap`, with the bound that
 * keeps it so (what the evaluator does).
 */
const capped = (charge: MeterCharge, cap: bigint, decisions?: boolean[]) => (totals: Map<string, bigint>) => {
  const ok = totals.get(meterKeyId(charge.key))! + charge.amount <= cap;
  decisions?.push(ok);
  if (!ok) return { reserve: false as const, result: ok };
  return { reserve: true as const, result: ok, bounds: new Map([[meterKeyId(charge.key), { min: null, max: cap - charge.amount }]]) };
};

describe.each(testDatabaseKinds)('policy spend meters (%s)', (kind) => {
  let database: Database;
  let store: MeterStore;

  const reservationRow = async (id: string | null) => {
    const rows = await database.query<{ status: string; settled: boolean; charges: unknown; project_id: string; environment: string }>(
      'SELECT status, settled_at IS NOT NULL AS settled, charges, project_id, environment FROM policy_spend_reservations WHERE id = $1',
      [id],
    );
    return rows[0];
  };
  const meterRows = async (projectId: string) =>
    Number((await database.query<{ n: string }>('SELECT count(*)::text AS n FROM policy_spend_meters WHERE project_id = $1', [projectId]))[0]!.n);
  const readOne = async (key: MeterKey) => (await store.read([key])).get(meterKeyId(key));

  beforeAll(async () => {
    database = await createTestDatabase(kind);
    store = createPolicyMeterStore(database);
  });
  afterAll(async () => {
    await database?.close();
  });

  it('reserves on the decision, commits reserved into spent, releases it; both only once, and never one after the other', async () => {
    const a = meter();
    const b = meter({ projectId: a.projectId, apiKeyId: a.apiKeyId, walletId: a.walletId, asset: '0x036cbd53842c5426634e7929541ec2318f3dcf7e' });
    const seen: Map<string, bigint>[] = [];
    const first = await store.reserve(
      [
        { key: a, amount: 5n },
        { key: b, amount: 7n },
      ],
      (values) => {
        seen.push(values);
        return allow;
      },
    );
    expect(first.result).toBe('allow');
    expect(seen).toEqual([
      new Map([
        [meterKeyId(a), 0n],
        [meterKeyId(b), 0n],
      ]),
    ]);
    expect(first.reservation.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(await readOne(a)).toEqual(value(0n, 5n));
    expect(await readOne(b)).toEqual(value(0n, 7n));
    const stored = await reservationRow(first.reservation.id);
    expect(stored).toMatchObject({ status: 'reserved', settled: false, project_id: a.projectId, environment: 'development' });
    expect(stored!.charges).toEqual(
      expect.arrayContaining([
        { ...a, windowStart: windowStart.toISOString(), amount: '5' },
        { ...b, windowStart: windowStart.toISOString(), amount: '7' },
      ]),
    );

    await first.reservation.commit();
    expect(await readOne(a)).toEqual(value(5n, 0n));
    expect(await readOne(b)).toEqual(value(7n, 0n));
    expect(await reservationRow(first.reservation.id)).toMatchObject({ status: 'spent', settled: true });
    // A second commit, or a release after the commit, changes nothing.
    await first.reservation.commit();
    await first.reservation.release();
    expect(await readOne(a)).toEqual(value(5n, 0n));
    expect(await reservationRow(first.reservation.id)).toMatchObject({ status: 'spent' });

    // The next request sees the spend; its release gives back only what it reserved.
    const second = await store.reserve([{ key: a, amount: 3n }], (values) => {
      seen.push(values);
      return allow;
    });
    expect(seen[1]).toEqual(new Map([[meterKeyId(a), 5n]]));
    expect(await readOne(a)).toEqual(value(5n, 3n));
    await second.reservation.release();
    expect(await readOne(a)).toEqual(value(5n, 0n));
    expect(await reservationRow(second.reservation.id)).toMatchObject({ status: 'released', settled: true });
    await second.reservation.release();
    await second.reservation.commit();
    expect(await readOne(a)).toEqual(value(5n, 0n));
    expect(await reservationRow(second.reservation.id)).toMatchObject({ status: 'released' });
  });

  it('writes nothing when the decision does not reserve, not even the meters it created', async () => {
    const key = meter();
    const denied = await store.reserve([{ key, amount: 1n }], () => ({ reserve: false, result: { denied: 'cap' } }));
    expect(denied.result).toEqual({ denied: 'cap' });
    expect(denied.reservation.id).toBeNull();
    await denied.reservation.commit();
    expect(await meterRows(key.projectId)).toBe(0);
    expect(Number((await database.query<{ n: string }>('SELECT count(*)::text AS n FROM policy_spend_reservations WHERE project_id = $1', [key.projectId]))[0]!.n)).toBe(0);
    // A decision that throws rolls back too, and the error reaches the caller.
    await expect(store.reserve([{ key, amount: 1n }], () => { throw new Error('evaluator failed'); })).rejects.toThrow('evaluator failed');
    expect(await meterRows(key.projectId)).toBe(0);
  });

  it('without charges only decides (no transaction, nothing stored); zero charges are read but not reserved', async () => {
    let given: Map<string, bigint> | undefined;
    const none = await store.reserve([], (values) => {
      given = values;
      return { reserve: true, result: 42, bounds: new Map() };
    });
    expect(none.result).toBe(42);
    expect(given).toEqual(new Map());
    expect(none.reservation.id).toBeNull();
    await none.reservation.commit();
    await none.reservation.release();

    const read = meter();
    const spend = meter({ projectId: read.projectId, walletId: read.walletId, apiKeyId: read.apiKeyId, windowMs: 3_600_000, windowStart: new Date(windowStart.getTime() + 3_600_000) });
    await store.reserve([{ key: spend, amount: 4n }], () => allow).then((r) => r.reservation.commit());
    const mixed = await store.reserve(
      [
        { key: read, amount: 0n },
        { key: spend, amount: 0n },
      ],
      (values) => ({ reserve: true, result: values, bounds: new Map() }),
    );
    expect(mixed.result).toEqual(
      new Map([
        [meterKeyId(read), 0n],
        [meterKeyId(spend), 4n],
      ]),
    );
    // Nothing was charged, so nothing is held.
    expect(mixed.reservation.id).toBeNull();
    const partly = await store.reserve(
      [
        { key: read, amount: 0n },
        { key: spend, amount: 2n },
      ],
      () => allow,
    );
    expect(((await reservationRow(partly.reservation.id))!.charges as unknown[]).length).toBe(1);
    expect(await readOne(read)).toEqual(value(0n, 0n));
    expect(await readOne(spend)).toEqual(value(4n, 2n));
  });

  it('adds up charges of the same meter and refuses negative ones', async () => {
    const key = meter();
    const both = await store.reserve(
      [
        { key, amount: 2n },
        { key: { ...key, windowStart: new Date(windowStart.getTime()) }, amount: 3n },
      ],
      (values) => {
        expect([...values.keys()]).toEqual([meterKeyId(key)]);
        return allow;
      },
    );
    expect(await readOne(key)).toEqual(value(0n, 5n));
    await both.reservation.commit();
    expect(await readOne(key)).toEqual(value(5n, 0n));
    await expect(store.reserve([{ key, amount: -1n }], () => allow)).rejects.toThrow(/negative/);
    // The database refuses a negative meter whoever writes it.
    await expect(database.query('UPDATE policy_spend_meters SET used = -1 WHERE project_id = $1', [key.projectId])).rejects.toMatchObject({ code: '23514' });
  });

  it('keeps uint256 amounts exact (far above 2^64)', async () => {
    const key = meter({ asset: 'spl:mint' });
    const max = 2n ** 256n - 1n;
    const big = 2n ** 200n + 12_345n;
    await store.reserve([{ key, amount: big }], () => allow).then((r) => r.reservation.commit());
    const top = await store.reserve([{ key, amount: max - big }], () => allow);
    expect(await readOne(key)).toEqual(value(big, max - big));
    await top.reservation.commit();
    expect(await readOne(key)).toEqual(value(max, 0n));
    expect((await database.query<{ used: string }>('SELECT used::text AS used FROM policy_spend_meters WHERE project_id = $1', [key.projectId]))[0]!.used).toBe(max.toString());
  });

  it('reads missing meters as zero, without creating them', async () => {
    const key = meter();
    expect(await store.read([key])).toEqual(new Map([[meterKeyId(key), value(0n, 0n)]]));
    expect(await meterRows(key.projectId)).toBe(0);
  });

  it('serializes 50 concurrent 1-unit reservations on one meter under a cap of 10: exactly 10 pass', async () => {
    const key = meter();
    const charge = { key, amount: 1n };
    const results = await Promise.all(Array.from({ length: 50 }, () => store.reserve([charge], capped(charge, 10n))));
    const held = results.filter((r) => r.reservation.id !== null);
    expect(held).toHaveLength(10);
    expect(results.filter((r) => r.result === true)).toHaveLength(10);
    expect(await readOne(key)).toEqual(value(0n, 10n));
    await Promise.all(held.map((r) => r.reservation.commit()));
    expect(await readOne(key)).toEqual(value(10n, 0n));
    const statuses = await database.query<{ status: string; n: string }>(
      'SELECT status, count(*)::text AS n FROM policy_spend_reservations WHERE project_id = $1 GROUP BY status',
      [key.projectId],
    );
    expect(statuses).toEqual([{ status: 'spent', n: '10' }]);
  });

  it('decides again when the meter moved past its bound since this process last saw it, and re-reads before a denial', async () => {
    const key = meter();
    const charge = { key, amount: 4n };
    const here = store;
    const elsewhere = createPolicyMeterStore(database);
    // This store has seen the meter at 0 (it keeps that as a hint); the other one then fills it.
    await here.reserve([charge], capped(charge, 10n)).then((r) => r.reservation.release());
    await elsewhere.reserve([charge], capped(charge, 10n)).then((r) => r.reservation.commit());
    await elsewhere.reserve([charge], capped(charge, 10n)).then((r) => r.reservation.commit());
    // The hint (0) allows; the statement finds 8 outside the bound (<= 6), nothing is written, and
    // the decision on the current values denies.
    const decisions: boolean[] = [];
    const late = await here.reserve([charge], capped(charge, 10n, decisions));
    expect(decisions).toEqual([true, false]);
    expect(late.result).toBe(false);
    expect(await readOne(key)).toEqual(value(8n, 0n));
    // A denial on a stale hint is re-read: the other store's hint (8) denies, the meter says 0 again.
    await database.query('UPDATE policy_spend_meters SET used = 0 WHERE project_id = $1', [key.projectId]);
    const decided: boolean[] = [];
    const after = await elsewhere.reserve([charge], capped(charge, 10n, decided));
    expect(decided).toEqual([false, true]);
    expect(after.result).toBe(true);
    expect(await readOne(key)).toEqual(value(0n, 4n));
  });

  it('locks meters in one order: requests naming two meters in opposite orders do not deadlock', async () => {
    const a = meter();
    const b = meter({ projectId: a.projectId, apiKeyId: a.apiKeyId, walletId: a.walletId, asset: 'token' });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        store.reserve(
          i % 2 === 0
            ? [
                { key: a, amount: 1n },
                { key: b, amount: 1n },
              ]
            : [
                { key: b, amount: 1n },
                { key: a, amount: 1n },
              ],
          () => allow,
        ),
      ),
    );
    await Promise.all(results.map((r) => (results.indexOf(r) % 3 === 0 ? r.reservation.release() : r.reservation.commit())));
    expect(await readOne(a)).toEqual(value(20n, 0n));
    expect(await readOne(b)).toEqual(value(20n, 0n));
  });
});

// Registered only with PostgreSQL (never reported as skipped).
if (process.env.TEST_DATABASE_URL) describe('policy spend meters across two connection pools (postgres)', () => {
  let drop: () => Promise<void>;
  let first: Database;
  let second: Database;

  beforeAll(async () => {
    const scratch = await createScratchDatabase(process.env.TEST_DATABASE_URL!, 't');
    drop = scratch.drop;
    first = await openDatabase({ databaseUrl: scratch.url, poolSize: 5 });
    second = await openDatabase({ databaseUrl: scratch.url, poolSize: 5, migrate: false });
  });
  afterAll(async () => {
    await first?.close();
    await second?.close();
    await drop?.();
  });

  it('50 reservations split over two Prisma clients still stop at the cap of 10', async () => {
    const stores = [createPolicyMeterStore(first), createPolicyMeterStore(second)];
    const key = meter();
    const charge = { key, amount: 1n };
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => stores[i % 2]!.reserve([charge], capped(charge, 10n))));
    const held = results.filter((r) => r.reservation.id !== null);
    expect(held).toHaveLength(10);
    expect((await stores[1]!.read([key])).get(meterKeyId(key))).toEqual(value(0n, 10n));
    await Promise.all(held.map((r) => r.reservation.commit()));
    expect((await stores[0]!.read([key])).get(meterKeyId(key))).toEqual(value(10n, 0n));
  });
});
