import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_KEK_ROLES, fileKekProvider, openWebhookSecret } from '@wallet/domain';
import { sealUnderKek } from '@wallet/domain/custody/kek-seal.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../config.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { adoptLegacyLocalKeks, legacyLocalKeksPresent, resealWebhookSecrets } from './legacy-keks.ts';

/**
 * Data from before the signer process: both share KEKs in DATA_DIR/keks.json, webhook secrets sealed
 * under the service-share KEK. The API hands the file to the signer and seals the secrets again under
 * its own KEK; repeated, nothing changes twice.
 */
describe('the hand-over of a data directory from before the signer', () => {
  let app: TestApp;
  const legacyDir = mkdtempSync(path.join(tmpdir(), 'legacy-keks-'));
  beforeAll(async () => {
    app = await startTestApp('pglite');
  });
  afterAll(async () => {
    await app?.close();
    rmSync(legacyDir, { recursive: true, force: true });
  });

  it('seals webhook secrets of the former service KEK again under the API KEK, once', async () => {
    const issued = await app.createKey();
    const scope = { apiKeyId: issued.apiKeyId, projectId: issued.projectId };
    const { secret } = await app.services.webhooks.set(scope, { url: 'https://example.com/hooks', eventTypes: ['user.created'] });
    const endpoint = await app.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { apiKeyId: issued.apiKeyId } });
    // As the former service sealed it: under its service-share KEK (the legacy file's).
    const legacy = fileKekProvider(legacyDir);
    const kek = legacy.current('service');
    const { iv, ciphertext } = sealUnderKek(kek, endpoint.id, Buffer.from(secret!, 'utf8'));
    await app.database.prisma.webhookEndpoint.update({ where: { id: endpoint.id }, data: { secretKekId: kek.id, secret: new Uint8Array(Buffer.concat([iv, ciphertext])) } });

    const apiKeks = fileKekProvider(path.join(app.dataDir, 'api'), API_KEK_ROLES);
    expect(await resealWebhookSecrets(app.database, legacy, apiKeks)).toBe(1);
    const resealed = await app.database.prisma.webhookEndpoint.findUniqueOrThrow({ where: { id: endpoint.id } });
    expect(resealed.secretKekId).toBe(apiKeks.current('api').id);
    expect(openWebhookSecret(apiKeks, endpoint.id, resealed.secretKekId, resealed.secret)).toBe(secret);
    // A second run finds nothing under the former KEK.
    expect(await resealWebhookSecrets(app.database, legacy, apiKeks)).toBe(0);
    // Sealed under the API KEK, the former KEK does not open it.
    expect(() => openWebhookSecret(legacy, endpoint.id, resealed.secretKekId, resealed.secret)).toThrow();
  });

  it("moves DATA_DIR/keks.json to the signer's directory, and refuses when the signer already has KEKs", async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'legacy-data-'));
    try {
      const legacy = fileKekProvider(dataDir); // writes DATA_DIR/keks.json, as the former service did
      const config = loadConfig({ APP_ENV: 'local', DATA_DIR: dataDir });
      const before = readFileSync(path.join(dataDir, 'keks.json'), 'utf8');
      expect(legacyLocalKeksPresent(config)).toBe(true);
      await adoptLegacyLocalKeks(config, app.database);
      expect(legacyLocalKeksPresent(config)).toBe(false);
      expect(readFileSync(path.join(dataDir, 'signer', 'keks.json'), 'utf8')).toBe(before);
      expect(fileKekProvider(path.join(dataDir, 'signer')).current('service').id).toBe(legacy.current('service').id);

      // Both files: which one sealed the wallets is the operator's call, never a guess.
      fileKekProvider(dataDir);
      await expect(adoptLegacyLocalKeks(config, app.database)).rejects.toThrow(/both exist: the share KEKs belong to the signer alone/);
      expect(existsSync(path.join(dataDir, 'keks.json'))).toBe(true);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
