import { WalletNetworkError } from './errors.ts';

export interface RetryOptions {
  /** Retries after the first attempt (default 3; 0 turns retrying off). */
  maxRetries?: number;
  /** First backoff delay; doubles per retry, with jitter (default 250 ms). */
  baseDelayMs?: number;
  /** Upper bound of any wait, including a `Retry-After` (default 30 s). */
  maxDelayMs?: number;
}

export const DEFAULT_RETRY = { maxRetries: 3, baseDelayMs: 250, maxDelayMs: 30_000 } as const satisfies Required<RetryOptions>;

/** Statuses worth another attempt: rate limited, and temporarily unavailable. Nothing else is retried. */
const RETRIED_STATUSES = new Set([429, 503]);

/** Exponential backoff with jitter: `baseDelayMs × 2^retry`, capped, scaled by a random factor in [0.5, 1]. */
export function backoffMs(retry: number, { baseDelayMs, maxDelayMs }: Required<RetryOptions>, random = Math.random): number {
  return Math.min(maxDelayMs, baseDelayMs * 2 ** retry) * (0.5 + random() / 2);
}

/** A `Retry-After` value (delay seconds or an HTTP-date) in milliseconds from `now`; undefined when absent or unreadable. */
export function retryAfterMs(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP-date names its weekday and month (Date.parse would also read e.g. "-1" as a year).
  const at = /^[A-Za-z]{3}, /.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** fetch's network failures are TypeErrors ("fetch failed", the socket error as `cause`); an abort is not one. */
function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * The fetch the client hands to openapi-fetch: adds `X-API-Key`, gives every POST an
 * `Idempotency-Key` (a uuid, unless the caller set one) that every retry of the call reuses, and
 * retries network failures, 429 and 503 with backoff (a `Retry-After` is honoured, capped at
 * `maxDelayMs`). The body is read once, so each attempt sends the same bytes.
 */
export function retryingFetch({ apiKey, fetch: inner = globalThis.fetch, retry = {} }: { apiKey: string; fetch?: (request: Request) => Promise<Response>; retry?: RetryOptions }) {
  const settings: Required<RetryOptions> = { ...DEFAULT_RETRY, ...retry };
  return async (request: Request): Promise<Response> => {
    const headers = new Headers(request.headers);
    headers.set('x-api-key', apiKey);
    if (request.method === 'POST' && !headers.has('idempotency-key')) headers.set('idempotency-key', globalThis.crypto.randomUUID());
    const body = request.body === null ? undefined : await request.arrayBuffer();
    const path = new URL(request.url).pathname;
    for (let attempt = 0; ; attempt++) {
      const canRetry = attempt < settings.maxRetries;
      let response: Response;
      try {
        response = await inner(new Request(request.url, { method: request.method, headers, body, signal: request.signal, redirect: request.redirect }));
      } catch (error) {
        if (request.signal.aborted || !isNetworkError(error)) throw error;
        if (!canRetry) throw new WalletNetworkError(request.method, path, attempt + 1, error);
        await sleep(backoffMs(attempt, settings), request.signal);
        continue;
      }
      if (!canRetry || !RETRIED_STATUSES.has(response.status)) return response;
      const wait = retryAfterMs(response.headers.get('retry-after')) ?? backoffMs(attempt, settings);
      await response.body?.cancel();
      await sleep(Math.min(wait, settings.maxDelayMs), request.signal);
    }
  };
}
