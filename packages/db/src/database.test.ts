import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, openDatabase, testDatabaseKinds } from './database.ts';
import { appliedMigrations, deploy } from './migrate/deploy.ts';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe.each(testDatabaseKinds)('createTestDatabase(%s)', (kind) => {
  it('is migrated, isolated and usable through Prisma', async () => {
    const [a, b] = await Promise.all([createTestDatabase(kind), createTestDatabase(kind)]);
    try {
      expect(a.kind).toBe(kind);
      await a.prisma.partner.create({ data: { id: crypto.randomUUID(), name: 'acme' } });
      expect(await a.prisma.partner.count()).toBe(1);
      expect(await b.prisma.partner.count()).toBe(0);
      expect((await deploy(a)).applied).toEqual([]);
      expect((await appliedMigrations(a)).length).toBeGreaterThan(0);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
    // close() is idempotent.
    await a.close();
  });
});

describe('openDatabase', () => {
  it('keeps a file-backed PGlite across reopen', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wallet-db-'));
    dirs.push(dir);
    const dataDir = path.join(dir, 'db');
    const id = crypto.randomUUID();
    const first = await openDatabase({ dataDir });
    expect(first.kind).toBe('pglite');
    await first.prisma.partner.create({ data: { id, name: 'persisted' } });
    await first.close();
    expect(existsSync(path.join(dataDir, 'PG_VERSION'))).toBe(true);

    const second = await openDatabase({ dataDir });
    try {
      expect(await second.prisma.partner.findUnique({ where: { id } })).toMatchObject({ name: 'persisted' });
      expect((await deploy(second)).applied).toEqual([]);
      // Sized for one service's data, not PostgreSQL's server defaults (128MB, 4MB, 8MB).
      const settings = await second.query<{ name: string; setting: string; unit: string }>(
        `SELECT name, setting, unit FROM pg_settings WHERE name IN ('shared_buffers', 'wal_buffers', 'temp_buffers') ORDER BY name`,
      );
      expect(settings.map((s) => `${s.name}=${Number(s.setting) * 8}kB`)).toEqual(['shared_buffers=16384kB', 'temp_buffers=1024kB', 'wal_buffers=1024kB']);
    } finally {
      await second.close();
    }
  });

  it('with migrate: false leaves an in-memory database empty', async () => {
    const db = await openDatabase({ migrate: false });
    try {
      expect(await appliedMigrations(db)).toEqual([]);
      expect((await deploy(db)).applied.length).toBeGreaterThan(0);
      expect(await db.prisma.wallet.count()).toBe(0);
    } finally {
      await db.close();
    }
  });

  it('rejects a deploy on a closed database', async () => {
    const db = await openDatabase({});
    await db.close();
    await expect(deploy(db)).rejects.toThrow(/closed/);
  });
});

describe('file-backed PGlite in a worker thread', () => {
  it('keeps concurrent transactions of different connections apart', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'wallet-worker-'));
    const db = await openDatabase({ dataDir: dir });
    try {
      const { randomUUID } = await import('node:crypto');
      // Transactions share PGlite's one session: a connection's open transaction holds it, and
      // other connections' statements (issued concurrently, never awaited inside a transaction)
      // wait their turn instead of landing inside it.
      const [results] = await Promise.all([
        Promise.allSettled(
          Array.from({ length: 24 }, (_, i) =>
            db.prisma.$transaction(async (tx) => {
              await tx.partner.create({ data: { id: randomUUID(), name: `p-${i}` } });
              await tx.partner.count();
              if (i % 3 === 0) throw new Error('roll back');
            }),
          ),
        ),
        Promise.all(Array.from({ length: 24 }, () => db.query('SELECT count(*) FROM partners'))),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(16);
      const names = (await db.query<{ name: string }>('SELECT name FROM partners ORDER BY name')).map((r) => r.name);
      expect(names).toHaveLength(16);
      expect(names.some((n) => Number(n.slice(2)) % 3 === 0)).toBe(false);
    } finally {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
