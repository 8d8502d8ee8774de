import { createHmac, timingSafeEqual } from 'node:crypto';

/** Why a webhook request was refused. */
export type WebhookFailureReason = 'missing_header' | 'invalid_timestamp' | 'timestamp_too_old' | 'timestamp_too_new' | 'no_matching_signature';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
  constructor(
    readonly reason: WebhookFailureReason,
    message: string,
  ) {
    super(message);
  }
}

/** Request headers as a `Headers`, Node's `IncomingHttpHeaders` or any plain object (names in any case). */
export type WebhookHeaders = Headers | Record<string, string | string[] | undefined>;

export interface VerifyWebhookOptions {
  /** The current time (default: the clock); a Date or milliseconds since the epoch. */
  now?: Date | number;
  /** How far the timestamp may lie in the past or the future (default 300 s, the spec's 5 minutes). */
  toleranceSeconds?: number;
}

export const WEBHOOK_TOLERANCE_SECONDS = 5 * 60;

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as Headers).get === 'function') return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value.join(' ') : value;
  }
  return undefined;
}

/**
 * Verifies a webhook delivery: `webhook-id`, `webhook-timestamp` (Unix seconds, within the
 * tolerance of now) and `webhook-signature` (space-delimited `v1,<base64 HMAC-SHA256>` values;
 * two during a secret rotation). The signed message is `${timestamp}.${rawBody}`; the HMAC key is
 * the UTF-8 bytes of the whole `whsec_…` secret, as the service signs. Pass the body exactly as
 * received (a string or bytes, never re-serialized JSON). `secret` may list several secrets (the
 * receiver's old and new ones). Returns true, or throws `WebhookVerificationError` with a `reason`.
 */
export function verifyWebhook(rawBody: string | Uint8Array, headers: WebhookHeaders, secret: string | readonly string[], options: VerifyWebhookOptions = {}): true {
  const secrets = typeof secret === 'string' ? [secret] : [...secret];
  if (secrets.length === 0 || secrets.some((s) => typeof s !== 'string' || s === '')) throw new TypeError('verifyWebhook: a non-empty secret is required');
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  for (const [name, value] of [['webhook-id', id], ['webhook-timestamp', timestamp], ['webhook-signature', signatures]] as const) {
    if (!value) throw new WebhookVerificationError('missing_header', `the ${name} header is missing`);
  }
  if (!/^\d{1,12}$/.test(timestamp!)) throw new WebhookVerificationError('invalid_timestamp', 'webhook-timestamp is not Unix seconds');
  const tolerance = options.toleranceSeconds ?? WEBHOOK_TOLERANCE_SECONDS;
  const nowSeconds = Math.floor(Number(options.now ?? Date.now()) / 1000);
  const age = nowSeconds - Number(timestamp);
  if (age > tolerance) throw new WebhookVerificationError('timestamp_too_old', `webhook-timestamp is ${age} s old (tolerance ${tolerance} s)`);
  if (-age > tolerance) throw new WebhookVerificationError('timestamp_too_new', `webhook-timestamp is ${-age} s in the future (tolerance ${tolerance} s)`);

  const given = signatures!
    .split(/\s+/)
    .filter((value) => value.startsWith('v1,'))
    .map((value) => Buffer.from(value.slice(3), 'base64'));
  const body = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody;
  const matched = secrets.some((key) => {
    const expected = createHmac('sha256', Buffer.from(key, 'utf8')).update(`${timestamp}.`, 'utf8').update(body).digest();
    return given.some((signature) => signature.length === expected.length && timingSafeEqual(signature, expected));
  });
  if (!matched) throw new WebhookVerificationError('no_matching_signature', 'no webhook-signature value matches the secret');
  return true;
}
