import { generateKekEntry } from '@wallet/domain';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { ensureLocalCa, issueLoopbackCertificate } from './certificates.ts';
import { startListener, type Listener } from './listener.ts';
import { localCaCertFile } from './paths.ts';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup();
});

async function pingListener(app: TestApp, listener: Listener) {
  const key = await app.createKey();
  const scope = { apiKeyId: key.apiKeyId, projectId: key.projectId };
  await app.services.webhooks.set(scope, { url: listener.url, eventTypes: ['test.ping'] });
  return app.services.webhooks.testPing(scope);
}

/**
 * The `webhooks listen` CA is trusted by a local-mode service only, and read when it appears (after
 * the service started); a beta or production configuration with the same data directory never
 * loads it, so a certificate it issued fails verification there.
 */
describe('the local webhook-listen CA', () => {
  it('is in the configuration of local mode only', () => {
    const dataDir = '/tmp/wallet-ca-config';
    const outside = { DATA_DIR: dataDir, DATABASE_URL: 'postgresql://db/x', API_KEKS: 'a:k', SIGNER_URL: 'https://signer.internal:7443', SIGNER_CLIENT_TLS_CA: '/etc/signer/ca.pem', SIGNER_CLIENT_TLS_CERT: '/etc/signer/api.pem', SIGNER_CLIENT_TLS_KEY: '/etc/signer/api-key.pem', RECOVERY_PUBLIC_KEY_FILE: '/etc/wallet/recovery-public.pem' };
    expect(loadConfig({ APP_ENV: 'local', DATA_DIR: dataDir }).webhooks.localCaFile).toBe(localCaCertFile(dataDir));
    expect(loadConfig({ ...outside, APP_ENV: 'beta' }).webhooks.localCaFile).toBeUndefined();
    expect(loadConfig({ ...outside, APP_ENV: 'production' }).webhooks.localCaFile).toBeUndefined();
  });

  it('a local service trusts a listener certificate once the CA exists; a beta service on the same data directory does not', { timeout: 60_000 }, async () => {
    const local = await startTestApp('pglite', { env: { WEBHOOK_TIMEOUT_MS: '5000' } });
    cleanups.push(() => local.close());
    const { dataDir } = local;
    // Another process of the same deployment (database and data directory), configured as beta.
    const beta = await startTestApp('pglite', {
      alongside: { database: local.database, dataDir },
      env: {
        APP_ENV: 'beta',
        DATABASE_URL: 'postgresql://unused.invalid/beta',
        API_KEKS: generateKekEntry('api-1'),
        SIGNER_URL: 'https://signer.invalid:7443',
        SIGNER_CLIENT_TLS_CA: '/unused/ca.pem',
        SIGNER_CLIENT_TLS_CERT: '/unused/api.pem',
        SIGNER_CLIENT_TLS_KEY: '/unused/api-key.pem',
        RECOVERY_PUBLIC_KEY_FILE: '/unused/recovery-public.pem',
        WEBHOOK_TIMEOUT_MS: '5000',
      },
    });
    cleanups.push(() => beta.close());

    // The services started before the CA existed.
    const tls = await issueLoopbackCertificate(await ensureLocalCa(dataDir));
    const listener = await startListener({ tls, port: 0, forwardTo: null, forwardTimeoutMs: 1000, print: () => undefined, warn: () => undefined });
    cleanups.push(() => listener.close());

    expect(await pingListener(local, listener)).toMatchObject({ ok: true, statusCode: 200, error: null });
    const refused = await pingListener(beta, listener);
    expect(refused).toMatchObject({ ok: false, statusCode: null });
    expect(refused.error).toMatch(/UNABLE_TO_VERIFY_LEAF_SIGNATURE|unable to verify|self[- ]signed/i);
  });
});
