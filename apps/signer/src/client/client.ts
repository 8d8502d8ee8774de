/**
 * The API's client of the signer: one persistent mutual-TLS connection speaking the RPC framing
 * (ALPN wallet-signer/2, or /1 with a signer of an older release; transport/frames.ts), opened on first use and opened again on the next call
 * after it broke (the signer restarted), so a client outlives signer restarts. Calls are multiplexed
 * by id; the calls made in one event-loop turn leave in one write. Every call has a deadline: a
 * signer that dies or stalls mid-request yields SignerUnavailableError, never a hang. Imports
 * nothing that touches keys (see ./index.ts).
 */
import { randomUUID } from 'node:crypto';
import tls, { type TLSSocket } from 'node:tls';
import { createFrameReader, createFrameWriter, decodePayload, encodeFrame, MAX_FRAME_ID, type PayloadForm } from '../transport/frames.ts';
import { DEFAULT_SERVER_NAME, HEALTH_METHOD, payloadFormOf, RPC_ALPNS, type ErrorBody } from '../transport/protocol.ts';

export interface SignerClientOptions {
  /** 'unix:/abs/path.sock' or 'https://host:port'. */
  url: string;
  /** PEM text: the CA that signed the signer's certificate, and this client's certificate and key. */
  tls: { ca: string; cert: string; key: string };
  /** The name the signer's certificate must carry (default 'wallet-signer'). */
  serverName?: string;
  /** Per call, connection included (default 10000). */
  timeoutMs?: number;
}

export interface SignerHealth {
  reachable: boolean;
  status?: string;
  latencyMs?: number;
}

export interface SignerClient {
  /**
   * `params` is read when its frame is written: at once on a connection that is up, else once the
   * handshake is done. Byte strings the caller wipes meanwhile go as copies (encodeVaultValue).
   */
  call<T>(method: string, params: unknown, requestId?: string): Promise<T>;
  health(): Promise<SignerHealth>;
  close(): Promise<void>;
}

/** The signer did not answer: connection refused, socket missing, TLS failure, timeout, connection lost mid-request. Whether a call that was in flight took effect is unknown. */
export class SignerUnavailableError extends Error {
  override name = 'SignerUnavailableError';
}

/** The signer answered with an error body. */
export class SignerRefusedError extends Error {
  override name = 'SignerRefusedError';
  constructor(
    public code: string,
    message: string,
    public status: number,
    public details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

type Target = { path: string } | { host: string; port: number };

function parseUrl(url: string): Target {
  if (url.startsWith('unix:')) {
    const path = url.slice('unix:'.length);
    if (!path.startsWith('/')) throw new Error(`signer url ${url}: the socket path must be absolute (unix:/path/signer.sock)`);
    return { path };
  }
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new Error(`signer url ${url}: expected unix:/abs/path.sock or https://host:port`);
  }
  if (parsed.protocol !== 'https:' || !parsed.port) throw new Error(`signer url ${url}: expected unix:/abs/path.sock or https://host:port`);
  return { host: parsed.hostname.replace(/^\[|\]$/g, ''), port: Number(parsed.port) };
}

const reasonOf = (error: unknown) => {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  return typeof code === 'string' ? code : error instanceof Error ? error.message : String(error);
};

interface Pending {
  resolve(answer: Answer): void;
  fail(error: Error): void;
}

type Answer = { status: number; result?: unknown; error?: ErrorBody['error'] };

/** An answer frame larger than this closes the connection (the signer's answers are a few KiB). */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024;

type Request = { method: string; requestId: string; params: unknown };

interface Connection {
  socket: TLSSocket;
  pending: Map<number, Pending>;
  /** Encodes and writes a call, or holds it until the handshake has said how byte strings travel. */
  write(id: number, request: Request): void;
}

export function createSignerClient(options: SignerClientOptions): SignerClient {
  const target = parseUrl(options.url);
  const serverName = options.serverName ?? DEFAULT_SERVER_NAME;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const where = 'path' in target ? options.url : `${target.host}:${target.port}`;
  let current: Connection | undefined;
  let closed = false;
  let nextId = 0;

  function connect(): Connection {
    if (current && !current.socket.destroyed) return current;
    const socket = tls.connect({
      ...target,
      ca: options.tls.ca,
      cert: options.tls.cert,
      key: options.tls.key,
      servername: serverName,
      ALPNProtocols: RPC_ALPNS,
      minVersion: 'TLSv1.3',
    });
    const writeFrame = createFrameWriter(socket);
    let form: PayloadForm | null = null;
    let held: Array<[number, Request]> = [];
    const encodeAndWrite = (id: number, request: Request) => {
      let frame: Buffer;
      try {
        frame = encodeFrame(id, request, form!);
      } catch (error) {
        const call = connection.pending.get(id);
        connection.pending.delete(id);
        if (connection.pending.size === 0) socket.unref();
        call?.fail(error as Error);
        return;
      }
      writeFrame(frame);
    };
    const connection: Connection = {
      socket,
      pending: new Map(),
      write(id, request) {
        if (form) encodeAndWrite(id, request);
        else held.push([id, request]);
      },
    };
    let lastError: unknown;
    const failAll = (error: Error) => {
      const calls = [...connection.pending.values()];
      connection.pending.clear();
      for (const call of calls) call.fail(error);
    };
    socket.once('secureConnect', () => {
      form = payloadFormOf(socket.alpnProtocol);
      if (!form) {
        lastError = new Error(`the signer did not agree on ${RPC_ALPNS.join(' or ')}`);
        socket.destroy();
        return;
      }
      const calls = held;
      held = [];
      for (const [id, request] of calls) if (connection.pending.has(id)) encodeAndWrite(id, request);
    });
    const read = createFrameReader(MAX_ANSWER_BYTES, {
      frame(id, payload) {
        const call = connection.pending.get(id);
        if (!call) return; // answered after its deadline
        connection.pending.delete(id);
        let answer: Answer | undefined;
        try {
          answer = decodePayload(payload) as Answer;
        } catch {
          /* reported below */
        }
        if (typeof answer !== 'object' || answer === null || typeof answer.status !== 'number') call.fail(new SignerRefusedError('SIGNER_BAD_RESPONSE', 'the signer answered with a frame that is not a JSON answer', 0));
        else call.resolve(answer);
        if (connection.pending.size === 0) socket.unref();
      },
      oversize(_id, length) {
        lastError = new Error(`the signer answered a frame of ${length} bytes`);
        socket.destroy();
      },
    });
    socket.on('data', read);
    socket.on('error', (error) => {
      lastError = error;
    });
    socket.once('close', () => {
      if (current === connection) current = undefined;
      const reason = lastError === undefined ? 'the connection to the signer closed before it answered' : `cannot reach the signer at ${where}: ${reasonOf(lastError)}`;
      failAll(new SignerUnavailableError(lastError === undefined ? `${reason} (${where})` : reason));
    });
    socket.unref();
    current = connection;
    return connection;
  }

  function send(method: string, params: unknown, requestId: string): Promise<Answer> {
    if (closed) return Promise.reject(new SignerUnavailableError('the signer client is closed'));
    let connection: Connection;
    try {
      connection = connect();
    } catch (error) {
      return Promise.reject(new SignerUnavailableError(`cannot reach the signer at ${where}: ${reasonOf(error)}`));
    }
    nextId = nextId >= MAX_FRAME_ID ? 1 : nextId + 1;
    const id = nextId;
    return new Promise<Answer>((resolve, reject) => {
      const timer = setTimeout(() => {
        if (!connection.pending.delete(id)) return;
        if (connection.pending.size === 0) connection.socket.unref();
        reject(new SignerUnavailableError(`the signer at ${where} did not answer within ${timeoutMs} ms`));
      }, timeoutMs);
      connection.pending.set(id, {
        resolve: (answer) => {
          clearTimeout(timer);
          resolve(answer);
        },
        fail: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      // Held (ref) while a call is in flight, released when the last one settles.
      if (connection.pending.size === 1) connection.socket.ref();
      connection.write(id, { method, requestId, params: params ?? null });
    });
  }

  async function call<T>(method: string, params: unknown, requestId?: string): Promise<T> {
    const answer = await send(method, params, requestId ?? randomUUID());
    if (answer.status === 200 && 'result' in answer) return answer.result as T;
    const error = answer.error;
    if (error && typeof error.code === 'string') throw new SignerRefusedError(error.code, String(error.message ?? error.code), answer.status, error.details);
    throw new SignerRefusedError('SIGNER_BAD_RESPONSE', `the signer answered ${answer.status} without a result or an error`, answer.status);
  }

  async function health(): Promise<SignerHealth> {
    const started = performance.now();
    try {
      const answer = await send(HEALTH_METHOD, null, randomUUID());
      const latencyMs = Math.round((performance.now() - started) * 10) / 10;
      const status = (answer.result as { status?: unknown } | undefined)?.status;
      if (answer.status === 200 && typeof status === 'string') return { reachable: true, status, latencyMs };
      return { reachable: true, status: `refused:${typeof answer.error?.code === 'string' ? answer.error.code : answer.status}`, latencyMs };
    } catch {
      return { reachable: false };
    }
  }

  async function close(): Promise<void> {
    closed = true;
    const connection = current;
    current = undefined;
    if (!connection || connection.socket.destroyed) return;
    // Calls in flight get up to a second to be answered, then the connection is cut.
    await new Promise<void>((resolve) => {
      connection.socket.once('close', () => resolve());
      const cut = setTimeout(() => connection.socket.destroy(), 1000);
      cut.unref();
      const end = () => (connection.pending.size === 0 ? connection.socket.end() : setTimeout(end, 5).unref());
      end();
    });
  }

  return { call, health, close };
}
