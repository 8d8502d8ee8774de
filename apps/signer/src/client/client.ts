/**
 * The API's client of the signer: one persistent HTTP/2 session over mutual TLS, opened on first
 * use and opened again on the next call after it broke (the signer restarted), so a client outlives
 * signer restarts. Every call has a deadline: a signer that dies or stalls mid-request yields
 * SignerUnavailableError, never a hang. Imports nothing that touches keys (see ./index.ts).
 */
import { randomUUID } from 'node:crypto';
import http2, { type ClientHttp2Session, type IncomingHttpHeaders } from 'node:http2';
import tls from 'node:tls';
import { DEFAULT_SERVER_NAME, REQUEST_ID_HEADER, RPC_PREFIX, type ErrorBody } from '../transport/protocol.ts';

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
  fail(error: Error): void;
}

export function createSignerClient(options: SignerClientOptions): SignerClient {
  const target = parseUrl(options.url);
  const serverName = options.serverName ?? DEFAULT_SERVER_NAME;
  const timeoutMs = options.timeoutMs ?? 10_000;
  const where = 'path' in target ? options.url : `${target.host}:${target.port}`;
  let current: ClientHttp2Session | undefined;
  let closed = false;
  const inFlight = new Map<ClientHttp2Session, Set<Pending>>();

  function session(): ClientHttp2Session {
    if (current && !current.closed && !current.destroyed) return current;
    const created = http2.connect(`https://${serverName}`, {
      createConnection: () =>
        tls.connect({
          ...target,
          ca: options.tls.ca,
          cert: options.tls.cert,
          key: options.tls.key,
          servername: serverName,
          ALPNProtocols: ['h2'],
          minVersion: 'TLSv1.3',
        }),
    });
    inFlight.set(created, new Set());
    const forget = () => {
      if (current === created) current = undefined;
    };
    created.on('error', forget);
    created.on('goaway', forget);
    created.once('close', () => {
      forget();
      const pending = inFlight.get(created);
      inFlight.delete(created);
      for (const call of pending ?? []) call.fail(new SignerUnavailableError(`the connection to the signer at ${where} closed before it answered`));
    });
    created.unref();
    current = created;
    return created;
  }

  function request(headers: Record<string, string>, body: string | undefined): Promise<{ status: number; text: string }> {
    if (closed) return Promise.reject(new SignerUnavailableError('the signer client is closed'));
    return new Promise((resolve, reject) => {
      let settled = false;
      let active: ClientHttp2Session;
      const pending: Pending = { fail: (error) => settle(() => reject(error)) };
      const settle = (finish: () => void) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        const set = inFlight.get(active);
        set?.delete(pending);
        if (set?.size === 0 && !active.destroyed) active.unref();
        finish();
      };
      const timer = setTimeout(() => {
        pending.fail(new SignerUnavailableError(`the signer at ${where} did not answer within ${timeoutMs} ms`));
        try {
          stream?.close(http2.constants.NGHTTP2_CANCEL);
        } catch {
          /* already closed */
        }
      }, timeoutMs);
      let stream: http2.ClientHttp2Stream | undefined;
      try {
        active = session();
        const set = inFlight.get(active);
        // Held (ref) while a call is in flight, released by the last one to settle.
        if (set?.size === 0) active.ref();
        set?.add(pending);
        stream = active.request(headers, { endStream: body === undefined });
      } catch (error) {
        pending.fail(new SignerUnavailableError(`cannot reach the signer at ${where}: ${reasonOf(error)}`));
        return;
      }
      let status = 0;
      const chunks: Buffer[] = [];
      stream.on('response', (h: IncomingHttpHeaders) => {
        status = Number(h[':status']);
      });
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (status === 0) pending.fail(new SignerUnavailableError(`the signer at ${where} closed the request without an answer`));
        else settle(() => resolve({ status, text: Buffer.concat(chunks).toString('utf8') }));
      });
      stream.on('error', (error) => pending.fail(new SignerUnavailableError(`cannot reach the signer at ${where}: ${reasonOf(error)}`)));
      // 'close' follows every answered stream too: only build the error (a stack trace) when unanswered.
      stream.on('close', () => settled || pending.fail(new SignerUnavailableError(`the signer at ${where} closed the request without an answer`)));
      if (body !== undefined) stream.end(body);
    });
  }

  async function call<T>(method: string, params: unknown, requestId?: string): Promise<T> {
    const body = JSON.stringify({ params: params ?? null });
    const { status, text } = await request(
      { ':method': 'POST', ':path': `${RPC_PREFIX}${encodeURIComponent(method)}`, 'content-type': 'application/json', [REQUEST_ID_HEADER]: requestId ?? randomUUID() },
      body,
    );
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new SignerRefusedError('SIGNER_BAD_RESPONSE', `the signer answered ${status} with a body that is not JSON`, status);
    }
    if (status === 200 && typeof parsed === 'object' && parsed !== null && 'result' in parsed) return (parsed as { result: T }).result;
    const error = (parsed as Partial<ErrorBody> | null)?.error;
    if (error && typeof error.code === 'string') throw new SignerRefusedError(error.code, String(error.message ?? error.code), status, error.details);
    throw new SignerRefusedError('SIGNER_BAD_RESPONSE', `the signer answered ${status} without a result or an error`, status);
  }

  async function health(): Promise<SignerHealth> {
    const started = performance.now();
    try {
      const { status, text } = await request({ ':method': 'GET', ':path': '/health' }, undefined);
      const latencyMs = Math.round((performance.now() - started) * 10) / 10;
      let body: { status?: unknown; error?: { code?: unknown } } = {};
      try {
        body = JSON.parse(text) as typeof body;
      } catch {
        /* reported below */
      }
      if (status === 200 && typeof body.status === 'string') return { reachable: true, status: body.status, latencyMs };
      return { reachable: true, status: `refused:${typeof body.error?.code === 'string' ? body.error.code : status}`, latencyMs };
    } catch {
      return { reachable: false };
    }
  }

  async function close(): Promise<void> {
    closed = true;
    const sessions = [...inFlight.keys()];
    current = undefined;
    await Promise.all(
      sessions.map(
        (s) =>
          new Promise<void>((resolve) => {
            if (s.destroyed) return resolve();
            s.once('close', () => resolve());
            s.close();
            setTimeout(() => s.destroy(), 1000).unref();
          }),
      ),
    );
  }

  return { call, health, close };
}
