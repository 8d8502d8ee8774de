// Worker thread entry (see pglite-server.ts): owns one file-backed PGlite and serves it
//  - over the PostgreSQL wire protocol on a unix socket, to the main thread's pg.Pool (Prisma,
//    transactions, migrations: exactly the PostgreSQL code path), and
//  - over a MessagePort, for the single statements of `Database.query` (the request hot path):
//    named prepared statements, rows decoded here with pg's own type parsers, so the main thread
//    does no protocol work and PGlite skips parse/plan on repeated statements.
// Query execution runs on this thread instead of competing with HTTP handling.
import net from 'node:net';
import { parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { PGLITE_OPTIONS } from './pglite-settings.ts';

export interface PGliteWorkerData {
  dataDir: string;
  /** Unix socket path to listen on. */
  socketPath: string;
  /** The port `Database.query` statements arrive on (see QueryRequest). */
  queryPort: MessagePort;
}

export type PGliteWorkerMessage = { type: 'ready' } | { type: 'error'; message: string; stack?: string } | { type: 'closed' };

/**
 * One statement from `Database.query`. `stmt` >= 0 names a statement text the main thread reuses
 * (its text is sent the first time only); -1: a one-off statement, `text` always set. Values are
 * already in pg's wire form (pg's prepareValue): text, binary (Buffers) or null.
 */
export interface QueryRequest {
  id: number;
  stmt: number;
  text?: string;
  values: (string | Uint8Array | null)[];
}

/** Rows as pg builds them (pg's text type parsers); `bytea`: fields to turn back into Buffers. */
export type QueryReply =
  | { id: number; rows: Record<string, unknown>[]; bytea?: string[] }
  | { id: number; error: Record<string, string | undefined> };

const SSL_REQUEST_CODE = 80877103;
const PROTOCOL_3 = 196608;

const data = workerData as PGliteWorkerData;
const port = parentPort!;
const post = (msg: PGliteWorkerMessage) => port.postMessage(msg);

const db = new PGlite(data.dataDir, PGLITE_OPTIONS);
// Several connections share PGlite's one session. Each connection's input is cut into batches
// ending at a Sync, Flush or simple Query (so an unnamed statement/portal is never split across
// connections), and batches run one at a time in arrival order; while a connection has a
// transaction open, only its batches run (as in @electric-sql/pglite-socket's queue).
// Several pooled connections let this thread run the next query while the main thread is still
// handling the previous reply.
// Statements of the query port are run in the same queue: they wait while a connection holds a
// transaction, and never leave one open.
interface Conn {
  socket: net.Socket;
  buffer: Buffer;
  started: boolean;
  closed: boolean;
}
const conns = new Set<Conn>();
type Job = { conn: Conn; batch: Uint8Array } | { conn: undefined; request: QueryRequest };
const queue: Job[] = [];
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
        const job = index === 0 ? queue.shift()! : queue.splice(index, 1)[0]!;
        if (!job.conn) {
          await runQuery(job.request);
          continue;
        }
        const { conn, batch } = job;
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

// ---- The query port: one statement per request, prepared once per text. ----

interface Field {
  name: string;
  parse: (text: string) => unknown;
  bytea: boolean;
  /** bytea: requested in binary once the statement is described (no hex on either side). */
  binary: boolean;
}
interface Statement {
  text: string;
  /** Session-wide name ('' for one-off statements); prepared: Parse succeeded in this session. */
  name: string;
  prepared: boolean;
  fields: Field[] | null;
  bytea?: string[];
}
// Text ids are the main thread's; the names cannot clash with pg's or Prisma's (both unnamed).
const statements = new Map<number, Statement>();
const queryPort = data.queryPort;
const decoder = new TextDecoder();
const BYTEA = 17;
const BYTEA_ARRAY = 1001;

/** Frontend messages (PostgreSQL protocol 3) into one buffer. */
class Writer {
  private buf = Buffer.allocUnsafe(1024);
  private pos = 0;
  private start = 0;
  private ensure(n: number) {
    if (this.pos + n <= this.buf.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.pos + n));
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
  }
  begin(code: number) {
    this.ensure(5);
    this.start = this.pos;
    this.buf[this.pos] = code;
    this.pos += 5;
    return this;
  }
  end() {
    this.buf.writeInt32BE(this.pos - this.start - 1, this.start + 1);
    return this;
  }
  byte(n: number) {
    this.ensure(1);
    this.buf[this.pos++] = n;
    return this;
  }
  int16(n: number) {
    this.ensure(2);
    this.pos = this.buf.writeInt16BE(n, this.pos);
    return this;
  }
  int32(n: number) {
    this.ensure(4);
    this.pos = this.buf.writeInt32BE(n, this.pos);
    return this;
  }
  cstring(text: string) {
    const length = Buffer.byteLength(text);
    this.ensure(length + 1);
    this.pos += this.buf.write(text, this.pos);
    this.buf[this.pos++] = 0;
    return this;
  }
  bytes(value: Uint8Array | string) {
    if (typeof value === 'string') {
      const length = Buffer.byteLength(value);
      this.int32(length);
      this.ensure(length);
      this.pos += this.buf.write(value, this.pos);
    } else {
      this.int32(value.length);
      this.ensure(value.length);
      this.buf.set(value, this.pos);
      this.pos += value.length;
    }
    return this;
  }
  take(): Uint8Array {
    const out = new Uint8Array(this.buf.subarray(0, this.pos));
    this.pos = 0;
    return out;
  }
}
const writer = new Writer();

function batchFor(statement: Statement, values: QueryRequest['values'], reparse: boolean): Uint8Array {
  const fields = reparse ? null : statement.fields;
  const w = writer;
  if (reparse) {
    // Close of a statement that does not exist is not an error.
    if (statement.name) w.begin(0x43 /* C Close */).byte(0x53 /* S: statement */).cstring(statement.name).end();
    w.begin(0x50 /* P Parse */).cstring(statement.name).cstring(statement.text).int16(0).end();
    w.begin(0x44 /* D Describe */).byte(0x53 /* S: statement */).cstring(statement.name).end();
  }
  w.begin(0x42 /* B Bind */).cstring('').cstring(statement.name).int16(values.length);
  for (const value of values) w.int16(value instanceof Uint8Array ? 1 : 0);
  w.int16(values.length);
  for (const value of values) {
    if (value === null) w.int32(-1);
    else w.bytes(value);
  }
  if (fields?.some((f) => f.binary)) {
    w.int16(fields.length);
    for (const field of fields) w.int16(field.binary ? 1 : 0);
  } else {
    w.int16(0); // all results as text
  }
  w.end();
  w.begin(0x45 /* E Execute */).cstring('').int32(0).end();
  w.begin(0x53 /* S Sync */).end();
  return w.take();
}

const ERROR_FIELDS: Record<string, string> = {
  S: 'severity', V: 'severity', C: 'code', M: 'message', D: 'detail', H: 'hint', P: 'position', p: 'internalPosition',
  q: 'internalQuery', W: 'where', s: 'schema', t: 'table', c: 'column', d: 'dataType', n: 'constraint', F: 'file',
  L: 'line', R: 'routine',
};

interface Outcome {
  rows: Record<string, unknown>[];
  parsed: boolean;
  error?: Record<string, string | undefined>;
}

/** Reads the backend messages of one batch: rows (with the statement's fields), or the error. */
/** A copy with its own ArrayBuffer: a view of a larger (pooled) one would be cloned whole to the main thread. */
const own = (bytes: Uint8Array): Uint8Array => new Uint8Array(bytes);
const ownAll = (value: unknown): unknown => (value instanceof Uint8Array ? own(value) : Array.isArray(value) ? value.map(ownAll) : value);

function readReply(out: Buffer, statement: Statement, binary: boolean): Outcome {
  const rows: Record<string, unknown>[] = [];
  let parsed = false;
  let error: Outcome['error'];
  let pos = 0;
  while (pos + 5 <= out.length) {
    const code = out[pos]!;
    const end = pos + 1 + out.readInt32BE(pos + 1);
    let at = pos + 5;
    if (code === 0x44 /* D DataRow */ && !error) {
      const fields = statement.fields ?? [];
      const count = out.readInt16BE(at);
      at += 2;
      const row: Record<string, unknown> = {};
      for (let i = 0; i < count; i++) {
        const length = out.readInt32BE(at);
        at += 4;
        const field = fields[i]!;
        if (length < 0) {
          row[field.name] = null;
        } else {
          if (binary && field.binary) row[field.name] = own(out.subarray(at, at + length));
          else if (field.bytea) row[field.name] = ownAll(field.parse(decoder.decode(out.subarray(at, at + length))));
          else row[field.name] = field.parse(decoder.decode(out.subarray(at, at + length)));
          at += length;
        }
      }
      rows.push(row);
    } else if (code === 0x31 /* 1 ParseComplete */) {
      parsed = true;
    } else if (code === 0x54 /* T RowDescription */) {
      const count = out.readInt16BE(at);
      at += 2;
      const fields: Field[] = [];
      for (let i = 0; i < count; i++) {
        const zero = out.indexOf(0, at);
        const name = decoder.decode(out.subarray(at, zero));
        at = zero + 1 + 6; // table oid, column number
        const oid = out.readInt32BE(at);
        at += 4 + 2 + 4 + 2; // type oid, size, modifier, format
        fields.push({
          name,
          parse: pg.types.getTypeParser(oid, 'text') as (text: string) => unknown,
          bytea: oid === BYTEA || oid === BYTEA_ARRAY,
          binary: oid === BYTEA,
        });
      }
      statement.fields = fields;
      const bytea = fields.filter((f) => f.bytea).map((f) => f.name);
      statement.bytea = bytea.length > 0 ? bytea : undefined;
    } else if (code === 0x6e /* n NoData */) {
      statement.fields = [];
      statement.bytea = undefined;
    } else if (code === 0x45 /* E ErrorResponse */ && !error) {
      error = {};
      while (out[at] !== 0 && at < end) {
        const key = String.fromCharCode(out[at]!);
        const zero = out.indexOf(0, at + 1);
        const name = ERROR_FIELDS[key];
        if (name && (key !== 'S' || error.severity === undefined)) error[name] = decoder.decode(out.subarray(at + 1, zero));
        at = zero + 1;
      }
    }
    pos = end;
  }
  return { rows, parsed, error };
}


async function runQuery(request: QueryRequest): Promise<void> {
  let statement = request.stmt >= 0 ? statements.get(request.stmt) : undefined;
  if (!statement) {
    const text = request.text;
    if (text === undefined) {
      queryPort.postMessage({ id: request.id, error: { message: `unknown statement ${request.stmt}`, code: 'XX000' } } satisfies QueryReply);
      return;
    }
    const named = request.stmt >= 0;
    statement = { text, name: named ? `__wallet_q${request.stmt}` : '', prepared: false, fields: null };
    if (named) statements.set(request.stmt, statement);
  }
  let reply: QueryReply;
  try {
    let outcome = await runStatement(statement, request.values);
    // The session lost the statement (DEALLOCATE/DISCARD on a pooled connection) or its result
    // type changed (DDL): prepare it again once. Neither error ran the statement.
    if (outcome.error && statement.name && (outcome.error.code === '26000' || outcome.error.code === '0A000')) {
      statement.prepared = false;
      outcome = await runStatement(statement, request.values);
    }
    if (db.isInTransaction()) {
      // Database.query is for single statements: never leave the shared session inside a transaction.
      await db.exec('ROLLBACK').catch(() => {});
      outcome = { rows: [], parsed: outcome.parsed, error: { message: 'Database.query cannot open a transaction; use prisma.$transaction', code: '25000' } };
    }
    reply = outcome.error ? { id: request.id, error: outcome.error } : { id: request.id, rows: outcome.rows, bytea: statement.bytea };
  } catch (e) {
    reply = { id: request.id, error: { message: `PGlite: ${(e as Error).message}`, code: 'XX000' } };
  }
  queryPort.postMessage(reply);
}

async function runStatement(statement: Statement, values: QueryRequest['values']): Promise<Outcome> {
  const reparse = !statement.prepared || !statement.name;
  const out = await exec(batchFor(statement, values, reparse));
  const outcome = readReply(out, statement, !reparse);
  if (outcome.parsed && statement.name) statement.prepared = true;
  return outcome;
}

queryPort.on('message', (request: QueryRequest) => {
  if (stopping) {
    queryPort.postMessage({ id: request.id, error: { message: 'PGlite worker is closing', code: '57P01' } } satisfies QueryReply);
    return;
  }
  queue.push({ conn: undefined, request });
  drain();
});

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
  for (const job of queue.splice(0)) {
    if (!job.conn) queryPort.postMessage({ id: job.request.id, error: { message: 'PGlite worker is closing', code: '57P01' } } satisfies QueryReply);
  }
  queryPort.close();
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
  queryPort.close();
  port.close();
}
