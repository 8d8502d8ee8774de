/** The event types of the spec's Events table, plus `test.ping` (the test button). */
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
  'test.ping',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const isWebhookEventType = (type: string): type is WebhookEventType =>
  (WEBHOOK_EVENT_TYPES as readonly string[]).includes(type);
