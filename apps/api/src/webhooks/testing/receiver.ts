/**
 * Test receiver for webhooks: a real HTTPS server on loopback with the committed test certificate
 * (localhost.pem, SAN localhost / 127.0.0.1 / ::1, signed by ca.pem; generated once with the
 * openssl CLI, valid 100 years). The service trusts ca.pem through WEBHOOK_CA_FILE (config), never
 * by turning certificate verification off.
 *
 * `verifyWebhook` is the receiver-side check written from the spec's rule alone (it does not use
 * the service's signing code): the message is `${webhook-timestamp}.${raw body}`, HMAC-SHA256 under
 * the webhook secret, base64, compared with each space-delimited `v1,` value; timestamps older than
 * five minutes are refused.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { RequestListener } from 'node:http';
import https from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
export const TEST_CA_FILE = path.join(here, 'ca.pem');
export const TEST_CA_PEM = readFileSync(TEST_CA_FILE, 'utf8');
const cert = readFileSync(path.join(here, 'localhost.pem'), 'utf8');
const key = readFileSync(path.join(here, 'localhost-key.pem'), 'utf8');

export interface ReceivedRequest {
  /** Arrival order at this receiver. */
  index: number;
  at: number;
  headers: Record<string, string>;
  rawBody: string;
  body: { id: string; type: string; createdAt: string; data: Record<string, unknown> };
}

/** What the receiver does with one request: answer with a status, hang (never answer), or drop the connection. */
export type Reaction = { status: number; delayMs?: number } | 'hang' | 'close';

export interface Receiver {
  url: string;
  port: number;
  requests: ReceivedRequest[];
  /** Decides the reaction per request (default: 204 at once). */
  react: (request: ReceivedRequest) => Reaction;
  /** Stops accepting (connections refused) while keeping the request log; `start()` listens again on the same port. */
  stop(): Promise<void>;
  start(): Promise<void>;
  close(): Promise<void>;
  /** Resolves when `predicate` holds over the received requests (polling), or rejects after `timeoutMs`. */
  waitFor(predicate: (requests: ReceivedRequest[]) => boolean, timeoutMs?: number): Promise<void>;
}

export async function startReceiver(options: { port?: number; host?: string } = {}): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const sockets = new Set<Socket>();
  const hanging = new Set<() => void>();
  const receiver: Receiver = {
    url: '',
    port: options.port ?? 0,
    requests: [],
    react: () => ({ status: 204 }),
    stop: async () => undefined,
    start: async () => undefined,
    close: async () => undefined,
    waitFor: async () => undefined,
  };
  let server: https.Server | undefined;

  const handler: RequestListener = (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]));
      let body: ReceivedRequest['body'];
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = { id: '', type: '', createdAt: '', data: {} };
      }
      const request: ReceivedRequest = { index: receiver.requests.length, at: Date.now(), headers, rawBody, body };
      receiver.requests.push(request);
      const reaction = receiver.react(request);
      if (reaction === 'close') {
        req.socket.destroy();
        return;
      }
      if (reaction === 'hang') {
        const end = () => res.destroy();
        hanging.add(end);
        res.on('close', () => hanging.delete(end));
        return;
      }
      const answer = () => {
        res.statusCode = reaction.status;
        res.end();
      };
      if (reaction.delayMs) setTimeout(answer, reaction.delayMs);
      else answer();
    });
  };

  receiver.start = async () => {
    server = https.createServer({ cert, key, keepAlive: true }, handler);
    server.on('connection', (socket: Socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve, reject) => {
      server!.once('error', reject);
      server!.listen(receiver.port, host, () => resolve());
    });
    receiver.port = (server.address() as AddressInfo).port;
    receiver.url = `https://${host.includes(':') ? `[${host}]` : host}:${receiver.port}/hooks`;
  };
  receiver.stop = async () => {
    if (!server) return;
    const closing = new Promise((resolve) => server!.close(resolve));
    for (const end of hanging) end();
    for (const socket of sockets) socket.destroy();
    await closing;
    server = undefined;
  };
  receiver.close = receiver.stop;
  receiver.waitFor = async (predicate, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(receiver.requests)) {
      if (Date.now() > deadline) throw new Error(`receiver: condition not met within ${timeoutMs} ms (${receiver.requests.length} requests)`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  await receiver.start();
  return receiver;
}

export const FIVE_MINUTES_S = 5 * 60;

/**
 * Receiver-side verification per the spec: returns which of `secrets` signed the request, or throws
 * with the reason (missing header, timestamp outside the tolerance, no matching signature).
 */
export function verifyWebhook(
  secrets: string[],
  headers: Record<string, string | undefined>,
  rawBody: string,
  nowSeconds = Math.floor(Date.now() / 1000),
): string[] {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) throw new Error('missing webhook headers');
  if (!/^\d+$/.test(timestamp)) throw new Error('bad timestamp');
  if (Math.abs(nowSeconds - Number(timestamp)) > FIVE_MINUTES_S) throw new Error('timestamp outside the 5-minute tolerance');
  const given = signatures
    .split(' ')
    .filter((part) => part.startsWith('v1,'))
    .map((part) => Buffer.from(part.slice(3), 'base64'));
  const matched = secrets.filter((secret) => {
    const expected = createHmac('sha256', secret).update(`${timestamp}.${rawBody}`).digest();
    return given.some((sig) => sig.length === expected.length && timingSafeEqual(sig, expected));
  });
  if (matched.length === 0) throw new Error('no valid signature');
  return matched;
}
