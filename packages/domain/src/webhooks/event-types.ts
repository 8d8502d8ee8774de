/**
 * The event types of the spec's Events table, plus `test.ping` (the test button) and
 * `wallet.nonce_gap_filled` (the service filled a nonce gap that held a wallet's transactions back).
 */
export const WEBHOOK_EVENT_TYPES = [
  'user.created',
  'wallet.created',
  'transaction.signed',
  'send.broadcasted',
  'send.confirmed',
  'send.failed',
  'rest.transaction.confirmed',
  'rest.transaction.failed',
  'wallet.pregen_claimed',
  'user.external_wallet_verified',
  'wallet.nonce_gap_filled',
  'test.ping',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isWebhookEventType = (type: string): type is WebhookEventType =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
