import type { IncomingMessage, ServerResponse } from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import type { PemPair } from './certificates.ts';

/** The headers of a delivery that are forwarded as they came (the signature covers the body only). */
export const FORWARDED_HEADERS = ['content-type', 'webhook-id', 'webhook-timestamp', 'webhook-signature'] as const;
/** The service sends envelopes well under this; anything larger is refused with 413. */
const MAX_BODY_BYTES = 1024 * 1024;

/** What the listener prints for each delivery: one JSON line on stdout. */
export interface ListenLine {
  receivedAt: string;
  webhookId: string | null;
  webhookTimestamp: string | null;
  /** The envelope `{id, type, createdAt, data}` as the service sent it. */
  event: unknown;
  /** null without --forward-to. */
  forward: { url: string; statusCode: number | null; latencyMs: number; error: string | null } | null;
}

export interface ListenerOptions {
  tls: PemPair;
  port: number;
  forwardTo: URL | null;
  forwardTimeoutMs: number;
  print: (line: ListenLine) => void;
  warn: (message: string) => void;
}

export interface Listener {
  url: string;
  close(): Promise<void>;
}

/**
 * The HTTPS endpoint on 127.0.0.1: each POST is printed and, with a forward URL, sent on with the
 * raw body and the webhook headers unchanged. It answers the service with the forward target's
 * status (so the service's retries apply to the developer's app), 502 when the target could not be
 * reached, 504 when it did not answer in time, and 200 without a forward URL.
 */
export async function startListener(options: ListenerOptions): Promise<Listener> {
  const server = https.createServer({ cert: options.tls.certPem, key: options.tls.keyPem }, (req, res) => {
    handle(req, res, options).catch((error: unknown) => {
      options.warn(`could not handle a request: ${(error as Error).message}`);
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  server.on('tlsClientError', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `https://127.0.0.1:${port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function handle(req: IncomingMessage, res: ServerResponse, options: ListenerOptions): Promise<void> {
  if (req.method !== 'POST') {
    res.writeHead(405, { allow: 'POST' }).end();
    return;
  }
  const body = await readBody(req);
  if (body === null) {
    res.writeHead(413).end();
    return;
  }
  let event: unknown;
  try {
    event = JSON.parse(body.toString('utf8'));
  } catch {
    options.warn('refused a POST whose body is not JSON (not a webhook delivery)');
    res.writeHead(400).end();
    return;
  }
  const header = (name: string) => {
    const value = req.headers[name];
    return typeof value === 'string' ? value : null;
  };
  const forward = options.forwardTo ? await forwardDelivery(options.forwardTo, body, header, options.forwardTimeoutMs) : null;
  options.print({
    receivedAt: new Date().toISOString(),
    webhookId: header('webhook-id'),
    webhookTimestamp: header('webhook-timestamp'),
    event,
    forward,
  });
  const status = !forward ? 200 : forward.statusCode ?? (forward.error?.startsWith('timeout') ? 504 : 502);
  res.writeHead(status).end();
}

function readBody(req: IncomingMessage): Promise<Buffer | null> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? null : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

async function forwardDelivery(
  target: URL,
  body: Buffer,
  header: (name: string) => string | null,
  timeoutMs: number,
): Promise<NonNullable<ListenLine['forward']>> {
  const headers: Record<string, string> = {};
  for (const name of FORWARDED_HEADERS) {
    const value = header(name);
    if (value !== null) headers[name] = value;
  }
  const started = performance.now();
  const latency = () => Math.round(performance.now() - started);
  try {
    const response = await fetch(target, { method: 'POST', headers, body: new Uint8Array(body), redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    await response.arrayBuffer().catch(() => undefined);
    const ok = response.status >= 200 && response.status < 300;
    return { url: target.toString(), statusCode: response.status, latencyMs: latency(), error: ok ? null : `HTTP ${response.status}` };
  } catch (error) {
    const reason = (error as Error).name === 'TimeoutError' ? `timeout after ${timeoutMs} ms` : describe(error as Error);
    return { url: target.toString(), statusCode: null, latencyMs: latency(), error: reason };
  }
}

function describe(error: Error): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ? `${cause.code}: ${cause.message ?? ''}`.trim() : error.message;
}
