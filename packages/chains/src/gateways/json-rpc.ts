/**
 * Minimal JSON-RPC 2.0 over HTTP (node:http with kept-alive connections), shared by the EVM and Solana gateways.
 *
 * Transport failures (network error, time-out, HTTP non-2xx, unparsable body, missing response entry) and
 * "the server could not answer" errors become `ChainUnavailableError`; any other JSON-RPC error object is
 * returned/thrown as `JsonRpcError` so the gateway can decide what it means (a refusal, a revert...).
 */
import http from 'node:http';
import https from 'node:https';
import { ChainUnavailableError } from '@wallet/domain/transactions/gateways.ts';

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** A JSON-RPC error object returned by the node. */
export class JsonRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcError';
  }
}

export type RpcOutcome = { ok: true; result: unknown } | { ok: false; error: JsonRpcError };

/**
 * JSON-RPC error codes that mean "the server could not answer" rather than "the request is wrong" or "refused":
 * -32603 internal error, -32005 limit exceeded (EIP-1474) / node unhealthy (Solana); plus rate-limit and
 * time-out texts some providers send with other codes.
 */
const UNAVAILABLE_CODES = new Set([-32603, -32005]);
const UNAVAILABLE_MESSAGE = /rate limit|too many requests|capacity exceeded|request timed out|timeout|header not found|node is (behind|unhealthy)/i;

export function isUnavailableError(e: JsonRpcError): boolean {
  return UNAVAILABLE_CODES.has(e.code) || UNAVAILABLE_MESSAGE.test(e.message);
}

export interface JsonRpcClientOptions {
  url: string;
  timeoutMs: number;
  /** Used in error messages, e.g. "evm:84532". */
  label: string;
  /** Parse the response body (default JSON.parse); Solana needs u64-safe parsing. */
  parse?: (text: string) => unknown;
}

export class JsonRpcClient {
  private nextId = 1;

  constructor(private readonly opts: JsonRpcClientOptions) {}

  private async post(body: unknown): Promise<unknown> {
    const { url, timeoutMs, label } = this.opts;
    let answer: { status: number; text: string };
    try {
      answer = await postJson(url, JSON.stringify(body), timeoutMs);
    } catch (e) {
      const err = e as Error;
      const why = err.name === 'TimeoutError' ? `timed out after ${timeoutMs} ms` : err.message;
      throw new ChainUnavailableError(`${label} RPC unavailable: ${why}`);
    }
    const { status, text } = answer;
    if (status < 200 || status > 299) {
      throw new ChainUnavailableError(`${label} RPC unavailable: HTTP ${status} ${text.slice(0, 200)}`.trim());
    }
    try {
      return (this.opts.parse ?? JSON.parse)(text);
    } catch {
      throw new ChainUnavailableError(`${label} RPC unavailable: unparsable response ${JSON.stringify(text.slice(0, 200))}`);
    }
  }

  private outcome(entry: unknown): RpcOutcome {
    const r = (entry && typeof entry === 'object' ? entry : {}) as { result?: unknown; error?: unknown };
    if (r.error !== undefined && r.error !== null) {
      const e = (typeof r.error === 'object' ? r.error : { message: String(r.error) }) as { code?: unknown; message?: unknown; data?: unknown };
      const code = typeof e.code === 'number' ? e.code : Number(e.code ?? -32603);
      return { ok: false, error: new JsonRpcError(Number.isFinite(code) ? code : -32603, String(e.message ?? 'unknown error'), e.data) };
    }
    if (!('result' in r)) {
      throw new ChainUnavailableError(`${this.opts.label} RPC unavailable: malformed response entry ${JSON.stringify(entry)?.slice(0, 200)}`);
    }
    return { ok: true, result: r.result };
  }

  /** One request; returns the result or the JSON-RPC error (transport failures throw ChainUnavailableError). */
  async request(method: string, params: unknown[]): Promise<RpcOutcome> {
    const id = this.nextId++;
    const body = await this.post({ jsonrpc: '2.0', id, method, params });
    if (Array.isArray(body) || !body || typeof body !== 'object') {
      throw new ChainUnavailableError(`${this.opts.label} RPC unavailable: unexpected response to ${method}`);
    }
    return this.outcome(body);
  }

  /** One request whose JSON-RPC errors are all "unavailable" unless they are client errors (bad params...). */
  async read<T = unknown>(method: string, params: unknown[]): Promise<T> {
    return this.unwrap(method, await this.request(method, params)) as T;
  }

  /** Several calls in ONE HTTP request (a JSON-RPC batch array); outcomes in input order. */
  async batch(calls: readonly RpcCall[]): Promise<RpcOutcome[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = await this.post(calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params })));
    if (!Array.isArray(body)) {
      // A single error object (batch refused, rate limited...) or garbage.
      const e = body && typeof body === 'object' ? (body as { error?: { message?: unknown } }).error : undefined;
      throw new ChainUnavailableError(`${this.opts.label} RPC unavailable: batch not answered${e ? `: ${String(e.message)}` : ''}`);
    }
    const byId = new Map<number, unknown>();
    for (const entry of body) {
      const id = (entry as { id?: unknown } | null)?.id;
      if (typeof id === 'number') byId.set(id, entry);
      else if (typeof id === 'string' && /^\d+$/.test(id)) byId.set(Number(id), entry);
    }
    return calls.map((c, i) => {
      const entry = byId.get(first + i);
      if (entry === undefined) throw new ChainUnavailableError(`${this.opts.label} RPC unavailable: no response for ${c.method} in batch`);
      return this.outcome(entry);
    });
  }

  /** A batch of reads: every JSON-RPC error is unavailability except client errors, which throw JsonRpcError. */
  async readBatch(calls: readonly RpcCall[]): Promise<unknown[]> {
    const out = await this.batch(calls);
    return out.map((o, i) => this.unwrap(calls[i]!.method, o));
  }

  /** Result of a read, or the error: client errors (-32600/-32601/-32602/-32700) as JsonRpcError, the rest as unavailability. */
  unwrap(method: string, o: RpcOutcome): unknown {
    if (o.ok) return o.result;
    const { code, message } = o.error;
    if (code === -32700 || code === -32600 || code === -32601 || code === -32602) {
      throw new JsonRpcError(code, `${this.opts.label} ${method}: ${message}`, o.error.data);
    }
    throw new ChainUnavailableError(`${this.opts.label} RPC unavailable: ${method} failed (${code}: ${message})`);
  }
}

/**
 * Connections are kept open between requests. node:http rather than fetch: under a burst of RPC
 * calls (50 wallets preparing at once) fetch's web streams cost about three times the CPU per
 * request, on the same thread that serves the API.
 */
const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

/** POSTs a JSON body; the whole exchange (connect, send, read) within `timeoutMs`, else a TimeoutError. */
function postJson(url: string, body: string, timeoutMs: number): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const client = target.protocol === 'https:' ? https : http;
    const agent = agents[target.protocol as keyof typeof agents];
    if (!agent) return reject(new Error(`unsupported RPC URL scheme ${target.protocol}`));
    const request = client.request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (response) => {
      response.setEncoding('utf8');
      let text = '';
      response.on('data', (chunk: string) => (text += chunk));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, text });
      });
      response.on('error', fail);
    });
    const timer = setTimeout(() => request.destroy(Object.assign(new Error(`timed out after ${timeoutMs} ms`), { name: 'TimeoutError' })), timeoutMs);
    function fail(error: Error) {
      clearTimeout(timer);
      reject(error);
    }
    request.on('error', fail);
    request.end(body);
  });
}
