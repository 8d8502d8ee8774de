/**
 * A loopback HTTP proxy in front of a JSON-RPC endpoint whose behaviour can be switched at run time, for tests of
 * "the chain could not answer" paths against real devnets:
 * - 'pass'               forward every request unchanged;
 * - 'drop'               destroy the socket without answering;
 * - { delayMs, methods?, containing? } wait, then forward (with `methods`: only requests naming one of them; with
 *                        `containing`: only requests whose body contains that text, case-insensitive; others pass);
 * - 'http500'            answer HTTP 500;
 * - { failMethods }      answer JSON-RPC error -32603 for those methods only and forward the rest (batch arrays
 *                        element-wise: the other elements are forwarded as one batch and the answers merged in order).
 * `requests` counts HTTP requests received (whatever the mode).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RpcFaultMode = 'pass' | 'drop' | 'http500' | { delayMs: number; methods?: readonly string[]; containing?: string } | { failMethods: readonly string[] };

export interface RpcFaultProxy {
  url: string;
  setMode(mode: RpcFaultMode): void;
  /** HTTP requests received so far. */
  readonly requests: number;
  /** JSON-RPC methods seen so far, in arrival order (batch elements individually). */
  readonly methods: readonly string[];
  stop(): Promise<void>;
}

interface RpcRequest {
  id?: unknown;
  method?: unknown;
}

const internalError = (req: RpcRequest) => ({
  jsonrpc: '2.0',
  id: req.id ?? null,
  error: { code: -32603, message: `Internal error (injected by the fault proxy for ${String(req.method)})` },
});

export async function startRpcFaultProxy(targetUrl: string): Promise<RpcFaultProxy> {
  let mode: RpcFaultMode = 'pass';
  let requests = 0;
  const methods: string[] = [];
  let stopped = false;

  async function forward(body: string): Promise<{ status: number; contentType: string; text: string }> {
    const res = await fetch(targetUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return { status: res.status, contentType: res.headers.get('content-type') ?? 'application/json', text: await res.text() };
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    requests++;
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      parsed = undefined;
    }
    const named = (Array.isArray(parsed) ? parsed : [parsed]).map((r) => (r as RpcRequest | null)?.method).filter((m) => typeof m === 'string');
    methods.push(...named);
    const current = mode;
    const reply = (status: number, text: string, contentType = 'application/json') => {
      if (res.destroyed || res.writableEnded) return;
      res.writeHead(status, { 'content-type': contentType });
      res.end(text);
    };

    if (current === 'drop') {
      req.socket.destroy();
      return;
    }
    if (current === 'http500') return reply(500, 'Internal Server Error (injected by the fault proxy)', 'text/plain');
    const delayed =
      typeof current === 'object' &&
      'delayMs' in current &&
      (!current.methods || named.some((m) => current.methods!.includes(m))) &&
      (current.containing === undefined || body.toLowerCase().includes(current.containing.toLowerCase()));
    if (delayed) {
      await new Promise((r) => setTimeout(r, current.delayMs));
      if (res.destroyed || req.socket.destroyed) return; // the client gave up
    }
    if (typeof current === 'object' && 'failMethods' in current && parsed !== undefined) {
      const fail = new Set(current.failMethods);
      const failing = (r: unknown) => typeof (r as RpcRequest | null)?.method === 'string' && fail.has((r as RpcRequest).method as string);
      if (!Array.isArray(parsed)) {
        if (failing(parsed)) return reply(200, JSON.stringify(internalError(parsed as RpcRequest)));
      } else if (parsed.some(failing)) {
        const passOn = parsed.filter((r) => !failing(r));
        let answers: unknown[] = [];
        if (passOn.length > 0) {
          const fwd = await forward(JSON.stringify(passOn));
          if (fwd.status !== 200) return reply(fwd.status, fwd.text, fwd.contentType);
          const out = JSON.parse(fwd.text) as unknown;
          answers = Array.isArray(out) ? out : [out];
        }
        let next = 0;
        const merged = parsed.map((r) => (failing(r) ? internalError(r as RpcRequest) : answers[next++]));
        return reply(200, JSON.stringify(merged.filter((x) => x !== undefined)));
      }
    }
    const fwd = await forward(body);
    reply(fwd.status, fwd.text, fwd.contentType);
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (!res.headersSent && !res.destroyed) {
        res.writeHead(502, { 'content-type': 'text/plain' });
        res.end(`fault proxy could not reach the target: ${(e as Error)?.message ?? String(e)}`);
      } else if (!res.destroyed) res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    setMode(m) {
      mode = m;
    },
    get requests() {
      return requests;
    },
    get methods() {
      return methods;
    },
    async stop() {
      if (stopped) return;
      stopped = true;
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
