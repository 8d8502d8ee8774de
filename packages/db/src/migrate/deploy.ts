// Applies prisma/migrations to a database and records them in `_prisma_migrations` the way
// Prisma does, without the schema engine: plain SQL through PGlite or a pg client.
import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { defaultMigrationsDir, readMigrations, type MigrationFile } from './files.ts';
import { driverHandles } from './handles.ts';

/** Same key as Prisma's schema engine, so our runner and the Prisma CLI exclude each other. */
const ADVISORY_LOCK_KEY = 72707369;

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

/**
 * Where to apply migrations: a Database from openDatabase, a PGlite instance, a pg pool or
 * client, or a PostgreSQL URL.
 */
export type MigrationTarget = { prisma: unknown } | PGlite | pg.Pool | pg.ClientBase | { databaseUrl: string };

export interface DeployOptions {
  migrationsDir?: string;
}

export interface DeployResult {
  /** Names of the migrations applied by this call, in order (empty when up to date). */
  applied: string[];
  /** Migrations recorded in the database that the migrations folder does not have. */
  unknownApplied: string[];
}

export interface AppliedMigration {
  id: string;
  checksum: string;
  migrationName: string;
  startedAt: Date;
  finishedAt: Date | null;
  rolledBackAt: Date | null;
  appliedStepsCount: number;
  logs: string | null;
}

/** The minimal connection the runner needs; one session (matters for the advisory lock). */
interface Session {
  query<R>(sql: string, params?: unknown[]): Promise<R[]>;
  /** Run a multi-statement script and a bookkeeping statement atomically. */
  transaction(fn: (tx: Omit<Session, 'transaction'> & { exec(sql: string): Promise<void> }) => Promise<void>): Promise<void>;
  lock(): Promise<void>;
  unlock(): Promise<void>;
}

function pgliteSession(db: PGlite): Session {
  return {
    async query<R>(sql: string, params?: unknown[]) {
      return (await db.query<R>(sql, params)).rows;
    },
    async transaction(fn) {
      await db.transaction(async (tx) => {
        await fn({
          query: async <R>(sql: string, params?: unknown[]) => (await tx.query<R>(sql, params)).rows,
          exec: async (sql) => {
            await tx.exec(sql);
          },
          lock: async () => {},
          unlock: async () => {},
        });
      });
    },
    // PGlite is single-connection and in-process: nothing to exclude.
    async lock() {},
    async unlock() {},
  };
}

function pgSession(client: pg.ClientBase): Session {
  const query = async <R>(sql: string, params?: unknown[]): Promise<R[]> =>
    (await client.query(sql, params)).rows as R[];
  return {
    query,
    async transaction(fn) {
      await client.query('BEGIN');
      try {
        await fn({
          query,
          exec: async (sql) => {
            // No parameters: simple query protocol, so multi-statement scripts work.
            await client.query(sql);
          },
          lock: async () => {},
          unlock: async () => {},
        });
        await client.query('COMMIT');
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      }
    },
    async lock() {
      await client.query('SELECT pg_advisory_lock($1)', [ADVISORY_LOCK_KEY]);
    },
    async unlock() {
      await client.query('SELECT pg_advisory_unlock($1)', [ADVISORY_LOCK_KEY]);
    },
  };
}

async function withSession<T>(target: MigrationTarget, fn: (s: Session) => Promise<T>): Promise<T> {
  if ('prisma' in target) {
    const handle = driverHandles.get(target);
    if (!handle) throw new Error('deploy: this Database is closed or was not opened by openDatabase');
    return withSession(handle, fn);
  }
  if (target instanceof PGlite) return fn(pgliteSession(target));
  if (target instanceof pg.Pool) {
    const client = await target.connect();
    try {
      return await fn(pgSession(client));
    } finally {
      client.release();
    }
  }
  if ('databaseUrl' in target) {
    const client = new pg.Client(pgConfigFromUrl(target.databaseUrl));
    await client.connect();
    try {
      return await fn(pgSession(client));
    } finally {
      await client.end();
    }
  }
  return fn(pgSession(target));
}

/**
 * node-postgres options from a PostgreSQL URL, with host/port/user/password/database given
 * separately (adapter-pg derives its shadow database by overriding `database`, which a
 * `connectionString` would silently win over). Understands `sslmode`, `schema` and `host`
 * (unix socket directory) query parameters.
 */
export function pgConfigFromUrl(databaseUrl: string): pg.PoolConfig & { schema?: string } {
  const url = new URL(databaseUrl);
  if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') {
    throw new Error(`not a PostgreSQL URL: ${url.protocol}//...`);
  }
  const params = url.searchParams;
  const config: pg.PoolConfig & { schema?: string } = {
    host: params.get('host') ?? (url.hostname ? decodeURIComponent(url.hostname).replace(/^\[|\]$/g, '') : 'localhost'),
    port: url.port ? Number(url.port) : 5432,
    user: url.username ? decodeURIComponent(url.username) : undefined,
    password: url.password ? decodeURIComponent(url.password) : undefined,
    database: url.pathname.length > 1 ? decodeURIComponent(url.pathname.slice(1)) : undefined,
  };
  const sslmode = params.get('sslmode');
  if (sslmode === 'require' || sslmode === 'prefer' || sslmode === 'no-verify') config.ssl = { rejectUnauthorized: false };
  else if (sslmode === 'verify-ca' || sslmode === 'verify-full') config.ssl = true;
  const schema = params.get('schema');
  if (schema) {
    config.schema = schema;
    config.options = `-c search_path="${schema.replace(/"/g, '""')}"`;
  }
  const appName = params.get('application_name');
  if (appName) config.application_name = appName;
  return config;
}

interface Row {
  id: string;
  checksum: string;
  migration_name: string;
  started_at: Date | string;
  finished_at: Date | string | null;
  rolled_back_at: Date | string | null;
  applied_steps_count: number;
  logs: string | null;
}

const toDate = (v: Date | string | null): Date | null => (v === null ? null : v instanceof Date ? v : new Date(v));

async function readApplied(s: Pick<Session, 'query'>): Promise<AppliedMigration[]> {
  const rows = await s.query<Row>(
    `SELECT id, checksum, migration_name, started_at, finished_at, rolled_back_at, applied_steps_count, logs
       FROM "_prisma_migrations" ORDER BY started_at, migration_name`,
  );
  return rows.map((r) => ({
    id: r.id,
    checksum: r.checksum,
    migrationName: r.migration_name,
    startedAt: toDate(r.started_at)!,
    finishedAt: toDate(r.finished_at),
    rolledBackAt: toDate(r.rolled_back_at),
    appliedStepsCount: Number(r.applied_steps_count),
    logs: r.logs,
  }));
}

async function hasMigrationsTable(s: Pick<Session, 'query'>): Promise<boolean> {
  const rows = await s.query<{ t: string | null }>(`SELECT to_regclass('"_prisma_migrations"')::text AS t`);
  return rows[0]?.t != null;
}

/** The rows of `_prisma_migrations` (empty when the table does not exist yet). */
export async function appliedMigrations(target: MigrationTarget): Promise<AppliedMigration[]> {
  return withSession(target, async (s) => ((await hasMigrationsTable(s)) ? readApplied(s) : []));
}

function describeDbError(e: unknown): string {
  if (!(e instanceof Error)) return String(e);
  const x = e as Error & { code?: string; detail?: string; hint?: string; position?: string; where?: string };
  let text = x.message;
  if (x.code) text += ` (SQLSTATE ${x.code})`;
  if (x.detail) text += `\nDETAIL: ${x.detail}`;
  if (x.hint) text += `\nHINT: ${x.hint}`;
  if (x.position) text += `\nPOSITION: ${x.position}`;
  if (x.where) text += `\nWHERE: ${x.where}`;
  return text;
}

export class MigrationError extends Error {
  constructor(
    message: string,
    readonly migrationName?: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'MigrationError';
  }
}

function verifyHistory(applied: AppliedMigration[], files: MigrationFile[]): string[] {
  const byName = new Map(files.map((f) => [f.name, f]));
  const unknown: string[] = [];
  for (const row of applied) {
    if (row.rolledBackAt) continue;
    if (!row.finishedAt) {
      throw new MigrationError(
        `migration ${row.migrationName} is recorded as failed (started ${row.startedAt.toISOString()}, not finished); ` +
          `resolve it by hand before deploying${row.logs ? `:\n${row.logs}` : ''}`,
        row.migrationName,
      );
    }
    const file = byName.get(row.migrationName);
    if (!file) {
      unknown.push(row.migrationName);
      continue;
    }
    if (file.checksum !== row.checksum) {
      throw new MigrationError(
        `migration ${row.migrationName} was modified after it was applied (checksum ${row.checksum} in the database, ${file.checksum} on disk)`,
        row.migrationName,
      );
    }
  }
  return unknown;
}

/**
 * Apply, in name order, every migration of the folder that the database has not recorded.
 * Each migration runs in one transaction together with its `_prisma_migrations` row, so a
 * failing migration leaves neither changes nor a record. On PostgreSQL an advisory lock makes
 * concurrent deploys apply each migration once.
 */
export async function deploy(target: MigrationTarget, opts: DeployOptions = {}): Promise<DeployResult> {
  const files = await readMigrations(opts.migrationsDir ?? defaultMigrationsDir);
  return withSession(target, async (s) => {
    await s.lock();
    try {
      await s.query(CREATE_MIGRATIONS_TABLE);
      const applied = await readApplied(s);
      const unknownApplied = verifyHistory(applied, files);
      const done = new Set(applied.filter((r) => r.finishedAt && !r.rolledBackAt).map((r) => r.migrationName));
      const result: DeployResult = { applied: [], unknownApplied };
      for (const file of files) {
        if (done.has(file.name)) continue;
        try {
          await s.transaction(async (tx) => {
            const started = await tx.query<{ now: Date }>('SELECT clock_timestamp() AS now');
            await tx.exec(file.sql);
            await tx.query(
              `INSERT INTO "_prisma_migrations"
                 (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
               VALUES ($1, $2, clock_timestamp(), $3, NULL, NULL, $4, 1)`,
              [randomUUID(), file.checksum, file.name, started[0]!.now],
            );
          });
        } catch (e) {
          throw new MigrationError(`migration ${file.name} failed: ${describeDbError(e)}`, file.name, { cause: e });
        }
        result.applied.push(file.name);
      }
      return result;
    } finally {
      await s.unlock().catch(() => {});
    }
  });
}
