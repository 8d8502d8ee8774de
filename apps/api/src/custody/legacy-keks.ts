/**
 * Local data directories from before the signer process kept both share KEKs in DATA_DIR/keks.json,
 * next to the API, and sealed webhook secrets under the service-share KEK. On the first start
 * after the upgrade the API seals every webhook secret again under its own KEK (DATA_DIR/api) and
 * hands the share KEKs to the signer (DATA_DIR/signer/keks.json), before the signer starts. Each step
 * can be repeated: a kill in between is finished by the next start. Beyond local mode the same
 * hand-over is the operator's (docs/operations.md).
 */
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileKekProvider, openWebhookSecret, sealWebhookSecret, type KekProvider } from '@wallet/domain';
import type { Database } from '@wallet/db';
import type { Config } from '../config.ts';
import { apiKekProvider } from './signer-connection.ts';

const legacyFile = (config: Config) => join(config.dataDir, 'keks.json');

export const legacyLocalKeksPresent = (config: Config) => existsSync(legacyFile(config));

/** Webhook secrets sealed under a KEK of `from` are sealed again under the current KEK of `to`. Answers how many. */
export async function resealWebhookSecrets(database: Database, from: KekProvider, to: KekProvider): Promise<number> {
  const endpoints = await database.prisma.webhookEndpoint.findMany({
    select: { id: true, secretKekId: true, secret: true, previousSecretKekId: true, previousSecret: true },
  });
  let count = 0;
  for (const endpoint of endpoints) {
    const reseal = (kekId: string | null, sealed: Uint8Array | null) => {
      if (kekId === null || sealed === null || !from.byId(kekId)) return null;
      return sealWebhookSecret(to, endpoint.id, openWebhookSecret(from, endpoint.id, kekId, sealed));
    };
    const current = reseal(endpoint.secretKekId, endpoint.secret);
    const previous = reseal(endpoint.previousSecretKekId, endpoint.previousSecret);
    if (!current && !previous) continue;
    await database.prisma.webhookEndpoint.update({
      where: { id: endpoint.id },
      data: {
        ...(current ? { secretKekId: current.kekId, secret: new Uint8Array(current.sealed) } : {}),
        ...(previous ? { previousSecretKekId: previous.kekId, previousSecret: new Uint8Array(previous.sealed) } : {}),
      },
    });
    count += 1;
  }
  return count;
}

export async function adoptLegacyLocalKeks(config: Config, database: Database): Promise<void> {
  const legacy = fileKekProvider(config.dataDir);
  await resealWebhookSecrets(database, legacy, apiKekProvider(config));
  const signerDir = join(config.dataDir, 'signer');
  mkdirSync(signerDir, { recursive: true, mode: 0o700 });
  const target = join(signerDir, 'keks.json');
  if (existsSync(target)) {
    throw new Error(`${legacyFile(config)} and ${target} both exist: the share KEKs belong to the signer alone; keep the one the wallets were sealed under (see docs/operations.md)`);
  }
  renameSync(legacyFile(config), target);
}
