import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { createTestDatabase, testDatabaseKinds, type DatabaseKind } from '../database.ts';
import { emptyMemoryPGlite } from '../pglite-template.ts';
import { appliedMigrations, deploy, pgConfigFromUrl, type MigrationTarget } from './deploy.ts';
import { check, create, diff } from './diff.ts';
import { checksum, defaultMigrationsDir, defaultSchemaPath, readMigrations, repoRoot } from './files.ts';

const tempDirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'wallet-db-'));
  tempDirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const d of tempDirs) rmSync(d, { recursive: true, force: true });
});

/** A copy of the repository's migrations folder, to add or edit migrations in. */
function copyMigrations(): string {
  const dir = path.join(tempDir(), 'migrations');
  cpSync(defaultMigrationsDir, dir, { recursive: true });
  return dir;
}

interface Blank {
  target: MigrationTarget;
  query<R>(sql: string): Promise<R[]>;
  close(): Promise<void>;
}

/** An empty database, without any migration applied. */
async function blankDatabase(kind: DatabaseKind): Promise<Blank> {
  if (kind === 'pglite') {
    const db = await emptyMemoryPGlite();
    return { target: db, query: async (sql) => (await db.query<never>(sql)).rows, close: () => db.close() };
  }
  const base = process.env.TEST_DATABASE_URL!;
  const name = `t_${Math.random().toString(36).slice(2, 12)}`;
  const admin = new pg.Client(pgConfigFromUrl(base));
  await admin.connect();
  await admin.query(`CREATE DATABASE "${name}"`);
  const url = new URL(base);
  url.pathname = `/${name}`;
  const client = new pg.Client(pgConfigFromUrl(url.toString()));
  await client.connect();
  return {
    target: { databaseUrl: url.toString() },
    query: async (sql) => (await client.query(sql)).rows,
    close: async () => {
      await client.end();
      await admin.query(`DROP DATABASE "${name}" WITH (FORCE)`);
      await admin.end();
    },
  };
}

async function tables(db: Blank): Promise<string[]> {
  const rows = await db.query<{ t: string }>(
    `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1`,
  );
  return rows.map((r) => r.t);
}

describe.each(testDatabaseKinds)('deploy on %s', (kind) => {
  it('creates the tables and records the migration; a second deploy is a no-op', async () => {
    const db = await blankDatabase(kind);
    try {
      const files = await readMigrations();
      const first = await deploy(db.target);
      expect(first.applied).toEqual(files.map((f) => f.name));
      expect(await tables(db)).toEqual(
        expect.arrayContaining(['_prisma_migrations', 'partners', 'projects', 'api_keys', 'wallets', 'key_shares', 'audit_log']),
      );
      const rows = await appliedMigrations(db.target);
      expect(rows.map((r) => r.migrationName)).toEqual(files.map((f) => f.name));
      for (const [i, row] of rows.entries()) {
        expect(row.checksum).toBe(checksum(readFileSync(path.join(defaultMigrationsDir, row.migrationName, 'migration.sql'), 'utf8')));
        expect(row.checksum).toBe(files[i]!.checksum);
        expect(row.finishedAt).toBeInstanceOf(Date);
        expect(row.rolledBackAt).toBeNull();
        expect(row.appliedStepsCount).toBe(1);
        expect(row.id).toMatch(/^[0-9a-f-]{36}$/);
      }

      const second = await deploy(db.target);
      expect(second.applied).toEqual([]);
      expect(await appliedMigrations(db.target)).toEqual(rows);
    } finally {
      await db.close();
    }
  });

  it('does not record a failing migration, reports the database error, and applies it once fixed', async () => {
    const dir = copyMigrations();
    const broken = path.join(dir, '29990101000000_broken');
    cpSync(path.join(dir, readdirSync(dir).find((n) => n.endsWith('_init'))!), broken, { recursive: true });
    writeFileSync(
      path.join(broken, 'migration.sql'),
      'CREATE TABLE "half_done" ("id" INTEGER);\nSELECT * FROM "no_such_table";\n',
    );
    const db = await blankDatabase(kind);
    try {
      await expect(deploy(db.target, { migrationsDir: dir })).rejects.toThrow(
        /29990101000000_broken failed: relation "no_such_table" does not exist/,
      );
      const rows = await appliedMigrations(db.target);
      expect(rows.map((r) => r.migrationName)).not.toContain('29990101000000_broken');
      expect(rows.every((r) => r.finishedAt)).toBe(true);
      expect(await tables(db)).not.toContain('half_done');

      writeFileSync(path.join(broken, 'migration.sql'), 'CREATE TABLE "half_done" ("id" INTEGER);\n');
      expect((await deploy(db.target, { migrationsDir: dir })).applied).toEqual(['29990101000000_broken']);
      expect(await tables(db)).toContain('half_done');
    } finally {
      await db.close();
    }
  });

  it('refuses to deploy when an applied migration was edited', async () => {
    const dir = copyMigrations();
    const db = await blankDatabase(kind);
    try {
      await deploy(db.target, { migrationsDir: dir });
      const init = readdirSync(dir).find((n) => n.endsWith('_init'))!;
      const file = path.join(dir, init, 'migration.sql');
      writeFileSync(file, readFileSync(file, 'utf8') + '\n-- edited\n');
      await expect(deploy(db.target, { migrationsDir: dir })).rejects.toThrow(/was modified after it was applied/);
    } finally {
      await db.close();
    }
  });

  it('makes audit_log append-only', async () => {
    const db = await createTestDatabase(kind);
    try {
      const row = await db.prisma.auditLog.create({ data: { action: 'wallet.created', details: { a: 1 } } });
      await expect(db.prisma.auditLog.update({ where: { id: row.id }, data: { action: 'x' } })).rejects.toThrow(
        /audit_log is append-only/,
      );
      await expect(db.prisma.auditLog.delete({ where: { id: row.id } })).rejects.toThrow(/audit_log is append-only/);
      await expect(db.prisma.auditLog.deleteMany({})).rejects.toThrow(/audit_log is append-only/);
      await expect(db.prisma.$executeRawUnsafe('UPDATE audit_log SET action = $1', 'y')).rejects.toThrow(
        /append-only/,
      );
      expect(await db.prisma.auditLog.findMany()).toMatchObject([{ id: row.id, action: 'wallet.created' }]);
    } finally {
      await db.close();
    }
  });

  it('keeps the enclave keys that concurrent first requests wrote before the constraint, the oldest as the current one', async () => {
    const dir = copyMigrations();
    const singleton = readdirSync(dir).find((n) => n.endsWith('_enclave_key_singleton'))!;
    const later = path.join(tempDir(), singleton);
    cpSync(path.join(dir, singleton), later, { recursive: true });
    rmSync(path.join(dir, singleton), { recursive: true });
    const db = await blankDatabase(kind);
    try {
      await deploy(db.target, { migrationsDir: dir });
      await db.query(`INSERT INTO enclave_keys (id, public_key_pem, kek_id, iv, encrypted_private_key, created_at) VALUES
        ('b', 'pem', 'k', '\\x00', '\\x00', '2026-01-01T00:00:00.002Z'), ('a', 'pem', 'k', '\\x00', '\\x00', '2026-01-01T00:00:00.001Z'),
        ('c', 'pem', 'k', '\\x00', '\\x00', '2026-01-01T00:00:00.003Z')`);
      cpSync(later, path.join(dir, singleton), { recursive: true });
      expect((await deploy(db.target, { migrationsDir: dir })).applied).toEqual([singleton]);
      expect(await db.query('SELECT id, is_current FROM enclave_keys ORDER BY id')).toEqual([
        { id: 'a', is_current: true },
        { id: 'b', is_current: null },
        { id: 'c', is_current: null },
      ]);
      await db.query(`INSERT INTO enclave_keys (id, public_key_pem, kek_id, iv, encrypted_private_key) VALUES ('d', 'pem', 'k', '\\x00', '\\x00') ON CONFLICT DO NOTHING`);
      expect(await db.query('SELECT count(*)::int AS n FROM enclave_keys')).toEqual([{ n: 3 }]);
    } finally {
      await db.close();
    }
  });
});

// Registered only with PostgreSQL (never reported as skipped).
if (process.env.TEST_DATABASE_URL) describe('deploy on postgres, concurrently', () => {
  it('applies each migration once when several processes deploy at the same time', async () => {
    const db = await blankDatabase('postgres');
    try {
      const results = await Promise.all(Array.from({ length: 6 }, () => deploy(db.target)));
      const files = await readMigrations();
      expect(results.flatMap((r) => r.applied).sort()).toEqual(files.map((f) => f.name).sort());
      expect((await appliedMigrations(db.target)).length).toBe(files.length);
    } finally {
      await db.close();
    }
  });

  it('createTestDatabase makes a fresh database and close() drops it', async () => {
    const db = await createTestDatabase('postgres');
    const [{ name }] = await db.prisma.$queryRaw<[{ name: string }]>`SELECT current_database() AS name`;
    expect(name).toMatch(/^t_/);
    await db.close();
    const admin = new pg.Client(pgConfigFromUrl(process.env.TEST_DATABASE_URL!));
    await admin.connect();
    try {
      const { rows } = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
      expect(rows).toEqual([]);
    } finally {
      await admin.end();
    }
  });
});

describe('schema and migrations', () => {
  it('the repository migrations are in sync with schema.prisma', async () => {
    expect(await check()).toEqual({ inSync: true, missingSql: '' });
  });

  it('detects a model that no migration creates, and create() writes its migration', async () => {
    const dir = tempDir();
    const migrationsDir = path.join(dir, 'migrations');
    cpSync(defaultMigrationsDir, migrationsDir, { recursive: true });
    rmSync(path.join(migrationsDir, 'migration_lock.toml'));
    const schemaPath = path.join(dir, 'schema.prisma');
    writeFileSync(
      schemaPath,
      readFileSync(defaultSchemaPath, 'utf8') +
        '\nmodel ExtraThing {\n  id   Int    @id @default(autoincrement())\n  name String\n\n  @@map("extra_things")\n}\n',
    );
    const paths = { schemaPath, migrationsDir };

    const result = await check(paths);
    expect(result.inSync).toBe(false);
    expect(result.missingSql).toContain('CREATE TABLE "extra_things"');

    const created = await create('add extra things', paths);
    expect(created.name).toMatch(/^\d{14}_add_extra_things$/);
    expect(readFileSync(created.file, 'utf8')).toContain('CREATE TABLE "extra_things"');
    expect(readFileSync(path.join(migrationsDir, 'migration_lock.toml'), 'utf8')).toContain('provider = "postgresql"');

    expect(await diff(paths)).toBe('');
    await expect(create('again', paths)).rejects.toThrow(/no schema change/);

    // The new folder deploys on top of the existing history.
    const db = await emptyMemoryPGlite();
    try {
      expect((await deploy(db, { migrationsDir })).applied).toContain(created.name);
      expect((await db.query(`SELECT count(*)::int AS n FROM extra_things`)).rows).toEqual([{ n: 0 }]);
    } finally {
      await db.close();
    }
  });

  it('reports the database error when a migration of the folder does not apply', async () => {
    const migrationsDir = copyMigrations();
    const bad = path.join(migrationsDir, '29990101000000_bad');
    cpSync(path.join(migrationsDir, readdirSync(migrationsDir).find((n) => n.endsWith('_init'))!), bad, { recursive: true });
    writeFileSync(path.join(bad, 'migration.sql'), 'SELECT * FROM "nope_table";\n');
    await expect(check({ migrationsDir })).rejects.toThrow(/29990101000000_bad[\s\S]*nope_table/);
  });
});

describe('cli', () => {
  const run = promisify(execFile);
  it('deploy applies to a PGlite in DATA_DIR, then is up to date', async () => {
    const dataDir = tempDir();
    const env = { ...process.env, DATA_DIR: dataDir, DATABASE_URL: '' };
    const cli = [
      '--import',
      'tsx',
      path.join(repoRoot, 'packages/db/src/cli/migrate.ts'),
      'deploy',
    ];
    const names = (await readMigrations()).map((m) => m.name);
    const first = await run(process.execPath, cli, { cwd: repoRoot, env });
    expect(first.stdout).toContain(`applied ${names.length}: ${names.join(', ')}`);
    expect(existsSync(path.join(dataDir, 'db', 'PG_VERSION'))).toBe(true);
    const second = await run(process.execPath, cli, { cwd: repoRoot, env });
    expect(second.stdout).toMatch(/up to date/);
    const db = new PGlite(path.join(dataDir, 'db'));
    try {
      const rows = await db.query<{ migration_name: string }>('SELECT migration_name FROM _prisma_migrations ORDER BY migration_name');
      expect(rows.rows.map((r) => r.migration_name)).toEqual(names);
    } finally {
      await db.close();
    }
  });

  it('exits 1 with a usage line on a bad command', async () => {
    await expect(
      run(process.execPath, ['--import', 'tsx', path.join(repoRoot, 'packages/db/src/cli/migrate.ts'), 'nope'], {
        cwd: repoRoot,
      }),
    ).rejects.toMatchObject({ code: 1, stderr: expect.stringContaining('usage:') });
  });
});
