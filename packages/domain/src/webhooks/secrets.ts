import { createHmac, randomBytes } from 'node:crypto';
import { openUnderKek, sealUnderKek } from '../custody/kek-seal.ts';
import type { KekProvider } from '../custody/types.ts';

/**
 * Webhook signing secrets: `whsec_` + base64 of 32 random bytes. Stored only sealed (AES-256-GCM)
 * under the API's current key-encryption key (`API_KEKS`; never a KEK that opens a key share) with the endpoint id as associated data, so a
 * secret copied to another endpoint row does not open. Shown to the partner only when created and
 * when rotated; never logged.
 */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

export const generateWebhookSecret = () => `${WEBHOOK_SECRET_PREFIX}${randomBytes(32).toString('base64')}`;

const IV_LENGTH = 12;

/** Seals the secret: `{ kekId, sealed: iv || ciphertext || tag }`. */
export function sealWebhookSecret(keks: KekProvider, endpointId: string, secret: string): { kekId: string; sealed: Uint8Array } {
  const kek = keks.current('api');
  const { iv, ciphertext } = sealUnderKek(kek, endpointId, Buffer.from(secret, 'utf8'));
  const sealed = new Uint8Array(iv.length + ciphertext.length);
  sealed.set(iv, 0);
  sealed.set(ciphertext, iv.length);
  return { kekId: kek.id, sealed };
}

export function openWebhookSecret(keks: KekProvider, endpointId: string, kekId: string, sealed: Uint8Array): string {
  const kek = keks.byId(kekId);
  if (!kek) throw new Error(`webhook secret of endpoint ${endpointId} is sealed under an unknown key-encryption key ${kekId}`);
  const plain = openUnderKek(kek, endpointId, sealed.subarray(0, IV_LENGTH), sealed.subarray(IV_LENGTH));
  try {
    return Buffer.from(plain).toString('utf8');
  } finally {
    plain.fill(0);
  }
}

/**
 * One signature value (without the `v1,` prefix): base64 HMAC-SHA256 of `${timestamp}.${body}`.
 * The key is the webhook secret exactly as shown to the partner (the UTF-8 bytes of the whole
 * `whsec_…` string): the spec says "the HMAC key is the webhook secret".
 */
export function webhookSignature(secret: string, timestamp: number, body: string): string {
  return createHmac('sha256', Buffer.from(secret, 'utf8')).update(`${timestamp}.${body}`, 'utf8').digest('base64');
}

/** The `webhook-signature` header: `v1,<sig>` per secret, space-delimited (current first). */
export function signatureHeader(secrets: string[], timestamp: number, body: string): string {
  return secrets.map((secret) => `v1,${webhookSignature(secret, timestamp, body)}`).join(' ');
}

/** Headers and body of one delivery attempt; `body` is serialized once, and these exact bytes are signed and sent. */
export function signedRequest(
  event: { id: string; type: string; createdAt: Date; data: Record<string, unknown> },
  secrets: string[],
  now: Date,
): { headers: Record<string, string>; body: string } {
  const body = JSON.stringify({ id: event.id, type: event.type, createdAt: event.createdAt.toISOString(), data: event.data });
  const timestamp = Math.floor(now.getTime() / 1000);
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'wallet-service-webhooks/1',
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, timestamp, body),
    },
  };
}
