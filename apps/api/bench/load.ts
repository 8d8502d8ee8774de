import net from 'node:net';

export interface LoadResult {
  requests: number;
  seconds: number;
  perSecond: number;
  p50: number;
  p99: number;
  statuses: Record<number, number>;
  /** Every answered request's latency in ms, sorted. */
  latencies: number[];
}

export interface LoadRequest {
  method: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

// The load generator runs in the bench process and competes for the same cores as the servers it
// measures, so it is a minimal HTTP/1.1 keep-alive client on raw sockets (about a third of
// node:http's client cost per request) used identically for every server in the run.

const CRLF_CRLF = Buffer.from('\r\n\r\n');
const CRLF = Buffer.from('\r\n');

function serialize(host: string, request: LoadRequest): Buffer {
  let head = `${request.method} ${request.path} HTTP/1.1\r\nHost: ${host}\r\nConnection: keep-alive\r\n`;
  for (const name in request.headers) head += `${name}: ${request.headers[name]}\r\n`;
  if (request.body === undefined) return Buffer.from(`${head}\r\n`, 'latin1');
  const body = Buffer.from(request.body);
  return Buffer.concat([Buffer.from(`${head}Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`, 'latin1'), body]);
}

/** One keep-alive connection, one request at a time. */
class Connection {
  private socket: net.Socket;
  private buffer: Buffer = Buffer.alloc(0);
  private waiter: { resolve: (status: number) => void; reject: (e: Error) => void } | undefined;
  private ready: Promise<void>;
  closed = false;

  constructor(port: number, host: string) {
    this.socket = net.connect({ port, host, noDelay: true });
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('connect', resolve);
      this.socket.once('error', reject);
    });
    this.socket.on('data', (chunk: Buffer) => this.onData(chunk));
    const fail = (e: Error) => {
      this.closed = true;
      const waiter = this.waiter;
      this.waiter = undefined;
      waiter?.reject(e);
    };
    this.socket.on('error', fail);
    this.socket.on('close', () => fail(new Error('connection closed by the server')));
  }

  async send(bytes: Buffer): Promise<number> {
    await this.ready;
    if (this.closed) throw new Error('connection closed by the server');
    return new Promise((resolve, reject) => {
      this.waiter = { resolve, reject };
      this.socket.write(bytes);
    });
  }

  private onData(chunk: Buffer) {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const end = this.buffer.indexOf(CRLF_CRLF);
    if (end < 0) return;
    const head = this.buffer.toString('latin1', 0, end);
    const status = Number(head.slice(9, 12));
    let consumed: number;
    const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(head);
    if (length) {
      consumed = end + 4 + Number(length[1]);
      if (this.buffer.length < consumed) return;
    } else if (/\r\ntransfer-encoding:[ \t]*chunked/i.test(head)) {
      let at = end + 4;
      for (;;) {
        const line = this.buffer.indexOf(CRLF, at);
        if (line < 0) return;
        const size = parseInt(this.buffer.toString('latin1', at, line), 16);
        at = line + 2 + size + 2;
        if (this.buffer.length < at) return;
        if (size === 0) break;
      }
      consumed = at;
    } else {
      consumed = end + 4; // no body (e.g. 204)
    }
    this.buffer = this.buffer.subarray(consumed);
    if (/\r\nconnection:[ \t]*close/i.test(head)) this.socket.end();
    const waiter = this.waiter;
    this.waiter = undefined;
    waiter?.resolve(status);
  }

  destroy() {
    this.closed = true;
    this.socket.destroy();
  }
}

/** Up to `max` connections; a request takes an idle one or opens another (like http.Agent with keepAlive). */
class Client {
  private idle: Connection[] = [];
  private all = new Set<Connection>();
  private host: string;
  private port: number;
  private hostHeader: string;

  constructor(baseUrl: string) {
    const url = new URL(baseUrl);
    this.host = url.hostname;
    this.port = Number(url.port);
    this.hostHeader = url.host;
  }

  async send(request: LoadRequest): Promise<number> {
    const bytes = serialize(this.hostHeader, request);
    let conn = this.idle.pop();
    while (conn?.closed) conn = this.idle.pop();
    if (!conn) {
      conn = new Connection(this.port, this.host);
      this.all.add(conn);
    }
    try {
      const status = await conn.send(bytes);
      if (!conn.closed) this.idle.push(conn);
      return status;
    } catch (e) {
      this.all.delete(conn);
      conn.destroy();
      throw e;
    }
  }

  destroy() {
    for (const conn of this.all) conn.destroy();
  }
}

function summary(latencies: number[], statuses: Record<number, number>, total: number, seconds: number): LoadResult {
  latencies.sort((a, b) => a - b);
  const pick = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
  return { requests: total, seconds, perSecond: total / seconds, p50: pick(0.5), p99: pick(0.99), statuses, latencies };
}

/** Closed-loop load: `concurrency` workers each send the next request as soon as the last answered. */
export async function closedLoop(
  baseUrl: string,
  total: number,
  concurrency: number,
  next: (i: number) => LoadRequest,
): Promise<LoadResult> {
  const client = new Client(baseUrl);
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  let issued = 0;
  const started = process.hrtime.bigint();
  async function worker() {
    while (issued < total) {
      const request = next(issued++);
      const t0 = process.hrtime.bigint();
      const status = await client.send(request);
      latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      statuses[status] = (statuses[status] ?? 0) + 1;
    }
  }
  try {
    await Promise.all(Array.from({ length: concurrency }, worker));
  } finally {
    client.destroy();
  }
  return summary(latencies, statuses, total, Number(process.hrtime.bigint() - started) / 1e9);
}

/**
 * Open-loop load: requests leave on a fixed schedule (`perSecond`), whether or not earlier ones
 * were answered, so a slow server shows up as latency instead of a lower send rate.
 */
export async function openLoop(
  baseUrl: string,
  perSecond: number,
  seconds: number,
  next: (i: number) => LoadRequest,
): Promise<LoadResult> {
  const client = new Client(baseUrl);
  const total = Math.round(perSecond * seconds);
  const latencies: number[] = [];
  const statuses: Record<number, number> = {};
  const started = process.hrtime.bigint();
  const pending: Promise<void>[] = [];
  try {
    for (let i = 0; i < total; i++) {
      const due = Number(started) + (i * 1e9) / perSecond;
      const wait = (due - Number(process.hrtime.bigint())) / 1e6;
      if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
      // Latency counts from the scheduled send time, so client-side lateness is not hidden (or from
      // the actual one when the timer let it leave up to 1 ms early).
      const scheduled = Math.min(due, Number(process.hrtime.bigint()));
      pending.push(
        client.send(next(i)).then((status) => {
          latencies.push((Number(process.hrtime.bigint()) - scheduled) / 1e6);
          statuses[status] = (statuses[status] ?? 0) + 1;
        }),
      );
    }
    await Promise.all(pending);
  } finally {
    client.destroy();
  }
  return summary(latencies, statuses, total, Number(process.hrtime.bigint() - started) / 1e9);
}
