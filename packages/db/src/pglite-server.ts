// Runs a file-backed PGlite in a worker thread (pglite-worker.ts) behind the PostgreSQL wire
// protocol on a private unix socket, so the main thread uses the same pg.Pool +
// @prisma/adapter-pg path as a real server while the queries execute on another core.
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { PGliteWorkerData, PGliteWorkerMessage } from './pglite-worker.ts';

export interface PGliteServer {
  /** pg connection settings for the socket (host is the socket's directory). */
  connection: { host: string; port: number; user: string; database: string };
  /** Stops the worker (closing PGlite, which releases the data dir) and removes the socket. */
  close(): Promise<void>;
}

/** tsx's ESM register API (its `import` export; the CommonJS one cannot register from a worker). */
function tsxApiUrl(): string {
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  return pathToFileURL(cjs.replace(/index\.cjs$/, 'index.mjs')).href;
}

// pg connects to `${host}/.s.PGSQL.${port}` when host is a directory.
const SOCKET_PORT = 5432;

export async function startPGliteServer(dataDir: string, loadDataDir?: Blob): Promise<PGliteServer> {
  const socketDir = mkdtempSync(path.join(tmpdir(), 'wallet-pglite-'));
  const removeSocketDir = () => rmSync(socketDir, { recursive: true, force: true });
  const data: PGliteWorkerData = {
    dataDir,
    socketPath: path.join(socketDir, `.s.PGSQL.${SOCKET_PORT}`),
    loadDataDir: loadDataDir ? await loadDataDir.arrayBuffer() : undefined,
  };
  // The worker is TypeScript: Node 20 cannot start a .ts worker entry even under `--import tsx`,
  // so a small script registers tsx's loader first (also needed under vitest, which has none).
  const bootstrap = `import(${JSON.stringify(tsxApiUrl())})
    .then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./pglite-worker.ts', import.meta.url).href)}); })
    .catch((e) => { require('node:worker_threads').parentPort.postMessage({ type: 'error', message: String(e && e.stack || e) }); });`;
  const worker = new Worker(bootstrap, {
    eval: true,
    workerData: data,
    transferList: data.loadDataDir ? [data.loadDataDir] : [],
    execArgv: [],
  });

  let exited = false;
  const exit = new Promise<number>((resolve) =>
    worker.once('exit', (code) => {
      exited = true;
      removeSocketDir();
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
    await worker.terminate();
    throw e;
  });
  if (first.type !== 'ready') {
    await worker.terminate();
    throw new Error(first.type === 'error' ? first.message : `PGlite worker: unexpected ${first.type}`);
  }

  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      if (exited) return;
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
    close,
  };
}
