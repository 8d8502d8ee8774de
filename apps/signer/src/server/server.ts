/**
 * The signer's listener: HTTP/2 over mutual TLS (node:http2), on a Unix domain socket locally or
 * TCP across hosts; see transport/protocol.ts for the routes and README.md for why this transport.
 *
 * Who gets in: only a client whose certificate is signed by `tls.ca` completes the handshake
 * (requestCert + rejectUnauthorized, TLS 1.3 only), and only one whose certificate CN is in
 * `allowedClientNames` gets an answer other than 403 SIGNER_CLIENT_NOT_ALLOWED. Every refusal is
 * logged (rate limited) with the peer and the reason, and counted.
 *
 * The error rule: a handler's SignerError is answered as it is (its author chose what it says).
 * Anything else is answered 500 SIGNER_INTERNAL with a fixed message, and logged as the error's
 * name (and code when it is an ERR_-style identifier) plus the first stack frame: never its
 * message nor the whole stack, since a message may quote a key, a share or a plaintext. A handler
 * that needs more in the log must log it itself, having checked it is not secret.
 */
import { randomUUID } from 'node:crypto';
import http2, { type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { unlinkSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { DEFAULT_CLIENT_NAME, METHOD_PATTERN, REQUEST_ID_HEADER, REQUEST_ID_PATTERN, RPC_PREFIX, describeListen, type SignerListen } from '../transport/protocol.ts';
import { chmodSocket, prepareSocketPath, withPrivateUmask } from '../transport/unix-socket.ts';
import { isSignerError, SignerError } from './errors.ts';
import { MetricsRegistry, RateLimitedLog, type RequestOutcome, type SignerMetrics, type StoreStats } from './metrics.ts';

export { SignerError, isSignerError };
export type { SignerMetrics, StoreStats };

export type SignerHandler = (params: unknown, context: { requestId: string; client: string }) => Promise<unknown>;

export interface ServerLogger {
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface SignerServerOptions {
  listen: SignerListen;
  /** PEM text. */
  tls: { ca: string; cert: string; key: string };
  /** Accepted client certificate CNs (default ['wallet-api']). */
  allowedClientNames?: string[];
  handlers: Record<string, SignerHandler>;
  logger: ServerLogger;
  /** Default 1 MiB; a larger body is answered 413. */
  maxBodyBytes?: number;
  /** Reported by GET /health (default '0.0.0'). */
  version?: string;
  /** The store's counters for GET /metrics. */
  storeStats?: () => StoreStats;
  /** How long close() lets requests in flight finish before cutting them (default 5000 ms). */
  closeGraceMs?: number;
}

export interface SignerServer {
  /** The socket path, or host:port (the real port when 0 was asked). */
  address: string;
  close(): Promise<void>;
  metrics(): SignerMetrics;
}

const DEFAULT_MAX_BODY = 1024 * 1024;

/** The first `at ...` line of a stack: where it was thrown, without the message. */
export function firstFrame(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined;
  const line = stack.split('\n').find((l) => /^\s+at /.test(l));
  return line?.trim().slice(0, 300);
}

/** The part of an unexpected error that may be logged: name (an identifier) and an ERR_-style code. */
export function loggableError(error: unknown): { errorName: string; errorCode?: string; frame?: string } {
  const name = error instanceof Error && /^[A-Za-z_$][\w$.]{0,63}$/.test(error.name) ? error.name : 'non-Error value';
  const code = (error as { code?: unknown } | null)?.code;
  return {
    errorName: name,
    ...(typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? { errorCode: code } : {}),
    ...(error instanceof Error ? { frame: firstFrame(error.stack) } : {}),
  };
}

function peerOf(socket: TLSSocket | undefined, listen: SignerListen): string {
  if ('socketPath' in listen) return `unix:${listen.socketPath}`;
  return socket?.remoteAddress ? `${socket.remoteAddress}:${socket.remotePort}` : 'unknown peer';
}

function commonName(socket: TLSSocket): string | undefined {
  const cn = socket.getPeerCertificate()?.subject?.CN as string | string[] | undefined;
  return Array.isArray(cn) ? cn[0] : cn;
}

export async function startSignerServer(options: SignerServerOptions): Promise<SignerServer> {
  const { listen, logger, handlers } = options;
  const allowed = new Set(options.allowedClientNames ?? [DEFAULT_CLIENT_NAME]);
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY;
  const version = options.version ?? '0.0.0';
  const startedAt = Date.now();
  const metrics = new MetricsRegistry(options.storeStats);
  const refusalLog = new RateLimitedLog((obj, msg) => logger.warn(obj, msg));
  const clients = new WeakMap<Http2Session, { name: string | undefined; allowed: boolean }>();
  const sessions = new Set<Http2Session>();

  const server = http2.createSecureServer({
    ca: options.tls.ca,
    cert: options.tls.cert,
    key: options.tls.key,
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.3',
    allowHTTP1: false,
  });

  server.on('tlsClientError', (error: NodeJS.ErrnoException & { reason?: string }, socket: TLSSocket) => {
    const reason = typeof error.code === 'string' ? error.code : 'TLS_ERROR';
    metrics.recordRefusedConnection('tls_handshake');
    // error.reason is OpenSSL's reason text ("peer did not return a certificate"): no secret in it.
    refusalLog.write({ peer: peerOf(socket, listen), reason, detail: typeof error.reason === 'string' ? error.reason : undefined }, 'signer refused a connection: TLS handshake failed');
  });

  server.on('session', (session: Http2Session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    session.on('error', () => {
      /* a peer resetting its connection; streams report their own errors */
    });
    const socket = session.socket as unknown as TLSSocket;
    const name = commonName(socket);
    const ok = name !== undefined && allowed.has(name);
    clients.set(session, { name, allowed: ok });
    if (!ok) {
      metrics.recordRefusedConnection('client_not_allowed');
      refusalLog.write({ peer: peerOf(socket, listen), reason: 'CLIENT_NOT_ALLOWED', clientName: name ?? null }, 'signer refused a connection: client certificate name not allowed');
    }
  });

  server.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', () => {
      /* the client went away; nothing to answer */
    });
    void handleStream(stream, headers).catch((error: unknown) => {
      logger.error({ ...loggableError(error) }, 'signer failed to answer a request');
      respond(stream, 500, { error: { code: 'SIGNER_INTERNAL', message: 'internal signer error' } });
    });
  });

  async function handleStream(stream: ServerHttp2Stream, headers: IncomingHttpHeaders): Promise<void> {
    const client = clients.get(stream.session!);
    if (!client?.allowed) {
      stream.resume();
      respond(stream, 403, { error: { code: 'SIGNER_CLIENT_NOT_ALLOWED', message: 'this client certificate is not allowed to use the signer' } });
      return;
    }
    const method = headers[':method'];
    const path = headers[':path'] ?? '';
    if (method === 'GET' && path === '/health') {
      stream.resume();
      respond(stream, 200, { status: 'ok', uptimeSeconds: Math.round((Date.now() - startedAt) / 1000), version });
      return;
    }
    if (method === 'GET' && path === '/metrics') {
      stream.resume();
      respondText(stream, 200, metrics.prometheus(), 'text/plain; version=0.0.4');
      return;
    }
    if (method !== 'POST' || !path.startsWith(RPC_PREFIX)) {
      stream.resume();
      respond(stream, 404, { error: { code: 'NOT_FOUND', message: 'no such route' } });
      return;
    }
    await handleRpc(stream, headers, path.slice(RPC_PREFIX.length), client.name!);
  }

  async function handleRpc(stream: ServerHttp2Stream, headers: IncomingHttpHeaders, method: string, clientName: string): Promise<void> {
    const started = process.hrtime.bigint();
    const headerId = headers[REQUEST_ID_HEADER];
    const requestId = typeof headerId === 'string' && REQUEST_ID_PATTERN.test(headerId) ? headerId : randomUUID();
    const known = METHOD_PATTERN.test(method) && Object.hasOwn(handlers, method);
    const label = known ? method : '_unknown';
    const finish = (outcome: RequestOutcome, status: number, body: unknown) => {
      metrics.recordRequest(label, outcome, Number(process.hrtime.bigint() - started) / 1e9);
      respond(stream, status, body, requestId);
    };
    if (!known) {
      stream.resume();
      finish('unknown_method', 404, { error: { code: 'UNKNOWN_METHOD', message: 'unknown signer method' } });
      return;
    }
    const body = await readBody(stream, maxBodyBytes);
    if (body === 'too-large') {
      finish('bad_request', 413, { error: { code: 'BODY_TOO_LARGE', message: `request body above ${maxBodyBytes} bytes` } });
      return;
    }
    if (body === 'aborted') {
      metrics.recordRequest(label, 'bad_request', Number(process.hrtime.bigint() - started) / 1e9);
      return;
    }
    let params: unknown;
    try {
      const parsed = JSON.parse(body.toString('utf8')) as unknown;
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      params = (parsed as { params?: unknown }).params;
    } catch {
      finish('bad_request', 400, { error: { code: 'BAD_REQUEST', message: 'the body must be a JSON object {"params": ...}' } });
      return;
    }
    try {
      const result = await handlers[method]!(params, { requestId, client: clientName });
      finish('ok', 200, { result: result ?? null });
    } catch (error) {
      if (isSignerError(error)) {
        const status = Number.isInteger(error.status) && error.status >= 400 && error.status <= 599 ? error.status : 400;
        finish('refused', status, { error: { code: error.code, message: error.message, ...(error.details ? { details: error.details } : {}) } });
        return;
      }
      logger.error({ method, requestId, ...loggableError(error) }, 'signer handler failed');
      finish('error', 500, { error: { code: 'SIGNER_INTERNAL', message: 'internal signer error' } });
    }
  }

  if ('socketPath' in listen) {
    const { tightenedDir } = await prepareSocketPath(listen.socketPath);
    if (tightenedDir) logger.warn({ dir: listen.socketPath }, 'signer socket directory was accessible by others: set to mode 0700');
  }
  await new Promise<void>((resolve, reject) => {
    const onError = (error: Error) => reject(error);
    server.once('error', onError);
    const done = () => {
      server.off('error', onError);
      resolve();
    };
    if ('socketPath' in listen) withPrivateUmask(() => server.listen(listen.socketPath, done));
    else server.listen(listen.port, listen.host, done);
  });
  server.on('error', (error) => logger.error({ ...loggableError(error) }, 'signer listener error'));
  if ('socketPath' in listen) chmodSocket(listen.socketPath);

  const bound = server.address();
  const address = 'socketPath' in listen ? listen.socketPath : describeListen({ host: listen.host, port: (bound as AddressInfo).port });

  let closing: Promise<void> | undefined;
  return {
    address,
    metrics: () => metrics.snapshot(),
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => {
          if ('socketPath' in listen) {
            try {
              unlinkSync(listen.socketPath);
            } catch {
              /* already gone */
            }
          }
          resolve();
        });
        for (const session of sessions) session.close();
        const timer = setTimeout(() => {
          for (const session of sessions) session.destroy();
        }, options.closeGraceMs ?? 5000);
        timer.unref();
      });
      return closing;
    },
  };
}

function readBody(stream: ServerHttp2Stream, max: number): Promise<Buffer | 'too-large' | 'aborted'> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const settle = (value: Buffer | 'too-large' | 'aborted') => {
      if (settled) return;
      settled = true;
      resolve(value);
    };
    stream.on('data', (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > max) {
        chunks.length = 0;
        settle('too-large');
        return;
      }
      chunks.push(chunk);
    });
    stream.once('end', () => settle(Buffer.concat(chunks)));
    stream.once('close', () => settle('aborted'));
  });
}

function respond(stream: ServerHttp2Stream, status: number, body: unknown, requestId?: string): void {
  respondText(stream, status, JSON.stringify(body), 'application/json', requestId);
}

function respondText(stream: ServerHttp2Stream, status: number, text: string, contentType: string, requestId?: string): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  try {
    stream.respond({ ':status': status, 'content-type': contentType, ...(requestId ? { [REQUEST_ID_HEADER]: requestId } : {}) });
    stream.end(text);
    // A body we stopped reading (413, refusals) must not keep the stream open.
    stream.once('finish', () => {
      if (!stream.closed && !stream.readableEnded) stream.close(http2.constants.NGHTTP2_NO_ERROR);
    });
  } catch {
    /* the stream closed meanwhile */
  }
}
