/**
 * A loopback HTTP proxy in front of a JSON-RPC endpoint whose behaviour can be switched at run time, for tests of
 * "the chain could not answer" paths against real devnets:
 * - 'pass'               forward every request unchanged;
 * - 'drop'               destroy the socket without answering;
 * - { delayMs, methods?, containing? } wait, then forward (with `methods`: only requests naming one of them; with
 *                        `containing`: only requests whose body contains that text, case-insensitive; others pass);
 * - 'http500'            answer HTTP 500;
 * - { failMethods }      answer JSON-RPC error -32603 for those methods only and forward the rest (batch arrays
 *                        element-wise: the other elements are forwarded as one batch and the answers merged in order);
 * - { revertCalls, containing } the next `revertCalls` eth_calls whose params contain that text (case-insensitive)
 *                        answer a revert with Panic(0x11) (element-wise as above); the mode object counts them down.
 * `requests` counts HTTP requests received (whatever the mode).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type RpcFaultMode =
  | 'pass'
  | 'drop'
  | 'http500'
  | { delayMs: number; methods?: readonly string[]; containing?: string }
  | { failMethods: readonly string[] }
  | { revertCalls: number; containing: string };

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
  params?: unknown;
}

/** The revert data of Solidity's Panic(0x11) (arithmetic underflow or overflow). */
const PANIC_0X11 = `0x4e487b71${'11'.padStart(64, '0')}`;

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

  /** For the modes that answer some elements here: the answer for one, or null to forward it. */
  function injection(current: Exclude<RpcFaultMode, string>): ((r: RpcRequest) => object | null) | null {
    if ('failMethods' in current) {
      const fail = new Set(current.failMethods);
      return (r) => (typeof r?.method === 'string' && fail.has(r.method) ? internalError(r) : null);
    }
    if ('revertCalls' in current) {
      return (r) => {
        if (current.revertCalls <= 0 || r?.method !== 'eth_call' || !JSON.stringify(r.params).toLowerCase().includes(current.containing.toLowerCase())) return null;
        current.revertCalls--;
        return { jsonrpc: '2.0', id: r.id ?? null, error: { code: 3, message: 'execution reverted: panic: arithmetic underflow or overflow (0x11) (injected by the fault proxy)', data: PANIC_0X11 } };
      };
    }
    return null;
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
    // Element-wise answers made here (failMethods, revertCalls); the other elements are forwarded.
    const injected = typeof current === 'object' && parsed !== undefined ? injection(current) : null;
    if (injected) {
      const answers = (Array.isArray(parsed) ? parsed : [parsed]).map((r) => injected(r as RpcRequest));
      if (answers.some((a) => a !== null)) {
        if (!Array.isArray(parsed)) return reply(200, JSON.stringify(answers[0]));
        const passOn = parsed.filter((_, i) => answers[i] === null);
        let forwarded: unknown[] = [];
        if (passOn.length > 0) {
          const fwd = await forward(JSON.stringify(passOn));
          if (fwd.status !== 200) return reply(fwd.status, fwd.text, fwd.contentType);
          const out = JSON.parse(fwd.text) as unknown;
          forwarded = Array.isArray(out) ? out : [out];
        }
        let next = 0;
        const merged = answers.map((a) => a ?? forwarded[next++]);
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
