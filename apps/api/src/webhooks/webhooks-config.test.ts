import path from 'node:path';
import { testDatabaseKinds } from '@wallet/db';
import { createWebhookService, API_KEK_ROLES, fileKekProvider } from '@wallet/domain';
import { describe, expect, it } from 'vitest';
import { createHttpsSender } from './https-sender.ts';
import { TEST_CA_PEM, startReceiver } from './testing/receiver.ts';
import { DAY, useWebhookTestApp } from './testing/webhook-app.ts';

/** Webhooks: validating the endpoint configuration, its secrets, and the production address policy. */
describe.each(testDatabaseKinds)('webhooks on %s: configuration', (kind) => {
  const t = useWebhookTestApp(kind);
  const { clock, secretsShown } = t;

  it('validates the configuration: HTTPS only, known event types, a non-empty set when enabled; the secret is shown only at creation and rotation', async () => {
    const issued = await t.app.createKey();
    const scope = { apiKeyId: issued.apiKeyId, projectId: issued.projectId };
    const set = (input: { url: string; eventTypes?: string[]; enabled?: boolean }) => t.app.services.webhooks.set(scope, input);
    await expect(set({ url: 'http://example.com/hooks', eventTypes: ['user.created'] })).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    await expect(set({ url: 'not a url', eventTypes: ['user.created'] })).rejects.toMatchObject({ status: 400 });
    await expect(set({ url: `https://example.com/${'a'.repeat(2100)}`, eventTypes: ['user.created'] })).rejects.toMatchObject({ status: 400 });
    await expect(set({ url: 'https://example.com/hooks', eventTypes: [] })).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    await expect(set({ url: 'https://example.com/hooks' })).rejects.toMatchObject({ status: 400 });
    await expect(set({ url: 'https://example.com/hooks', eventTypes: ['user.created', 'user.deleted'] })).rejects.toMatchObject({
      status: 400,
      code: 'INVALID_REQUEST',
      message: expect.stringContaining('user.deleted'),
    });
    await expect(t.app.services.webhooks.get(scope)).rejects.toMatchObject({ status: 404 });

    // Disabled with no event types is a valid configuration; it is created with its secret.
    const created = await set({ url: 'https://example.com/hooks', eventTypes: [], enabled: false });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret!.slice(6), 'base64')).toHaveLength(32);
    secretsShown.push(created.secret!);
    await expect(t.app.services.webhooks.enable(scope)).rejects.toMatchObject({ status: 400 });
    const updated = await set({ url: 'https://example.com/other', eventTypes: ['user.created', 'test.ping'] });
    expect(updated).toMatchObject({ url: 'https://example.com/other', enabled: true, eventTypes: ['user.created', 'test.ping'] });
    expect(updated.secret).toBeUndefined();
    const shown = await t.app.services.webhooks.get(scope);
    expect(shown).not.toHaveProperty('secret');
    expect(JSON.stringify(shown)).not.toContain('whsec_');

    // Stored sealed: the row holds neither the secret nor its base64 body.
    const row = await t.app.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { apiKeyId: issued.apiKeyId } });
    const raw = Buffer.from(row.secret);
    expect(raw.includes(Buffer.from(created.secret!))).toBe(false);
    expect(raw.includes(Buffer.from(created.secret!.slice(6), 'base64'))).toBe(false);

    const rotated = await t.app.services.webhooks.rotateSecret(scope);
    secretsShown.push(rotated.secret);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);
    expect(new Date(rotated.previousSecretExpiresAt!).getTime() - clock.now().getTime()).toBeGreaterThan(DAY - 60_000);

    // Another project's key cannot read or change it.
    const other = await t.app.createKey();
    await expect(t.app.services.webhooks.get({ apiKeyId: issued.apiKeyId, projectId: other.projectId })).rejects.toMatchObject({ status: 404 });
    await t.app.services.webhooks.disable(scope);
  });

  it('in production refuses URLs resolving to loopback, private or link-local addresses, at configuration and again at delivery', async () => {
    const issued = await t.app.createKey();
    const scope = { apiKeyId: issued.apiKeyId, projectId: issued.projectId };
    const dns: Record<string, string[]> = {
      'internal.example': ['192.168.1.5'],
      'metadata.example': ['169.254.169.254'],
      'v6only.example': ['fd12:3456::1'],
      'rebind.example': ['93.184.216.34', '10.0.0.7'],
      'public.example': ['93.184.216.34', '2606:2800:220:1:248:1893:25c8:1946'],
    };
    const production = createWebhookService({
      store: t.app.services.stores.webhooks,
      apiKeys: t.app.services.stores.apiKeys,
      keks: fileKekProvider(path.join(t.app.dataDir, 'api'), API_KEK_ROLES),
      clock,
      ping: async () => {
        throw new Error('not used');
      },
      allowPrivateAddresses: false,
      resolveHost: async (host) => {
        if (host === 'localhost') return ['127.0.0.1', '::1'];
        const found = dns[host];
        if (!found) throw new Error('ENOTFOUND');
        return found;
      },
    });
    for (const url of [
      'https://127.0.0.1/hooks',
      'https://localhost:8443/hooks',
      'https://[::1]/hooks',
      'https://10.1.2.3/hooks',
      'https://172.20.0.1/hooks',
      'https://169.254.169.254/latest',
      'https://[fe80::1]/hooks',
      'https://[::ffff:127.0.0.1]/hooks',
      'https://[fd00::1]/hooks',
      'https://0.0.0.0/hooks',
      'https://internal.example/hooks',
      'https://metadata.example/hooks',
      'https://v6only.example/hooks',
      'https://rebind.example/hooks',
      'https://nowhere.example/hooks',
    ]) {
      await expect(production.set(scope, { url, eventTypes: ['user.created'] }), url).rejects.toMatchObject({ status: 400, code: 'INVALID_REQUEST' });
    }
    const ok = await production.set(scope, { url: 'https://public.example/hooks', eventTypes: ['user.created'], enabled: false });
    secretsShown.push(ok.secret!);

    // At delivery: the sender in production mode refuses loopback by literal address and by name.
    t.receiver = await startReceiver();
    const request = { headers: { 'content-type': 'application/json' }, body: '{}', timeoutMs: 2_000 };
    const strict = createHttpsSender({ extraCaPem: TEST_CA_PEM, allowPrivateAddresses: false });
    const local = createHttpsSender({ extraCaPem: TEST_CA_PEM, allowPrivateAddresses: true });
    const noCa = createHttpsSender({ allowPrivateAddresses: true });
    try {
      expect(await strict({ ...request, url: t.receiver.url })).toMatchObject({ statusCode: null, error: expect.stringContaining('refused') });
      expect(await strict({ ...request, url: `https://localhost:${t.receiver.port}/hooks` })).toMatchObject({ statusCode: null, error: expect.stringContaining('refused') });
      expect(t.receiver.requests).toHaveLength(0);
      expect(await local({ ...request, url: `https://localhost:${t.receiver.port}/hooks` })).toMatchObject({ statusCode: 204, error: null });
      // Without the CA from configuration the test certificate is not trusted: verification stays on.
      expect(await noCa({ ...request, url: t.receiver.url })).toMatchObject({ statusCode: null, error: expect.stringMatching(/certificate/i) });
      expect(await local({ ...request, url: `http://127.0.0.1:${t.receiver.port}/hooks` })).toMatchObject({ statusCode: null, error: expect.stringContaining('HTTPS') });
    } finally {
      strict.close();
      local.close();
      noCa.close();
    }
  });
});
