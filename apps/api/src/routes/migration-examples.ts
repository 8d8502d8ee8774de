import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the migration routes, by operationId (openapi.test.ts validates them). */
export const migrationExamples = {
  getEnclavePublicKey: {
    response: {
      200: {
        summary: 'PEM public key, its fingerprint (hex SHA-256 of the SPKI DER) and creation time',
        value: {
          publicKey: '0x04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235',
          keyFingerprint: 'string',
          generatedAt: '2026-11-25T07:12:00.000Z'
        }
      }
    }
  },
  migrateShare: {
    response: {
      200: {
        summary: 'The migrated wallet',
        value: {
          id: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182',
          type: 'EVM',
          scheme: 'DKLS',
          status: 'ready',
          createdAt: '2026-11-25T07:12:00.000Z',
          address: '0x000000000000000000000000000000000000dEaD',
          publicKey: '0x04a34b99f22c790c4e36b2b3c2c35a36db06226e41c692fc82b8b56ac1c540c5bd5b8dec5235a0fa8722476c7709c02559e3aa73aa03918ba2d492eea75abea235',
          userIdentifier: 'ada@example.com',
          userIdentifierType: 'EMAIL'
        }
      },
      404: {
        summary: 'No such wallet in this project',
        value: {
          code: 'NOT_FOUND',
          message: 'Wallet not found'
        }
      }
    },
    request: {
      summary: 'Migrate an unclaimed client-side pregenerated wallet so it signs through REST',
      body: {
        encryptedPayload: 'ZXhhbXBsZS1lbmNyeXB0ZWQtc2hhcmUtcGF5bG9hZA=='
      },
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
} satisfies Record<string, RouteExamples>;
