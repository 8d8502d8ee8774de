// A new in-memory PGlite runs initdb, which takes 2-3 s here; loading a data directory
// snapshot takes under 1 s. Snapshots (an empty database, a migrated one) are kept per
// process and on disk under node_modules/.cache, keyed by the PGlite version and the content
// that went into them. This is PGlite's own `clone()` mechanism (dumpDataDir + loadDataDir).
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PGLITE_OPTIONS } from './pglite-settings.ts';
import { repoRoot } from './migrate/files.ts';
import { extractTar, extractTarFile } from './tar.ts';

const cacheDir = path.join(repoRoot, 'node_modules', '.cache', 'wallet-db');

function pgliteVersion(): string {
  try {
    let dir = path.dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
    while (!existsSync(path.join(dir, 'package.json'))) dir = path.dirname(dir);
    return (JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}
const version = pgliteVersion();
const snapshots = new Map<string, Promise<Blob>>();

async function readCached(file: string): Promise<Blob | undefined> {
  try {
    return new Blob([await readFile(file)]);
  } catch {
    return undefined;
  }
}

/** Write atomically, and drop older snapshots of the same kind (each is about 40 MB). */
async function writeCached(file: string, kind: string, blob: Blob): Promise<void> {
  const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await mkdir(path.dirname(file), { recursive: true });
    await writeFile(tmp, new Uint8Array(await blob.arrayBuffer()));
    await rename(tmp, file);
    for (const name of await readdir(cacheDir)) {
      if (name.startsWith(`pglite-${kind}-`) && name.endsWith('.tar') && path.join(cacheDir, name) !== file) {
        await rm(path.join(cacheDir, name), { force: true });
      }
    }
  } catch {
    await rm(tmp, { force: true }).catch(() => {});
  }
}

function snapshotId(kind: string, key: string): string {
  return `${kind}-${createHash('sha256').update(`${version}\0${key}`).digest('hex').slice(0, 24)}`;
}

/**
 * Build (or reuse) the snapshot `kind`/`key`. With `keep`, the PGlite that built it is
 * returned open (so the first caller of memoryPGliteFrom pays nothing extra).
 */
async function buildSnapshot(
  kind: string,
  key: string,
  setup: (db: PGlite) => Promise<void>,
  keep: boolean,
): Promise<{ blob: Blob; builder?: PGlite }> {
  const id = snapshotId(kind, key);
  const known = snapshots.get(id);
  if (known) return { blob: await known };
  const file = path.join(cacheDir, `pglite-${id}.tar`);
  let resolve!: (b: Blob) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<Blob>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => {});
  snapshots.set(id, promise);
  const cached = await readCached(file);
  if (cached) {
    resolve(cached);
    return { blob: cached };
  }
  const db = new PGlite(PGLITE_OPTIONS);
  try {
    await db.waitReady;
    await setup(db);
    const blob = await db.dumpDataDir('none');
    resolve(blob);
    await writeCached(file, kind, blob);
    if (keep) return { blob, builder: db };
    await db.close();
    return { blob };
  } catch (e) {
    snapshots.delete(id);
    reject(e);
    await db.close().catch(() => {});
    throw e;
  }
}

/** The data directory snapshot that `setup` produces on an empty database, as a tarball. */
export async function pgliteSnapshot(kind: string, key: string, setup: (db: PGlite) => Promise<void>): Promise<Blob> {
  return (await buildSnapshot(kind, key, setup, false)).blob;
}

/**
 * Unpacks the snapshot into `dir` (a new file-backed database) without keeping it in this process:
 * from the disk cache through a small buffer, else built and dropped again (about 40 MB a copy,
 * which a service would otherwise carry for the rest of its life).
 */
export async function restorePGliteSnapshot(kind: string, key: string, setup: (db: PGlite) => Promise<void>, dir: string): Promise<void> {
  const id = snapshotId(kind, key);
  const file = path.join(cacheDir, `pglite-${id}.tar`);
  const known = snapshots.has(id);
  if (!known && existsSync(file)) return extractTarFile(file, dir);
  const { blob } = await buildSnapshot(kind, key, setup, false);
  if (!known) snapshots.delete(id);
  extractTar(new Uint8Array(await blob.arrayBuffer()), dir);
}

/**
 * A new in-memory PGlite whose content is what `setup` produces on an empty database.
 * `key` must change whenever `setup` would produce something else; `kind` (a short slug)
 * groups snapshots so that a new one replaces the old one on disk.
 */
export async function memoryPGliteFrom(
  kind: string,
  key: string,
  setup: (db: PGlite) => Promise<void>,
): Promise<PGlite> {
  const { blob, builder } = await buildSnapshot(kind, key, setup, true);
  if (builder) return builder;
  const db = new PGlite({ ...PGLITE_OPTIONS, loadDataDir: blob });
  await db.waitReady;
  return db;
}

/** A new, empty in-memory PGlite. */
export function emptyMemoryPGlite(): Promise<PGlite> {
  return memoryPGliteFrom('empty', '', async () => {});
}
