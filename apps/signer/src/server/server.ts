/**
 * The signer's listener: one mutual-TLS listener (node:tls, TLS 1.3 only) on a Unix domain socket
 * locally or TCP across hosts, carrying two protocols chosen by ALPN (transport/protocol.ts): the
 * RPC framing the API's client speaks (rpc-connection.ts), and HTTP/2 for GET /health and
 * GET /metrics (operators' tools). README.md says why this transport.
 *
 * Who gets in: only a client whose certificate is signed by `tls.ca` completes the handshake
 * (requestCert + rejectUnauthorized), and only one whose certificate CN is in `allowedClientNames`
 * gets an answer other than 403 SIGNER_CLIENT_NOT_ALLOWED. Every refusal is logged (rate limited)
 * with the peer and the reason, and counted.
 */
import http2, { type Http2Session, type IncomingHttpHeaders, type ServerHttp2Stream } from 'node:http2';
import { unlinkSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import tls, { type TLSSocket } from 'node:tls';
import { DEFAULT_CLIENT_NAME, HTTP2_ALPN, RPC_ALPN, RPC_ALPN_JSON, RPC_ALPNS, describeListen, payloadFormOf, type SignerListen } from '../transport/protocol.ts';
import { chmodSocket, prepareSocketPath, withPrivateUmask } from '../transport/unix-socket.ts';
import { firstFrame, isSignerError, loggableError, SignerError } from './errors.ts';
import { MetricsRegistry, RateLimitedLog, type SignerMetrics, type StoreStats } from './metrics.ts';
import { serveRpcConnection, type ConnectedClient, type RpcConnection } from './rpc-connection.ts';

export { SignerError, isSignerError, firstFrame, loggableError };
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
  const health = () => ({ status: 'ok', uptimeSeconds: Math.round((Date.now() - startedAt) / 1000), version });
  const rpcConnections = new Set<RpcConnection>();
  const sessions = new Set<Http2Session>();
  const httpClients = new WeakMap<Http2Session, ConnectedClient>();

  const server = tls.createServer({
    ca: options.tls.ca,
    cert: options.tls.cert,
    key: options.tls.key,
    requestCert: true,
    rejectUnauthorized: true,
    minVersion: 'TLSv1.3',
    ALPNProtocols: [...RPC_ALPNS, HTTP2_ALPN],
  });

  server.on('tlsClientError', (error: NodeJS.ErrnoException & { reason?: string }, socket: TLSSocket) => {
    const reason = typeof error.code === 'string' ? error.code : 'TLS_ERROR';
    metrics.recordRefusedConnection('tls_handshake');
    // error.reason is OpenSSL's reason text ("peer did not return a certificate"): no secret in it.
    refusalLog.write({ peer: peerOf(socket, listen), reason, detail: typeof error.reason === 'string' ? error.reason : undefined }, 'signer refused a connection: TLS handshake failed');
  });

  server.on('secureConnection', (socket: TLSSocket) => {
    socket.on('error', () => {
      /* a peer resetting its connection */
    });
    const name = commonName(socket);
    const client: ConnectedClient = { name, allowed: name !== undefined && allowed.has(name) };
    if (!client.allowed) {
      metrics.recordRefusedConnection('client_not_allowed');
      refusalLog.write({ peer: peerOf(socket, listen), reason: 'CLIENT_NOT_ALLOWED', clientName: name ?? null }, 'signer refused a connection: client certificate name not allowed');
    }
    const form = payloadFormOf(socket.alpnProtocol);
    if (form) {
      const connection = serveRpcConnection(socket, client, form, { handlers, logger, metrics, maxBodyBytes, health });
      rpcConnections.add(connection);
      socket.once('close', () => rpcConnections.delete(connection));
      if (closing) connection.endWhenIdle();
      return;
    }
    if (socket.alpnProtocol === HTTP2_ALPN) {
      http.emit('connection', socket);
      return;
    }
    metrics.recordRefusedConnection('no_protocol');
    refusalLog.write({ peer: peerOf(socket, listen), reason: 'NO_PROTOCOL' }, `signer refused a connection: no ALPN protocol (${RPC_ALPN}, ${RPC_ALPN_JSON} or ${HTTP2_ALPN})`);
    socket.destroy();
  });

  // HTTP/2 on the sockets TLS already opened: only GET /health and GET /metrics.
  const http = http2.createServer();
  http.on('session', (session: Http2Session) => {
    const name = commonName(session.socket as unknown as TLSSocket);
    httpClients.set(session, { name, allowed: name !== undefined && allowed.has(name) });
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
    session.on('error', () => {
      /* a peer resetting its connection */
    });
  });
  http.on('stream', (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.on('error', () => {
      /* the client went away; nothing to answer */
    });
    stream.resume();
    const client = httpClients.get(stream.session!);
    if (!client?.allowed) return respond(stream, 403, { error: { code: 'SIGNER_CLIENT_NOT_ALLOWED', message: 'this client certificate is not allowed to use the signer' } });
    const method = headers[':method'];
    const path = headers[':path'] ?? '';
    if (method === 'GET' && path === '/health') return respond(stream, 200, health());
    if (method === 'GET' && path === '/metrics') return respondText(stream, 200, metrics.prometheus(), 'text/plain; version=0.0.4');
    respond(stream, 404, { error: { code: 'NOT_FOUND', message: `no such route: the RPC is ALPN ${RPC_ALPN}, HTTP/2 serves GET /health and GET /metrics` } });
  });

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
        for (const connection of rpcConnections) connection.endWhenIdle();
        const timer = setTimeout(() => {
          for (const session of sessions) session.destroy();
          for (const connection of rpcConnections) connection.destroy();
        }, options.closeGraceMs ?? 5000);
        timer.unref();
      });
      return closing;
    },
  };
}

function respond(stream: ServerHttp2Stream, status: number, body: unknown): void {
  respondText(stream, status, JSON.stringify(body), 'application/json');
}

function respondText(stream: ServerHttp2Stream, status: number, text: string, contentType: string): void {
  if (stream.destroyed || stream.closed || stream.headersSent) return;
  try {
    stream.respond({ ':status': status, 'content-type': contentType });
    stream.end(text);
    // A request body we did not read must not keep the stream open.
    stream.once('finish', () => {
      if (!stream.closed && !stream.readableEnded) stream.close(http2.constants.NGHTTP2_NO_ERROR);
    });
  } catch {
    /* the stream closed meanwhile */
  }
}
