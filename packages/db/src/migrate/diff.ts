import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { withSchemaEngine } from './engine.ts';
import { defaultMigrationsDir, defaultSchemaPath, migrationList, migrationLockToml, type MigrationPaths } from './files.ts';

/**
 * The SQL that takes the database described by the migrations folder to schema.prisma;
 * the empty string when they agree.
 */
export async function diff(opts: MigrationPaths = {}): Promise<string> {
  const schemaPath = path.resolve(opts.schemaPath ?? defaultSchemaPath);
  const migrationsDir = path.resolve(opts.migrationsDir ?? defaultMigrationsDir);
  const schema = await readFile(schemaPath, 'utf8');
  const list = await migrationList(migrationsDir);
  const result = await withSchemaEngine([[schemaPath, schema]], (engine) =>
    engine.diff({
      from: { tag: 'migrations', ...list },
      to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: schema }] },
      script: true,
      exitCode: true,
      filters: { externalTables: [], externalEnums: [] },
    }),
  );
  if (result.exitCode === 0) return '';
  const sql = (result.stdout ?? '').trim();
  // An "empty" script from the engine is just a comment line.
  return isEmptyScript(sql) ? '' : sql + '\n';
}

function isEmptyScript(sql: string): boolean {
  return sql
    .split('\n')
    .map((l) => l.trim())
    .every((l) => l === '' || l.startsWith('--'));
}

export interface CheckResult {
  inSync: boolean;
  /** The SQL missing from the migrations folder (empty when in sync). */
  missingSql: string;
}

/** Whether the migrations folder produces exactly schema.prisma. */
export async function check(opts: MigrationPaths = {}): Promise<CheckResult> {
  const missingSql = await diff(opts);
  return { inSync: missingSql === '', missingSql };
}

export interface CreateResult {
  name: string;
  /** Absolute path of the new migration.sql. */
  file: string;
  sql: string;
}

function timestamp(d = new Date()): string {
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getUTCFullYear()}${p(d.getUTCMonth() + 1)}${p(d.getUTCDate())}${p(d.getUTCHours())}${p(d.getUTCMinutes())}${p(d.getUTCSeconds())}`;
}

/**
 * Write `<migrationsDir>/<YYYYMMDDHHMMSS>_<name>/migration.sql` holding the diff. Throws when
 * the schema has no change.
 */
export async function create(name: string, opts: MigrationPaths = {}): Promise<CreateResult> {
  const slug = name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9_]+/g, '_')
    .replace(/^_+|_+$/g, '');
  if (!slug) throw new Error(`invalid migration name: ${JSON.stringify(name)}`);
  const migrationsDir = path.resolve(opts.migrationsDir ?? defaultMigrationsDir);
  const sql = await diff({ ...opts, migrationsDir });
  if (!sql) throw new Error('no schema change: schema.prisma and the migrations already agree');
  const folder = `${timestamp()}_${slug}`;
  const dir = path.join(migrationsDir, folder);
  if (existsSync(dir)) throw new Error(`migration folder already exists: ${dir}`);
  await mkdir(dir, { recursive: true });
  const lock = path.join(migrationsDir, 'migration_lock.toml');
  if (!existsSync(lock)) {
    await writeFile(lock, migrationLockToml);
  }
  const file = path.join(dir, 'migration.sql');
  await writeFile(file, sql);
  return { name: folder, file, sql };
}
