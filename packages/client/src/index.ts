export { createClient, type WalletClient, type WalletClientOptions } from './client.ts';
export type { BalancesQuery, BalancesResource, WalletBalances } from './balances.ts';
export type { CallsAccepted, CallsBroadcast, CallsRequest, CallsResource } from './calls.ts';
export { unwrap, WalletApiError, WalletNetworkError } from './errors.ts';
export { DEFAULT_RETRY, type RetryOptions } from './retrying-fetch.ts';
export { paginate, type ListItem, type ListParams, type ListPath } from './paginate.ts';
export { TERMINAL_TRANSACTION_STATUSES, TransactionWaitTimeoutError, waitForTransaction, type TransactionRecord } from './wait-for-transaction.ts';
export { verifyWebhook, WEBHOOK_TOLERANCE_SECONDS, WebhookVerificationError, type VerifyWebhookOptions, type WebhookFailureReason, type WebhookHeaders } from './verify-webhook.ts';
export type { components, operations, paths } from './generated/openapi.ts';
