// Worker thread entry (see pglite-server.ts): owns one file-backed PGlite and serves it over the
// PostgreSQL wire protocol on a unix socket, one connection at a time. The main thread talks
// to it with pg.Pool (max 1), i.e. exactly the PostgreSQL code path, and the query execution
// runs on this thread instead of competing with HTTP handling.
import net from 'node:net';
import { parentPort, workerData } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';

export interface PGliteWorkerData {
  dataDir: string;
  /** Unix socket path to listen on. */
  socketPath: string;
  /** Data directory tarball to initialise a fresh `dataDir` from. */
  loadDataDir?: ArrayBuffer;
}

export type PGliteWorkerMessage = { type: 'ready' } | { type: 'error'; message: string; stack?: string } | { type: 'closed' };

const SSL_REQUEST_CODE = 80877103;
const PROTOCOL_3 = 196608;

const data = workerData as PGliteWorkerData;
const port = parentPort!;
const post = (msg: PGliteWorkerMessage) => port.postMessage(msg);

const db = new PGlite(data.dataDir, data.loadDataDir ? { loadDataDir: new Blob([data.loadDataDir]) } : undefined);
// Several connections share PGlite's one session. Each connection's input is cut into batches
// ending at a Sync, Flush or simple Query (so an unnamed statement/portal is never split across
// connections), and batches run one at a time in arrival order; while a connection has a
// transaction open, only its batches run (as in @electric-sql/pglite-socket's queue).
// Several pooled connections let this thread run the next query while the main thread is still
// handling the previous reply.
interface Conn {
  socket: net.Socket;
  buffer: Buffer;
  started: boolean;
  closed: boolean;
}
const conns = new Set<Conn>();
const queue: { conn: Conn; batch: Uint8Array }[] = [];
let owner: Conn | undefined;
let running = false;
let stopping = false;
let idle: Promise<void> = Promise.resolve();

async function exec(message: Uint8Array): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await db.execProtocolRawStream(message, { onRawData: (chunk) => void chunks.push(Buffer.from(chunk)) });
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

function drain(): void {
  if (running || stopping) return;
  running = true;
  idle = (async () => {
    try {
      for (;;) {
        if (owner && !db.isInTransaction()) owner = undefined;
        const index = owner ? queue.findIndex((item) => item.conn === owner) : 0;
        if (index < 0 || queue.length === 0) break;
        const { conn, batch } = queue.splice(index, 1)[0]!;
        if (conn.closed) continue;
        let out: Buffer;
        try {
          out = await exec(batch);
        } catch (e) {
          console.error(`[db worker] protocol error: ${(e as Error).message}`);
          close(conn);
          continue;
        }
        if (db.isInTransaction()) owner = conn;
        if (out.length > 0 && !conn.closed) conn.socket.write(out);
      }
    } finally {
      running = false;
    }
  })();
}

function close(conn: Conn): void {
  if (conn.closed) return;
  conn.closed = true;
  conns.delete(conn);
  conn.socket.destroy();
  for (let i = queue.length - 1; i >= 0; i--) if (queue[i]!.conn === conn) queue.splice(i, 1);
  if (owner === conn) {
    // Roll back what the connection left open before anyone else's batch runs.
    void (async () => {
      await idle;
      if (owner === conn && db.isInTransaction()) await db.exec('ROLLBACK').catch(() => {});
      if (owner === conn) owner = undefined;
      drain();
    })();
  }
}

function onData(conn: Conn, chunk: Buffer): void {
  if (conn.closed) return;
  conn.buffer = conn.buffer.length === 0 ? chunk : Buffer.concat([conn.buffer, chunk]);
  while (!conn.started) {
    // Startup phase: SSLRequest, CancelRequest or StartupMessage (int32 length, int32 code).
    if (conn.buffer.length < 8) return;
    const length = conn.buffer.readInt32BE(0);
    if (conn.buffer.length < length) return;
    const code = conn.buffer.readInt32BE(4);
    const message = conn.buffer.subarray(0, length);
    conn.buffer = conn.buffer.subarray(length);
    if (code === SSL_REQUEST_CODE) {
      conn.socket.write('N');
    } else if (code === PROTOCOL_3) {
      conn.started = true;
      queue.push({ conn, batch: new Uint8Array(message) });
    } else {
      close(conn); // CancelRequest (unsupported) or an unknown protocol version
      return;
    }
  }
  const buffer = conn.buffer;
  let end = 0;
  let cut = 0;
  while (buffer.length - end >= 5) {
    const type = buffer[end];
    const size = 1 + buffer.readInt32BE(end + 1);
    if (buffer.length - end < size) break;
    if (type === 0x58 /* X Terminate */) {
      close(conn);
      return;
    }
    end += size;
    if (type === 0x53 /* S Sync */ || type === 0x51 /* Q Query */ || type === 0x48 /* H Flush */) cut = end;
  }
  if (cut > 0) {
    queue.push({ conn, batch: new Uint8Array(buffer.subarray(0, cut)) });
    conn.buffer = buffer.subarray(cut);
  }
  drain();
}

const server = net.createServer((socket) => {
  socket.setNoDelay(true);
  const conn: Conn = { socket, buffer: Buffer.alloc(0), started: false, closed: false };
  conns.add(conn);
  socket.on('data', (chunk) => onData(conn, chunk));
  socket.on('error', () => close(conn));
  socket.on('close', () => close(conn));
});

async function shutdown(): Promise<void> {
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  for (const conn of [...conns]) close(conn);
  await closed;
  await idle;
  stopping = true;
  await idle;
  await db.close();
}

port.on('message', (msg: { type: 'close' }) => {
  if (msg.type !== 'close') return;
  shutdown().then(
    () => {
      post({ type: 'closed' });
      port.close();
    },
    (e: Error) => {
      post({ type: 'error', message: e.message, stack: e.stack });
      port.close();
    },
  );
});

try {
  await db.waitReady;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(data.socketPath, () => resolve());
  });
  post({ type: 'ready' });
} catch (e) {
  const err = e as Error;
  post({ type: 'error', message: err.message, stack: err.stack });
  await db.close().catch(() => {});
  port.close();
}
