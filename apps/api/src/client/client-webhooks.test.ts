import { createClient, unwrap, verifyWebhook, type WebhookFailureReason } from '@wallet/client';
import { describe, expect, it } from 'vitest';
import { useWebhookTestApp } from '../webhooks/testing/webhook-app.ts';

/** The typed refusal verifyWebhook throws, with its reason. */
const refused = (reason: WebhookFailureReason) => expect.objectContaining({ name: 'WebhookVerificationError', reason });

/** @wallet/client's verifyWebhook over real deliveries of the service to a real HTTPS receiver. */
describe('verifyWebhook on real deliveries', () => {
  const t = useWebhookTestApp('pglite', { timeoutMs: 2_000 });

  it('accepts a delivery as received and refuses a changed body, an old timestamp and another secret', async () => {
    const { apiKey, secret } = await t.setup(['wallet.created']);
    const client = createClient({ baseUrl: t.app.baseUrl, apiKey });
    const wallet = await unwrap(client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: `hook-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } }));
    await t.deliverUntil(() => t.receiver.requests.length >= 1);
    const { rawBody, headers, body } = t.receiver.requests[0]!;
    expect(body).toMatchObject({ type: 'wallet.created', data: { walletId: wallet.id } });

    expect(verifyWebhook(rawBody, headers, secret)).toBe(true);
    expect(verifyWebhook(Buffer.from(rawBody), new Headers(headers), secret)).toBe(true);
    const shouted = Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toUpperCase(), value]));
    expect(verifyWebhook(rawBody, shouted, secret)).toBe(true);

    expect(() => verifyWebhook(JSON.stringify(JSON.parse(rawBody), null, 1), headers, secret)).toThrow(refused('no_matching_signature'));
    expect(() => verifyWebhook(rawBody.replace(wallet.id, crypto.randomUUID()), headers, secret)).toThrow(refused('no_matching_signature'));
    expect(() => verifyWebhook(rawBody, headers, 'whsec_not-the-secret')).toThrow(refused('no_matching_signature'));
    const sentAt = Number(headers['webhook-timestamp']) * 1000;
    expect(verifyWebhook(rawBody, headers, secret, { now: sentAt + 299_000 })).toBe(true);
    expect(() => verifyWebhook(rawBody, headers, secret, { now: sentAt + 301_000 })).toThrow(refused('timestamp_too_old'));
    expect(() => verifyWebhook(rawBody, headers, secret, { now: new Date(sentAt - 301_000) })).toThrow(refused('timestamp_too_new'));
    expect(() => verifyWebhook(rawBody, { ...headers, 'webhook-signature': undefined }, secret)).toThrow(refused('missing_header'));
  });

  it('during a rotation the delivery carries two signatures and either secret verifies it', async () => {
    const { apiKey, scope, secret: first } = await t.setup(['wallet.created']);
    const rotated = await t.app.services.webhooks.rotateSecret(scope);
    t.secretsShown.push(rotated.secret!);
    const client = createClient({ baseUrl: t.app.baseUrl, apiKey });
    await unwrap(client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: `rotated-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } }));
    await t.deliverUntil(() => t.receiver.requests.length >= 1);
    const { rawBody, headers } = t.receiver.requests[0]!;
    expect(headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verifyWebhook(rawBody, headers, rotated.secret!)).toBe(true);
    expect(verifyWebhook(rawBody, headers, first)).toBe(true);
    expect(verifyWebhook(rawBody, headers, ['whsec_unrelated', rotated.secret!])).toBe(true);
    // Only the matching value counts: one signature alone, under the other secret, is refused.
    const [newest] = headers['webhook-signature']!.split(' ');
    expect(verifyWebhook(rawBody, { ...headers, 'webhook-signature': newest }, rotated.secret!)).toBe(true);
    expect(() => verifyWebhook(rawBody, { ...headers, 'webhook-signature': newest }, first)).toThrow(refused('no_matching_signature'));
  });
});
