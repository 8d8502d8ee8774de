// Runs a file-backed PGlite in a worker thread (pglite-worker.ts) behind the PostgreSQL wire
// protocol on a private unix socket, so the main thread uses the same pg.Pool +
// @prisma/adapter-pg path as a real server while the queries execute on another core.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import pg from 'pg';
import type { PGliteWorkerData, PGliteWorkerMessage, QueryReply, QueryRequest } from './pglite-worker.ts';

export interface PGliteServer {
  /** pg connection settings for the socket (host is the socket's directory). */
  connection: { host: string; port: number; user: string; database: string };
  /**
   * One statement over the worker's query port (no wire protocol on this thread): values are
   * prepared as pg prepares them and rows come back as pg builds them (same type parsers, bytea
   * as Buffer), errors as pg.DatabaseError with the server's fields.
   */
  query<T>(text: string, values?: unknown[]): Promise<T[]>;
  /** Stops the worker (closing PGlite, which releases the data dir) and removes the socket. */
  close(): Promise<void>;
}

/** tsx's ESM register API (its `import` export; the CommonJS one cannot register from a worker). */
function tsxApiUrl(): string {
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  return pathToFileURL(cjs.replace(/index\.cjs$/, 'index.mjs')).href;
}

/** Set by apps/api/scripts/build.mjs to the bundled worker's URL; undefined when running from sources. */
declare const BUNDLED_PGLITE_WORKER: string | undefined;

/** The worker's entry: the bundled script, or from sources a bootstrap that registers tsx first. */
function workerEntry(): string | URL {
  if (typeof BUNDLED_PGLITE_WORKER !== 'undefined') return new URL(BUNDLED_PGLITE_WORKER);
  // Node 20 cannot start a .ts worker entry even under `--import tsx`, so a small script registers
  // tsx's loader first (also needed under vitest, which has none).
  return `import(${JSON.stringify(tsxApiUrl())})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./pglite-worker.ts', import.meta.url).href)}); })
    .catch((e) => { require('node:worker_threads').parentPort.postMessage({ type: 'error', message: String(e && e.stack || e) }); });`;
}

// pg connects to `${host}/.s.PGSQL.${port}` when host is a directory.
const SOCKET_PORT = 5432;
const SOCKET_FILE = `.s.PGSQL.${SOCKET_PORT}`;
/** Socket directories are `wallet-pglite-<pid>-<random>`: the owner's pid tells a stale one. */
const SOCKET_DIR_PREFIX = 'wallet-pglite-';
/** sun_path holds 108 bytes with the terminating NUL. */
const MAX_SOCKET_PATH = 107;

const processAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** Where socket directories go: the temporary directory, or /tmp when its path would not fit a socket path. */
export function socketBase(): string {
  const longest = path.join(tmpdir(), `${SOCKET_DIR_PREFIX}4194304-XXXXXX`, SOCKET_FILE);
  return Buffer.byteLength(longest) <= MAX_SOCKET_PATH ? tmpdir() : '/tmp';
}

/**
 * Removes the socket directories of processes that no longer exist: a process killed with SIGKILL
 * never removes its own. Returns the directories removed.
 */
export function removeStaleSocketDirs(base = socketBase()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return removed;
  }
  for (const name of names) {
    const pid = /^wallet-pglite-(\d+)-/.exec(name)?.[1];
    if (!pid || Number(pid) === process.pid || processAlive(Number(pid))) continue;
    try {
      rmSync(path.join(base, name), { recursive: true, force: true });
      removed.push(name);
    } catch {
      // another user's directory, or removed meanwhile
    }
  }
  return removed;
}

export async function startPGliteServer(dataDir: string): Promise<PGliteServer> {
  const base = socketBase();
  removeStaleSocketDirs(base);
  const socketDir = mkdtempSync(path.join(base, `${SOCKET_DIR_PREFIX}${process.pid}-`));
  const removeSocketDir = () => rmSync(socketDir, { recursive: true, force: true });
  const channel = new MessageChannel();
  const data: PGliteWorkerData = {
    dataDir,
    socketPath: path.join(socketDir, SOCKET_FILE),
    queryPort: channel.port2,
  };
  const worker = new Worker(workerEntry(), {
    eval: typeof BUNDLED_PGLITE_WORKER === 'undefined',
    workerData: data,
    transferList: [data.queryPort],
    // Not the parent's flags (its --import tsx is registered by the bootstrap), except profiling ones.
    execArgv: process.execArgv.filter((arg) => /^--cpu-prof/.test(arg)),
  });

  let exited = false;
  const queries = queryClient(channel.port1);
  const exit = new Promise<number>((resolve) =>
    worker.once('exit', (code) => {
      exited = true;
      removeSocketDir();
      queries.fail(new Error(`PGlite worker exited with code ${code}`));
      resolve(code);
    }),
  );
  const messages = new Set<(msg: PGliteWorkerMessage) => void>();
  worker.on('message', (msg: PGliteWorkerMessage) => {
    for (const listener of messages) listener(msg);
  });
  worker.on('error', (err) => console.error(`[db] PGlite worker error: ${err.message}`));
  const next = () =>
    new Promise<PGliteWorkerMessage>((resolve, reject) => {
      const listener = (msg: PGliteWorkerMessage) => {
        messages.delete(listener);
        resolve(msg);
      };
      messages.add(listener);
      worker.once('error', reject);
      void exit.then((code) => reject(new Error(`PGlite worker exited with code ${code}`)));
    });

  const first = await next().catch(async (e) => {
    queries.fail(e as Error);
    await worker.terminate();
    throw e;
  });
  if (first.type !== 'ready') {
    queries.fail(new Error('PGlite worker did not start'));
    await worker.terminate();
    throw new Error(first.type === 'error' ? first.message : `PGlite worker: unexpected ${first.type}`);
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      if (exited) return;
      // Statements already sent get their answers first (bounded like the close itself).
      await Promise.race([queries.closing(), new Promise((resolve) => setTimeout(resolve, 10_000).unref())]);
      const reply = next().catch((e: Error) => ({ type: 'error' as const, message: e.message }));
      worker.postMessage({ type: 'close' });
      const timeout = new Promise<'timeout'>((resolve) => setTimeout(resolve, 10_000, 'timeout').unref());
      const result = await Promise.race([reply, timeout]);
      if (result === 'timeout' || result.type === 'error') await worker.terminate();
      await exit;
      if (result === 'timeout') throw new Error('PGlite worker did not close within 10 s');
      if (result.type === 'error' && !/exited with code 0/.test(result.message)) {
        throw new Error(`PGlite worker close failed: ${result.message}`);
      }
    })());

  return {
    connection: { host: socketDir, port: SOCKET_PORT, user: 'postgres', database: 'postgres' },
    query: queries.query,
    close,
  };
}

// pg's own conversion of parameters to their wire form (what pool.query applies to each value).
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils.js') as { prepareValue(value: unknown): unknown };

// pg.DatabaseError fields the worker reports (see ERROR_FIELDS in pglite-worker.ts).
type DatabaseErrorFields = Omit<pg.DatabaseError, 'name' | 'message' | 'length' | 'stack' | 'cause'>;

/** Main-thread side of the query port: statement ids, pending replies, pg-shaped results and errors. */
function queryClient(port: MessagePort) {
  const MAX_STATEMENTS = 500;
  const statementIds = new Map<string, number>();
  const pending = new Map<number, { resolve: (rows: unknown[]) => void; reject: (e: Error) => void }>();
  let nextId = 0;
  let failure: Error | undefined;
  let drained: (() => void) | undefined;

  port.on('message', (reply: QueryReply) => {
    const waiter = pending.get(reply.id);
    if (!waiter) return;
    pending.delete(reply.id);
    if (pending.size === 0) {
      port.unref();
      drained?.();
    }
    if ('error' in reply) {
      const { message = 'unknown error', ...fields } = reply.error;
      const error = new pg.DatabaseError(message, 0, 'error');
      Object.assign(error, fields as Partial<DatabaseErrorFields>);
      waiter.reject(error);
      return;
    }
    const rows = reply.rows;
    // Buffers arrive as plain Uint8Arrays; pg returns bytea as Buffer.
    if (reply.bytea) for (const row of rows) for (const name of reply.bytea) row[name] = toBuffers(row[name]);
    waiter.resolve(rows);
  });
  port.unref();

  return {
    query<T>(text: string, values: unknown[] = []): Promise<T[]> {
      if (failure) return Promise.reject(failure);
      let stmt = statementIds.get(text);
      let first = false;
      if (stmt === undefined && statementIds.size < MAX_STATEMENTS) {
        stmt = statementIds.size;
        statementIds.set(text, stmt);
        first = true;
      }
      let prepared: QueryRequest['values'];
      try {
        prepared = values.map((value) => prepareValue(value) as string | Buffer | null);
      } catch (e) {
        return Promise.reject(e as Error);
      }
      const id = nextId++;
      const request: QueryRequest = stmt === undefined ? { id, stmt: -1, text, values: prepared } : first ? { id, stmt, text, values: prepared } : { id, stmt, values: prepared };
      return new Promise<T[]>((resolve, reject) => {
        if (pending.size === 0) port.ref();
        pending.set(id, { resolve: resolve as (rows: unknown[]) => void, reject });
        port.postMessage(request);
      });
    },
    /** No new statements once close() started; resolves when those already sent are answered. */
    closing(): Promise<void> {
      failure ??= new Error('database is closed');
      if (pending.size === 0) return Promise.resolve();
      return new Promise<void>((resolve) => (drained = resolve));
    },
    /** The worker is gone: every waiting and later statement fails. */
    fail(error: Error) {
      failure ??= error;
      for (const waiter of pending.values()) waiter.reject(failure);
      pending.clear();
      drained?.();
      port.close();
    },
  };
}

const toBuffers = (value: unknown): unknown =>
  value instanceof Uint8Array ? Buffer.from(value.buffer, value.byteOffset, value.byteLength) : Array.isArray(value) ? value.map(toBuffers) : value;
