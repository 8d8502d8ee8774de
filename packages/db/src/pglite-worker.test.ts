import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from './database.ts';
import { driverHandles } from './migrate/handles.ts';

// Database.query of a file-backed PGlite goes over the worker's query port (prepared statements,
// rows decoded in the worker); these tests hold it to what pg.Pool returns over the wire protocol
// from the same worker, which is what it replaced.
describe('file-backed PGlite: the query port', () => {
  let dir: string;
  let db: Database;
  let pool: pg.Pool;

  beforeAll(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'wallet-port-'));
    db = await openDatabase({ dataDir: dir });
    pool = driverHandles.get(db) as pg.Pool;
    await db.prisma.$executeRawUnsafe(`CREATE TABLE port_types (
      id int4 PRIMARY KEY, big int8, num numeric, txt text, ts timestamptz, day date, bin bytea, bins bytea[],
      tags text[], nums int4[], doc jsonb, flag bool, uid uuid, nothing text, stamps timestamptz[])`);
  });
  afterAll(async () => {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('binds parameters and returns rows exactly as pg does', async () => {
    const values = [
      1, 9007199254740993n.toString(), '12.50', 'héllo ✓', new Date('2026-01-02T03:04:05.678Z'), '2026-01-02',
      Buffer.from([0, 1, 2, 254, 255]), [Buffer.from('ab'), Buffer.from('c')], ['a', 'b,c', 'd"e', null], [1, 2, 3],
      { nested: { list: [1, 'two'] } }, true, '4f1c2a53-5d0b-4b0e-9a64-1b2c3d4e5f60', null,
      [new Date('2026-05-06T07:08:09.010Z')],
    ];
    const insert = `INSERT INTO port_types VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15) RETURNING id`;
    expect(await db.query(insert, values)).toEqual([{ id: 1 }]);
    await pool.query(insert, [2, ...values.slice(1)]);
    await db.query(`INSERT INTO port_types (id, bin, doc) VALUES ($1, $2, $3)`, [3, new Uint8Array([7, 8]), JSON.stringify([1, 2])]);

    const select = 'SELECT * FROM port_types ORDER BY id';
    for (let round = 0; round < 3; round++) {
      // Repeated: the first run prepares the statement, later ones only bind and execute it.
      const viaPort = await db.query<Record<string, unknown>>(select);
      const viaPool = (await pool.query(select)).rows;
      expect(viaPort).toEqual(viaPool);
      expect(viaPort).toHaveLength(3);
      expect(Buffer.isBuffer(viaPort[0]!.bin)).toBe(true);
      expect(Buffer.isBuffer((viaPort[0]!.bins as unknown[])[0])).toBe(true);
      expect(viaPort[0]!.ts).toBeInstanceOf(Date);
      expect(viaPort[2]!.bin).toEqual(Buffer.from([7, 8]));
    }
    expect((await db.query<{ big: string }>('SELECT big FROM port_types WHERE id = $1', [1]))[0]!.big).toBe('9007199254740993');
    expect(await db.query('SELECT 1 AS a, 2 AS a')).toEqual((await pool.query('SELECT 1 AS a, 2 AS a')).rows);
    expect(await db.query('UPDATE port_types SET txt = $1 WHERE id = 0', ['x'])).toEqual([]);
  });

  it('raises pg.DatabaseError with the server fields', async () => {
    const insert = 'INSERT INTO port_types (id) VALUES ($1)';
    await db.query(insert, [10]);
    const fromPort = await db.query(insert, [10]).catch((e: unknown) => e);
    const fromPool = await pool.query(insert, [10]).catch((e: unknown) => e);
    expect(fromPort).toBeInstanceOf(pg.DatabaseError);
    const fields = (e: unknown) => {
      const { code, constraint, detail, table, schema, severity, message } = e as pg.DatabaseError;
      return { code, constraint, detail, table, schema, severity, message };
    };
    expect(fields(fromPort)).toEqual(fields(fromPool));
    expect(fields(fromPort)).toMatchObject({ code: '23505', constraint: 'port_types_pkey', table: 'port_types' });
    await expect(db.query('SELEC 1')).rejects.toMatchObject({ code: '42601' });
    await expect(db.query('SELECT $1::int', ['nope'])).rejects.toMatchObject({ code: '22P02' });
    // The session is usable afterwards.
    expect(await db.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
  });

  it('re-prepares after DEALLOCATE ALL or a change of the result type', async () => {
    const select = 'SELECT * FROM port_types WHERE id = $1';
    const before = await db.query<Record<string, unknown>>(select, [1]);
    await pool.query('DEALLOCATE ALL');
    expect(await db.query(select, [1])).toEqual(before);
    await db.prisma.$executeRawUnsafe('ALTER TABLE port_types ADD COLUMN extra int4 DEFAULT 7');
    expect(await db.query(select, [1])).toEqual([{ ...before[0], extra: 7 }]);
  });

  it('refuses to leave the shared session inside a transaction', async () => {
    await expect(db.query('BEGIN')).rejects.toMatchObject({ code: '25000' });
    // Not in a transaction: a Prisma transaction and later statements run normally.
    await db.prisma.$transaction(async (tx) => tx.$executeRawUnsafe('INSERT INTO port_types (id) VALUES (20)'));
    expect(await db.query('SELECT id FROM port_types WHERE id = 20')).toEqual([{ id: 20 }]);
  });

  it('answers every statement issued before close and refuses later ones', async () => {
    const other = mkdtempSync(path.join(os.tmpdir(), 'wallet-port-close-'));
    const closing = await openDatabase({ dataDir: other });
    try {
      const pending = Array.from({ length: 50 }, (_, i) => closing.query<{ n: number }>('SELECT $1::int AS n', [i]));
      const closed = closing.close();
      const settled = await Promise.allSettled(pending);
      await closed;
      expect(settled.map((result) => (result.status === 'fulfilled' ? result.value : result.reason))).toEqual(
        Array.from({ length: 50 }, (_, i) => [{ n: i }]),
      );
      await expect(closing.query('SELECT 1')).rejects.toThrow(/closed/);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
