/**
 * What the signer's client and server agree on. One mutual-TLS listener (TLS 1.3), two protocols
 * chosen by ALPN:
 *
 *   wallet-signer/2   the RPC: length-prefixed frames of JSON with byte strings attached after it,
 *                     many calls in flight on one connection (frames.ts). The API's client offers
 *                     it first.
 *   wallet-signer/1   the same RPC with byte strings inline as base64, which releases before /2
 *                     speak: either side of a newer release falls back to it, so the API and the
 *                     signer can be upgraded one after the other.
 *   h2                HTTP/2 for operators' tools: GET /health 200 {"status": "ok", "uptimeSeconds",
 *                     "version"} and GET /metrics (Prometheus text).
 *
 * This module imports nothing that touches keys: the API's client entry loads it.
 */
import type { PayloadForm } from './frames.ts';
/** The `msg` of the one line the signer prints on stdout once it accepts requests. */
export const READY_MESSAGE = 'wallet signer listening';
/** ALPN names: the RPC framing (attachments, then its base64 form), and HTTP/2 for /health and /metrics. */
export const RPC_ALPN = 'wallet-signer/2';
export const RPC_ALPN_JSON = 'wallet-signer/1';
export const RPC_ALPNS = [RPC_ALPN, RPC_ALPN_JSON];
export const HTTP2_ALPN = 'h2';

/** How a connection that agreed on `alpn` writes byte strings; null when it is not the RPC. */
export function payloadFormOf(alpn: string | false | null | undefined): PayloadForm | null {
  return alpn === RPC_ALPN ? 'binary' : alpn === RPC_ALPN_JSON ? 'json' : null;
}
/** The RPC method the client's health() calls; not a handler name (METHOD_PATTERN starts with a letter). */
export const HEALTH_METHOD = '_health';
/** The name the signer's server certificate carries and clients verify by default. */
export const DEFAULT_SERVER_NAME = 'wallet-signer';
/** The client certificate CN the signer accepts by default. */
export const DEFAULT_CLIENT_NAME = 'wallet-api';
/** Method names: a short identifier, so they are safe as a path segment and a metric label. */
export const METHOD_PATTERN = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;
/** Request ids accepted from the client; anything else is replaced by a fresh one. */
export const REQUEST_ID_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;

export interface ErrorBody {
  error: { code: string; message: string; details?: Record<string, unknown> };
}

export type SignerListen = { socketPath: string } | { host: string; port: number };

/** `unix:/abs/path.sock`, `host:port` or `[v6]:port`. */
export function parseListen(text: string): SignerListen {
  if (text.startsWith('unix:')) {
    const socketPath = text.slice('unix:'.length);
    if (!socketPath.startsWith('/')) throw new Error(`${text}: a unix socket path must be absolute (unix:/path/signer.sock)`);
    return { socketPath };
  }
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^:[\]]+)):(\d{1,5})$/.exec(text);
  const port = match ? Number(match[3]) : NaN;
  if (!match || port < 1 || port > 65535) throw new Error(`${text}: expected unix:/abs/path.sock or host:port`);
  return { host: match[1] ?? match[2]!, port };
}

export function describeListen(listen: SignerListen): string {
  if ('socketPath' in listen) return listen.socketPath;
  return listen.host.includes(':') ? `[${listen.host}]:${listen.port}` : `${listen.host}:${listen.port}`;
}
