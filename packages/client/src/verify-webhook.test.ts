import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { verifyWebhook, type WebhookFailureReason } from './verify-webhook.ts';

const secret = 'whsec_c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LTEyMzQ=';
const body = '{"id":"evt_1","type":"test.ping","createdAt":"2026-01-01T00:00:00.000Z","data":{"message":"héllo"}}';
const now = 1_800_000_000;
const sign = (key: string, timestamp: number, raw = body) => `v1,${createHmac('sha256', key).update(`${timestamp}.${raw}`).digest('base64')}`;
const headersAt = (timestamp: number, signature = sign(secret, timestamp)) => ({ 'webhook-id': 'evt_1', 'webhook-timestamp': String(timestamp), 'webhook-signature': signature });

/** The typed refusal verifyWebhook throws, with its reason. */
const refused = (reason: WebhookFailureReason) => expect.objectContaining({ name: 'WebhookVerificationError', reason });

describe('verifyWebhook', () => {
  it('accepts a string or bytes body and headers as Headers, a plain object in any case, or arrays', () => {
    const at = { now: now * 1000 };
    expect(verifyWebhook(body, headersAt(now), secret, at)).toBe(true);
    expect(verifyWebhook(Buffer.from(body), new Headers(headersAt(now)), secret, at)).toBe(true);
    expect(verifyWebhook(new TextEncoder().encode(body), { 'Webhook-Id': 'evt_1', 'WEBHOOK-TIMESTAMP': String(now), 'webhook-signature': [sign(secret, now)] }, secret, { now: new Date(now * 1000) })).toBe(true);
  });

  it('accepts when one of several signatures (a rotation) or one of several secrets matches', () => {
    const rotated = headersAt(now, `v1,${Buffer.alloc(32).toString('base64')} v2,ignored ${sign(secret, now)}`);
    expect(verifyWebhook(body, rotated, secret, { now: now * 1000 })).toBe(true);
    expect(verifyWebhook(body, headersAt(now, sign('whsec_old', now)), ['whsec_new', 'whsec_old'], { now: now * 1000 })).toBe(true);
  });

  it('refuses with a reason', () => {
    const at = { now: now * 1000 };
    expect(() => verifyWebhook(body, { ...headersAt(now), 'webhook-id': undefined }, secret, at)).toThrow(refused('missing_header'));
    expect(() => verifyWebhook(body, { ...headersAt(now), 'webhook-signature': '' }, secret, at)).toThrow(refused('missing_header'));
    expect(() => verifyWebhook(body, { ...headersAt(now), 'webhook-timestamp': '17e8' }, secret, at)).toThrow(refused('invalid_timestamp'));
    expect(() => verifyWebhook(body, headersAt(now - 301), secret, at)).toThrow(refused('timestamp_too_old'));
    expect(verifyWebhook(body, headersAt(now - 300), secret, at)).toBe(true);
    expect(() => verifyWebhook(body, headersAt(now + 301), secret, at)).toThrow(refused('timestamp_too_new'));
    expect(() => verifyWebhook(body, headersAt(now - 60), secret, { ...at, toleranceSeconds: 30 })).toThrow(refused('timestamp_too_old'));
    expect(() => verifyWebhook(`${body} `, headersAt(now), secret, at)).toThrow(refused('no_matching_signature'));
    expect(() => verifyWebhook(body, headersAt(now), 'whsec_other', at)).toThrow(refused('no_matching_signature'));
    expect(() => verifyWebhook(body, headersAt(now, sign(secret, now).replace('v1,', 'v2,')), secret, at)).toThrow(refused('no_matching_signature'));
    // The key is the whole whsec_ string's bytes, not the base64 part decoded.
    const decodedKey = Buffer.from(secret.slice(6), 'base64');
    const otherScheme = `v1,${createHmac('sha256', decodedKey).update(`${now}.${body}`).digest('base64')}`;
    expect(() => verifyWebhook(body, headersAt(now, otherScheme), secret, at)).toThrow(refused('no_matching_signature'));
  });

  it('needs a secret and never echoes it', () => {
    expect(() => verifyWebhook(body, headersAt(now), '', { now: now * 1000 })).toThrow(TypeError);
    expect(() => verifyWebhook(body, headersAt(now), [], { now: now * 1000 })).toThrow(TypeError);
    try {
      verifyWebhook(body, headersAt(now), 'whsec_other', { now: now * 1000 });
    } catch (error) {
      expect(String((error as Error).message)).not.toContain('whsec_');
    }
  });
});
