import type { Client } from 'openapi-fetch';
import { unwrap } from './errors.ts';
import type { operations, paths } from './generated/openapi.ts';

type Operation = operations['sendCalls'];
/** The body of `POST /v1/wallets/{walletId}/calls`: `chainId`, 1 to 10 `calls` `{to, value?, data?}`, fee options, `sponsored`. */
export type CallsRequest = Operation['requestBody']['content']['application/json'];
/** A self-paid batch, broadcast (200): `signedTransaction`, `txHash`, `transactionId`, `autoRetry`. */
export type CallsBroadcast = Operation['responses'][200]['content']['application/json'];
/** A sponsored batch, accepted (202): its record, `executionMode: 'sponsored'`. */
export type CallsAccepted = Operation['responses'][202]['content']['application/json'];

export interface CallsResource {
  /**
   * Runs the calls atomically in one transaction (or, with `sponsored: true`, one sponsored user
   * operation); both answers carry `transactionId`, to follow with `waitForTransaction`. Throws
   * `WalletApiError` on an error answer (422 `CALLS_SIMULATION_REVERTED` with `callIndex` and
   * `reason`, 403 `POLICY_DENIED`, ...). With `idempotencyKey`, a retry never sends a second transaction.
   */
  send(walletId: string, body: CallsRequest, options?: { idempotencyKey?: string; signal?: AbortSignal }): Promise<CallsBroadcast | CallsAccepted>;
}

export function callsResource(client: Client<paths, 'application/json'>): CallsResource {
  return {
    send: (walletId, body, { idempotencyKey, signal } = {}) =>
      unwrap(
        client.POST('/v1/wallets/{walletId}/calls', {
          params: { path: { walletId }, ...(idempotencyKey ? { header: { 'Idempotency-Key': idempotencyKey } } : {}) },
          body,
          signal,
        }),
      ),
  };
}
