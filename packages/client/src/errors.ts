/**
 * The errors the client throws: `WalletApiError` for an answer with a 4xx/5xx status (through
 * `unwrap`), `WalletNetworkError` when no answer arrived after the retries. Neither holds request
 * headers, so the API key never reaches an error message or a log line printing one.
 */

/** An error answer of the service: `{code, message, details?, transactionId?, …}` plus the response's status and request id. */
export class WalletApiError extends Error {
  override readonly name = 'WalletApiError';
  /** HTTP status of the answer. */
  readonly status: number;
  /** The body's machine-readable `code` (`HTTP_<status>` when the body was not a service error object). */
  readonly code: string;
  /** Validation details (`[{path, message}]`) when the service gave them. */
  readonly details: unknown;
  /** Set on broadcast failures after a transaction record was created (body field or `x-transaction-id` header). */
  readonly transactionId: string | undefined;
  /** The `X-Request-Id` the service answered with (quote it when reporting a problem). */
  readonly requestId: string | undefined;
  /** The answer's body: the parsed JSON object, or the text when it was not JSON. */
  readonly body: unknown;

  constructor(init: { status: number; code: string; message: string; details?: unknown; transactionId?: string; requestId?: string; body: unknown }) {
    super(init.message);
    this.status = init.status;
    this.code = init.code;
    this.details = init.details;
    this.transactionId = init.transactionId;
    this.requestId = init.requestId;
    this.body = init.body;
  }

  /** Builds the error from an answer and its parsed body (openapi-fetch's `error`). */
  static fromResponse(response: Response, body: unknown): WalletApiError {
    const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
    const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : undefined);
    return new WalletApiError({
      status: response.status,
      code: text(fields.code) ?? `HTTP_${response.status}`,
      message: text(fields.message) ?? `HTTP ${response.status} ${response.statusText}`.trim(),
      details: fields.details,
      transactionId: text(fields.transactionId) ?? response.headers.get('x-transaction-id') ?? undefined,
      requestId: response.headers.get('x-request-id') ?? undefined,
      body,
    });
  }
}

/** No answer arrived (connection refused, reset or closed before a response), also after the retries. */
export class WalletNetworkError extends Error {
  override readonly name = 'WalletNetworkError';
  constructor(
    readonly method: string,
    /** The request's path (never its headers). */
    readonly path: string,
    /** Requests sent, the first included. */
    readonly attempts: number,
    cause: unknown,
  ) {
    super(`${method} ${path}: no response after ${attempts} attempt${attempts === 1 ? '' : 's'} (${cause instanceof Error ? (cause.cause instanceof Error ? cause.cause.message : cause.message) : String(cause)})`, { cause });
  }
}

/** What an openapi-fetch call resolves to. */
interface FetchResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/**
 * The data of a successful call, or a thrown `WalletApiError`:
 * `const wallet = await unwrap(client.POST('/v1/wallets', { body }))`.
 * Without it, a call resolves to openapi-fetch's `{ data, error, response }` as usual.
 */
export async function unwrap<R extends FetchResult>(result: R | Promise<R>): Promise<Exclude<R['data'], undefined>> {
  const { data, error, response } = await result;
  if (error !== undefined || !response.ok) throw WalletApiError.fromResponse(response, error);
  return data as Exclude<R['data'], undefined>;
}
