/**
 * One JSON-RPC call to an ERC-4337 bundler (alto, or a hosted one: Pimlico, CDP, Alchemy) over
 * fetch, and what its failures mean to the caller:
 * - no JSON-RPC answer (connection refused or reset, timeout, an HTTP error page): BundlerUnreachableError.
 *   For eth_sendUserOperation the operation may or may not have reached the bundler's mempool.
 * - a JSON-RPC error naming an ERC-4337 code (AAxx): UserOperationRejectedError;
 *   the op's own call reverting (ERC-7769 -32521): UserOperationRevertedError;
 *   any other JSON-RPC error (invalid fields, fees below the bundler's floor, …): BundlerRpcError.
 * The bundler URL of a hosted bundler carries its API key: no message here includes it.
 */
import type { Hex } from 'viem';
import { UserOperationRejectedError, UserOperationRevertedError, type BundlerRefusal } from './rejection.ts';

export const DEFAULT_BUNDLER_TIMEOUT_MS = 10_000;

export interface BundlerCallOptions {
  /** Abort the HTTP request after this long (then BundlerUnreachableError); default 10 s. */
  timeoutMs?: number;
}

/** The bundler answered with a JSON-RPC error that is not an ERC-4337 refusal of the operation. */
export class BundlerRpcError extends Error {
  override readonly name = 'BundlerRpcError';
  constructor(
    readonly method: string,
    readonly rpcCode: number,
    readonly rpcMessage: string,
    readonly data?: unknown,
  ) {
    super(`the bundler refused ${method}: ${rpcMessage} (${rpcCode})`);
  }
}

/**
 * No JSON-RPC answer from the bundler. After eth_sendUserOperation the submission may have
 * happened: look the op up by its userOpHash (receipt, UserOperationEvent, EntryPoint nonce) before
 * resending the same stored operation.
 */
export class BundlerUnreachableError extends Error {
  override readonly name = 'BundlerUnreachableError';
  constructor(
    readonly method: string,
    detail: string,
    options?: { cause?: unknown },
  ) {
    super(`no answer from the bundler to ${method}: ${detail}`, options);
  }
}

const AA_CODE = /\b(AA\d\d)\b/;
const HEX_DATA = /0x(?:[0-9a-fA-F]{2})+/;

function isHexData(value: unknown): value is Hex {
  return typeof value === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(value);
}

/** The typed error for a JSON-RPC error object of `method`. */
export function bundlerRefusal(method: string, error: { code: number; message: string; data?: unknown }): Error {
  const refusal: BundlerRefusal = { method, rpcCode: error.code, rpcMessage: error.message };
  const aa = AA_CODE.exec(error.message);
  if (aa) {
    const reason = error.message.slice(aa.index);
    const inner = HEX_DATA.exec(reason.slice(4))?.[0] as Hex | undefined;
    return new UserOperationRejectedError(aa[1]!, reason, inner, refusal);
  }
  if (error.code === -32521) {
    const data = isHexData(error.data) ? error.data : ((HEX_DATA.exec(error.message)?.[0] as Hex | undefined) ?? '0x');
    return new UserOperationRevertedError(data, refusal);
  }
  return new BundlerRpcError(method, error.code, error.message, error.data);
}

let nextId = 1;

/** POSTs one JSON-RPC request; resolves with its result, or throws one of the errors above. */
export async function bundlerRequest<T>(bundlerUrl: string, method: string, params: readonly unknown[], options: BundlerCallOptions = {}): Promise<T> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_BUNDLER_TIMEOUT_MS;
  let status: number;
  let text: string;
  try {
    const res = await fetch(bundlerUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    });
    status = res.status;
    text = await res.text();
  } catch (err) {
    const timedOut = err instanceof Error && err.name === 'TimeoutError';
    const code = (err as { cause?: { code?: unknown } })?.cause?.code;
    const detail = timedOut ? `no response within ${timeoutMs} ms` : typeof code === 'string' ? code : err instanceof Error ? err.message : String(err);
    throw new BundlerUnreachableError(method, detail, { cause: err });
  }
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new BundlerUnreachableError(method, `HTTP ${status} without a JSON-RPC body`);
  }
  const answer = body as { result?: unknown; error?: { code?: unknown; message?: unknown; data?: unknown } } | null;
  if (answer && typeof answer === 'object' && answer.error && typeof answer.error === 'object' && typeof answer.error.code === 'number') {
    throw bundlerRefusal(method, { code: answer.error.code, message: String(answer.error.message ?? ''), data: answer.error.data });
  }
  if (!answer || typeof answer !== 'object' || !('result' in answer)) {
    throw new BundlerUnreachableError(method, `HTTP ${status} without a JSON-RPC result or error`);
  }
  return answer.result as T;
}
