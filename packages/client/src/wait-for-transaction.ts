import type { WalletClient } from './client.ts';
import { unwrap } from './errors.ts';
import type { paths } from './generated/openapi.ts';

type TransactionPath = '/v1/wallets/{walletId}/transactions/{transactionId}';
export type TransactionRecord = paths[TransactionPath]['get']['responses'][200]['content']['application/json'];

/**
 * Statuses after which a broadcast record no longer changes. Unknown statuses (the spec may add
 * `finalized`, `replaced`) count as not terminal, so waiting on them continues.
 */
export const TERMINAL_TRANSACTION_STATUSES: ReadonlySet<string> = new Set(['confirmed', 'reverted', 'failed']);

/** The record was still not terminal at the deadline. */
export class TransactionWaitTimeoutError extends Error {
  override readonly name = 'TransactionWaitTimeoutError';
  constructor(
    readonly transactionId: string,
    /** The last status read, e.g. `submitted`. */
    readonly lastStatus: string,
    readonly timeoutMs: number,
  ) {
    super(`transaction ${transactionId} is still ${lastStatus} after ${timeoutMs} ms`);
  }
}

/**
 * Polls `GET /v1/wallets/{walletId}/transactions/{transactionId}` every `intervalMs` (default
 * 1 s) until the record is `confirmed`, `reverted` or `failed`, and returns it. Throws
 * `TransactionWaitTimeoutError` at `timeoutMs`, `WalletApiError` on an error answer.
 */
export async function waitForTransaction(
  client: WalletClient,
  walletId: string,
  transactionId: string,
  { timeoutMs, intervalMs = 1_000, signal }: { timeoutMs: number; intervalMs?: number; signal?: AbortSignal },
): Promise<TransactionRecord> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const record = await unwrap(client.GET('/v1/wallets/{walletId}/transactions/{transactionId}', { params: { path: { walletId, transactionId } }, signal }));
    if (TERMINAL_TRANSACTION_STATUSES.has(record.status)) return record;
    const left = deadline - Date.now();
    if (left <= 0) throw new TransactionWaitTimeoutError(transactionId, record.status, timeoutMs);
    await new Promise((resolve) => setTimeout(resolve, Math.min(intervalMs, left)));
    signal?.throwIfAborted();
  }
}
