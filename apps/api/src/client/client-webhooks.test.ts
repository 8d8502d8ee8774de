import { createClient, unwrap, verifyWebhook, WebhookVerificationError, type WebhookFailureReason } from '@wallet/client';
import { describe, expect, it } from 'vitest';
import { useWebhookTestApp } from '../webhooks/testing/webhook-app.ts';

function refusal(run: () => unknown): WebhookFailureReason {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookVerificationError);
    return (error as WebhookVerificationError).reason;
  }
  throw new Error('verifyWebhook accepted the delivery');
}

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

    expect(refusal(() => verifyWebhook(JSON.stringify(JSON.parse(rawBody), null, 1), headers, secret))).toBe('no_matching_signature');
    expect(refusal(() => verifyWebhook(rawBody.replace(wallet.id, crypto.randomUUID()), headers, secret))).toBe('no_matching_signature');
    expect(refusal(() => verifyWebhook(rawBody, headers, 'whsec_not-the-secret'))).toBe('no_matching_signature');
    const sentAt = Number(headers['webhook-timestamp']) * 1000;
    expect(verifyWebhook(rawBody, headers, secret, { now: sentAt + 299_000 })).toBe(true);
    expect(refusal(() => verifyWebhook(rawBody, headers, secret, { now: sentAt + 301_000 }))).toBe('timestamp_too_old');
    expect(refusal(() => verifyWebhook(rawBody, headers, secret, { now: new Date(sentAt - 301_000) }))).toBe('timestamp_too_new');
    expect(refusal(() => verifyWebhook(rawBody, { ...headers, 'webhook-signature': undefined }, secret))).toBe('missing_header');
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
    expect(refusal(() => verifyWebhook(rawBody, { ...headers, 'webhook-signature': newest }, first))).toBe('no_matching_signature');
  });
});
