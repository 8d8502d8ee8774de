import { enclavePublicKeySchema, errorBodies, migrateShareBody, walletSchema, type MigrationService } from '@wallet/domain';
import { defineRoutes } from '../http/route.ts';
import { migrationExamples } from './migration-examples.ts';

export function migrationRoutes(migration: MigrationService) {
  return defineRoutes([
    {
      method: 'get',
      path: '/v1/enclave/public-key',
      operationId: 'getEnclavePublicKey',
      examples: migrationExamples.getEnclavePublicKey,
      summary: 'The P-256 public key that migrated shares are encrypted to',
      description: "The deployment's P-256 public key (PEM), its fingerprint (`keyFingerprint`, hex SHA-256 of the SPKI DER) and when it was generated. A client-side pregenerated wallet's share is encrypted to it (ECIES-P256-AES256-SHA256) for `migrate-share`.",
      tag: 'Migration',
      responses: { 200: { description: 'PEM public key, its fingerprint (hex SHA-256 of the SPKI DER) and creation time', schema: enclavePublicKeySchema } },
      handler: async () => ({ status: 200, body: await migration.publicKey() }),
    },
    {
      method: 'post',
      path: '/v1/wallets/{walletId}/migrate-share',
      operationId: 'migrateShare',
      examples: migrationExamples.migrateShare,
      summary: 'Migrate an unclaimed client-side pregenerated wallet so it signs through REST',
      description: "Takes the encrypted share of a client-side pregenerated wallet (`encryptedPayload`, the envelope encrypted to the enclave public key) and stores it, so the wallet signs through REST from then on. A payload for another wallet, a scheme mismatch or a share that does not complete the wallet's key is 400 and stores nothing; a claimed wallet is 403 `WALLET_ALREADY_CLAIMED`; a wallet migrated or created over REST is 409 `WALLET_ALREADY_MIGRATED`.",
      tag: 'Migration',
      body: migrateShareBody,
      responses: {
        200: { description: 'The migrated wallet', schema: walletSchema },
        403: { description: 'WALLET_ALREADY_CLAIMED', errors: [errorBodies.walletAlreadyClaimed] },
        409: { description: 'WALLET_ALREADY_MIGRATED', errors: [errorBodies.walletAlreadyMigrated] },
      },
      handler: async ({ caller, params, body }) => ({ status: 200, body: await migration.migrate(caller, params.walletId ?? '', body) }),
    },
  ]);
}
