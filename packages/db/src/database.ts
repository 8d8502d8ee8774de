import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, renameSync, rmdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_OPTIONS } from './pglite-settings.ts';
import { PrismaPg } from '@prisma/adapter-pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.ts';
import { deploy, pgConfigFromUrl } from './migrate/deploy.ts';
import { readMigrations } from './migrate/files.ts';
import { driverHandles } from './migrate/handles.ts';
import { startPGliteServer } from './pglite-server.ts';
import { emptyMemoryPGlite, memoryPGliteFrom, pgliteSnapshot, restorePGliteSnapshot } from './pglite-template.ts';

export type DatabaseKind = 'pglite' | 'postgres';

export interface Database {
  prisma: PrismaClient;
  kind: DatabaseKind;
  /**
   * Runs one parameterized statement on the driver directly. Only for the few statements on every
   * request's path (API key and wallet lookups, wallet insert), where Prisma's per-query runtime
   * costs more than the database itself; everything else goes through `prisma`.
   */
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** PostgreSQL URL; when set, PostgreSQL through @prisma/adapter-pg. */
  databaseUrl?: string;
  /** PGlite data directory (file-backed); when neither is set: in-memory PGlite. */
  dataDir?: string;
  /** Default true: apply pending migrations before returning. */
  migrate?: boolean;
  /** PostgreSQL pool size (default 10). */
  poolSize?: number;
  /**
   * With `dataDir` (default true): run PGlite in a worker thread behind the PostgreSQL wire
   * protocol and use the PostgreSQL driver path (a small pool) from this thread, so
   * query execution does not compete with request handling. false: PGlite in this thread.
   */
  worker?: boolean;
}

/**
 * Open the database: PostgreSQL when `databaseUrl` is set, else PGlite (file-backed in
 * `dataDir`, or in memory). Applies pending migrations unless `migrate: false`.
 * Always `close()` it: a file-backed PGlite or a pg pool keeps the process alive.
 */
export async function openDatabase(opts: OpenDatabaseOptions = {}): Promise<Database> {
  const migrate = opts.migrate ?? true;
  if (opts.databaseUrl) {
    const { schema, ...config } = pgConfigFromUrl(opts.databaseUrl);
    const pool = new pg.Pool({ ...config, max: opts.poolSize ?? 10 });
    pool.on('error', (err) => {
      // An idle client lost its connection; the pool replaces it. Without a listener the
      // process would crash.
      console.error(`[db] idle PostgreSQL client error: ${err.message}`);
    });
    try {
      if (migrate) await deploy(pool);
    } catch (e) {
      await pool.end();
      throw e;
    }
    const prisma = new PrismaClient({ adapter: new PrismaPg(pool, schema ? { schema } : undefined) });
    const query = async <T,>(text: string, values: unknown[] = []) => (await pool.query(text, values)).rows as T[];
    return track({ prisma, kind: 'postgres', query, close: closer(prisma, () => pool.end()) }, pool);
  }

  // A new database starts from a snapshot of the migrated schema rather than running initdb
  // (see pglite-template.ts); deploy below then only verifies the history.
  const migratedSnapshot = async () => {
    const migrations = await readMigrations();
    const key = migrations.map((m) => `${m.name}:${m.checksum}`).join('\n');
    return { key, setup: async (db: PGlite) => void (await deploy(db)) };
  };
  if (opts.dataDir && (opts.worker ?? true)) return openWorkerDatabase(path.resolve(opts.dataDir), migrate, migratedSnapshot);
  let client: PGlite;
  if (opts.dataDir) {
    const dir = path.resolve(opts.dataDir);
    mkdirSync(dir, { recursive: true });
    const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
    if (fresh && migrate) {
      const { key, setup } = await migratedSnapshot();
      client = new PGlite(dir, { ...PGLITE_OPTIONS, loadDataDir: await pgliteSnapshot('migrated', key, setup) });
    } else {
      client = new PGlite(dir, PGLITE_OPTIONS);
    }
  } else if (migrate) {
    const { key, setup } = await migratedSnapshot();
    client = await memoryPGliteFrom('migrated', key, setup);
  } else {
    client = await emptyMemoryPGlite();
  }
  try {
    await client.waitReady;
    if (migrate) await deploy(client);
  } catch (e) {
    await client.close().catch(() => {});
    throw e;
  }
  const prisma = new PrismaClient({ adapter: new PrismaPGlite(client) });
  const query = async <T,>(text: string, values: unknown[] = []) => (await client.query<T>(text, values)).rows;
  return track({ prisma, kind: 'pglite', query, close: closer(prisma, () => client.close()) }, client);
}

/** File-backed PGlite in a worker thread (pglite-server.ts), reached through pg like PostgreSQL. */
async function openWorkerDatabase(
  dir: string,
  migrate: boolean,
  migratedSnapshot: () => Promise<{ key: string; setup: (db: PGlite) => Promise<void> }>,
): Promise<Database> {
  mkdirSync(dir, { recursive: true });
  const fresh = !existsSync(path.join(dir, 'PG_VERSION'));
  if (fresh && migrate) {
    // Unpacked here rather than by PGlite's loadDataDir, which grows the worker's WASM heap by some
    // 300 MB for the rest of its life. Written beside the directory and renamed into place, so a
    // crash never leaves a half-restored database that looks complete.
    const { key, setup } = await migratedSnapshot();
    const staging = mkdtempSync(`${dir}.restoring-`);
    await restorePGliteSnapshot('migrated', key, setup, staging);
    rmdirSync(dir);
    renameSync(staging, dir);
  }
  const server = await startPGliteServer(dir);
  // The worker multiplexes these connections onto PGlite's one session (see pglite-worker.ts).
  const pool = new pg.Pool({ ...server.connection, max: 4 });
  pool.on('error', (err) => console.error(`[db] idle PGlite worker client error: ${err.message}`));
  try {
    if (migrate) await deploy(pool);
  } catch (e) {
    await pool.end().catch(() => {});
    await server.close().catch(() => {});
    throw e;
  }
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  // Single statements skip the wire protocol: the worker's query port (see pglite-worker.ts).
  const query = server.query;
  const end = async () => {
    try {
      await pool.end();
    } finally {
      await server.close();
    }
  };
  return track({ prisma, kind: 'pglite', query, close: closer(prisma, end) }, pool);
}

function track(db: Database, handle: PGlite | pg.Pool): Database {
  driverHandles.set(db, handle);
  const close = db.close;
  db.close = async () => {
    driverHandles.delete(db);
    await close();
  };
  return db;
}

/** Idempotent close: disconnect Prisma, then end the driver. */
function closer(prisma: PrismaClient, end: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => {
    closing ??= (async () => {
      try {
        await prisma.$disconnect();
      } finally {
        await end();
      }
    })();
    return closing;
  };
}

/** ['pglite'], plus 'postgres' when TEST_DATABASE_URL is set. For `describe.each(testDatabaseKinds)`. */
export const testDatabaseKinds: DatabaseKind[] = process.env.TEST_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];

/**
 * A new empty database `<prefix>_<random>` on the PostgreSQL server of `serverUrl` (tests and
 * benchmarks): its URL, and `drop()` to remove it again (closing whatever is still connected).
 */
export async function createScratchDatabase(serverUrl: string, prefix: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `${prefix}_${randomBytes(8).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client(pgConfigFromUrl(serverUrl));
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end();
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/**
 * A fresh migrated database for a test. 'pglite': in memory. 'postgres': a new database
 * `t_<random>` on the server of TEST_DATABASE_URL, dropped again by `close()`.
 */
export async function createTestDatabase(kind: DatabaseKind): Promise<Database> {
  if (kind === 'pglite') return openDatabase({});
  const baseUrl = process.env.TEST_DATABASE_URL;
  if (!baseUrl) throw new Error('createTestDatabase("postgres") needs TEST_DATABASE_URL');
  const scratch = await createScratchDatabase(baseUrl, 't');
  let db: Database;
  try {
    db = await openDatabase({ databaseUrl: scratch.url, poolSize: 5 });
  } catch (e) {
    await scratch.drop().catch(() => {});
    throw e;
  }
  const close = db.close;
  let closing: Promise<void> | undefined;
  db.close = () => {
    closing ??= (async () => {
      try {
        await close();
      } finally {
        await scratch.drop();
      }
    })();
    return closing;
  };
  return db;
}
