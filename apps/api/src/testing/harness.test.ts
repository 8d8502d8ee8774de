import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePartner } from './console-fixtures.ts';
import { startTestApp, type SecretKind, type TestApp } from './harness.ts';

// The log check every suite runs when it closes its app: it must know every kind of secret the
// services hand out, however they were made (REST fixtures, tRPC procedures), and fail on each.
describe('the test harness log check', () => {
  let app: TestApp;
  let closed = false;

  beforeAll(async () => {
    app = await startTestApp('pglite');
  });
  afterAll(async () => {
    if (!closed) await app.close();
  });

  it('records API keys, staff passwords, session tokens, webhook secrets and KEKs, and fails on each in the logs', async () => {
    const a = await consolePartner(app);
    const created = await a.owner.apiKeys.create.mutate({ projectId: a.key.projectId, environment: 'development', plan: 'free' });
    const rotatedKey = await a.owner.apiKeys.rotate.mutate({ apiKeyId: created.apiKeyId });
    const config = await a.owner.webhooks.set.mutate({ apiKeyId: a.key.apiKeyId, url: 'https://example.com/hooks', eventTypes: ['wallet.created'], enabled: false });
    const rotatedSecret = await a.owner.webhooks.rotateSecret.mutate({ apiKeyId: a.key.apiKeyId });
    const owner = await app.services.staff.createAccount({ partner: a.partner, email: `extra-${Date.now()}@example.com`, role: 'developer' });

    const secrets = app.secretsByKind();
    const expected: Array<[string, SecretKind]> = [
      [a.key.apiKey, 'API key'],
      [created.apiKey, 'API key'],
      [rotatedKey.apiKey, 'API key'],
      [owner.password!, 'staff password'],
      [a.cookies.owner.split('=')[1]!, 'session token'],
      [a.cookies.support.split('=')[1]!, 'session token'],
      [config.secret!, 'webhook secret'],
      [rotatedSecret.secret, 'webhook secret'],
    ];
    for (const [value, kind] of expected) expect(secrets.get(value), kind).toBe(kind);
    expect([...secrets.values()]).toContain('KEK');
    // Three roles signed in: three passwords and three tokens.
    expect([...secrets.values()].filter((k) => k === 'staff password')).toHaveLength(4);
    expect([...secrets.values()].filter((k) => k === 'session token')).toHaveLength(3);

    app.assertNoSecretsInLogs();
    for (const [value, kind] of [...expected, [[...secrets].find(([, k]) => k === 'KEK')![0], 'KEK'] as [string, SecretKind]]) {
      app.logLines.push(`{"msg":"oops","detail":"…${value}…"}\n`);
      let message = '';
      try {
        app.assertNoSecretsInLogs();
      } catch (error) {
        message = (error as Error).message;
      }
      expect(message).toBe(`a ${kind} appears in log line ${app.logLines.length} of ${app.logLines.length}`);
      expect(message).not.toContain(value);
      app.logLines.pop();
    }

    app.logLines.push(`password=${owner.password!}\n`);
    closed = true;
    await expect(app.close()).rejects.toThrow(/^a staff password appears in log line/);
  });
});
