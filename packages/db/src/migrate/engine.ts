// Drives @prisma/schema-engine-wasm directly (the Prisma CLI's migrate commands need a native
// schema-engine binary that is not available here). Only used for diff/check/create: deploy
// applies SQL itself (see deploy.ts).
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { PGlite } from '@electric-sql/pglite';
import {
  bindMigrationAwareSqlAdapterFactory,
  type SqlDriverAdapter,
  type SqlMigrationAwareDriverAdapterFactory,
} from '@prisma/driver-adapter-utils';
import type * as SchemaEngineWasm from '@prisma/schema-engine-wasm';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { emptyMemoryPGlite } from '../pglite-template.ts';

type SchemaEngineModule = typeof SchemaEngineWasm;
export type SchemaEngine = SchemaEngineWasm.SchemaEngine;
export type MigrationList = SchemaEngineWasm.MigrationList;

// lib "ES2023" has no WebAssembly typings; the little we use, typed by hand.
interface WasmApi {
  compile(bytes: Uint8Array): Promise<object>;
  Instance: new (module: object, imports: Record<string, object>) => { exports: Record<string, unknown> };
}
const WebAssemblyApi = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;

let modulePromise: Promise<SchemaEngineModule> | undefined;

/** Node 20 cannot `import` a .wasm file: instantiate it by hand and wire it to the JS glue. */
function loadSchemaEngineModule(): Promise<SchemaEngineModule> {
  modulePromise ??= (async () => {
    const require = createRequire(import.meta.url);
    const bgPath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const wasmPath = path.join(path.dirname(bgPath), 'schema_engine_bg.wasm');
    const bg = (await import(pathToFileURL(bgPath).href)) as SchemaEngineModule & {
      __wbg_set_wasm(exports: Record<string, unknown>): void;
    };
    const mod = await WebAssemblyApi.compile(await readFile(wasmPath));
    const instance = new WebAssemblyApi.Instance(mod, { './schema_engine_bg.js': bg });
    bg.__wbg_set_wasm(instance.exports);
    (instance.exports.__wbindgen_start as () => void)();
    return bg;
  })();
  modulePromise.catch(() => {
    modulePromise = undefined;
  });
  return modulePromise;
}

/**
 * pglite-prisma-adapter 0.7.2 calls `exec()` without awaiting it in `executeScript`, so a
 * failing script looks like a success (and the rejection goes unhandled). Await it here.
 */
function awaitingScripts(adapter: SqlDriverAdapter, db: PGlite): SqlDriverAdapter {
  const onError = (adapter as unknown as { onError(e: unknown): never }).onError.bind(adapter);
  adapter.executeScript = async (script: string) => {
    try {
      await db.exec(script);
    } catch (e) {
      onError(e); // rethrows as a DriverAdapterError carrying the database message
    }
  };
  return adapter;
}

/** Main and shadow databases are throw-away in-memory PGlite instances. */
class MemoryPGliteFactory implements SqlMigrationAwareDriverAdapterFactory {
  readonly provider = 'postgres' as const;
  readonly adapterName = 'pglite-prisma-adapter';
  /** Every PGlite this factory started; closed with the engine. */
  readonly instances: PGlite[] = [];

  private async open(): Promise<SqlDriverAdapter> {
    const db = await emptyMemoryPGlite();
    this.instances.push(db);
    const adapter = await new PrismaPGlite(db).connect();
    const dispose = adapter.dispose.bind(adapter);
    adapter.dispose = async () => {
      await dispose();
      if (!db.closed) await db.close();
    };
    return awaitingScripts(adapter, db);
  }
  connect(): Promise<SqlDriverAdapter> {
    return this.open();
  }
  connectToShadowDb(): Promise<SqlDriverAdapter> {
    return this.open();
  }
}

/** Replace "External error id#N" by the driver's own error text. */
function realError(e: unknown, registry: { consumeError(id: number): { error: unknown } | undefined }): Error {
  const message = e instanceof Error ? e.message : String(e);
  let text = message;
  let cause: unknown = e;
  for (const m of message.matchAll(/External error id#(\d+)/g)) {
    const rec = registry.consumeError(Number(m[1]));
    if (!rec) continue;
    cause = rec.error;
    text = text.replace(m[0], describeDriverError(rec.error));
  }
  const err = new Error(text, { cause });
  return err;
}

export function describeDriverError(error: unknown): string {
  if (error && typeof error === 'object') {
    const o = error as { message?: unknown; cause?: unknown; code?: unknown; originalMessage?: unknown };
    const c = o.cause as { originalMessage?: unknown; message?: unknown; originalCode?: unknown; kind?: unknown } | undefined;
    if (c && typeof c === 'object') {
      const msg = c.originalMessage ?? c.message;
      const code = c.originalCode;
      if (typeof msg === 'string') return code ? `${msg} (${String(code)})` : msg;
    }
    if (typeof o.message === 'string') return o.message;
  }
  return String(error);
}

/**
 * Run `fn` with a schema engine whose main and shadow databases are throw-away in-memory PGlite
 * instances. Engine errors carry the real database error text.
 */
export async function withSchemaEngine<T>(
  schemaFiles: [string, string][],
  fn: (engine: SchemaEngine) => Promise<T>,
): Promise<T> {
  const { SchemaEngine } = await loadSchemaEngineModule();
  const factory = new MemoryPGliteFactory();
  const bound = bindMigrationAwareSqlAdapterFactory(factory);
  const logs: string[] = [];
  let engine: SchemaEngine | undefined;
  try {
    engine = await SchemaEngine.new(
      { datamodels: schemaFiles },
      (msg: string) => {
        logs.push(msg);
      },
      bound,
    );
    return await fn(engine);
  } catch (e) {
    throw realError(e, bound.errorRegistry);
  } finally {
    engine?.free();
    for (const db of factory.instances) if (!db.closed) await db.close();
  }
}
