import type { RouteExamples } from '../http/route.ts';

/** Request and response examples of the migration routes, by operationId (openapi-examples.test.ts validates them). */
export const migrationExamples = {
  getEnclavePublicKey: {
    response: {
      200: {
        summary: "The deployment's P-256 key",
        value: {
          publicKey: '-----BEGIN PUBLIC KEY-----\nMFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAETN3wDobx2iYt2UTOgON87J+gdEKY\n5zeKXlJVTez8Iv0+cXF3u0OndK3HUSmEUesPG2sfDf8EMKZSH1er/7FvTA==\n-----END PUBLIC KEY-----\n',
          keyFingerprint: 'f03aeab4e85e26e411454f8180df496043bd5af8f2165f9822526b2093a3d7f2',
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
          address: '0xc59Ae5c96bBB7E6eD34103683f1B4873DE89Dd0B',
          publicKey: '0x04aafb10dd802f05b58e7e8a6154fa76f2177aae269e58a358f8332dd45658d22bba6da38a77f5156d86f9555c4291c036791ac60ed4d3d480341bb95d3223b041',
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
      summary: 'The envelope encryptShareForMigration made with the enclave key',
      body: {
        encryptedPayload: '{"encryptedData":"pf9iVP3i6w3Rs1Qt6Lo1L7DOOcRx51Kx9cRWIcxXaZ1FyOQXnTvmjOqsXaFRh7O7ssEIZ18vyvTYnaeykOyDZUp9jXyEh9gV0htX5BWEKICyWjXqhexjFnDGRmGLkCfBLyPcWMKY+uGuwnmFJTuJcTQKRByF0L2Q4i/LuQ==","keyId":"f03aeab4e85e26e411454f8180df496043bd5af8f2165f9822526b2093a3d7f2","ephemeral":"BPmcz55q16ywb+9/9N/LZTJuYwz1beNxQ+TFa1Y3wnVa9RMkzpaAb1BDzD546v/ylErmsPzbveyIEH7YJnkY7js=","algorithm":"ECIES-P256-AES256-SHA256"}'
      },
      parameters: {
        walletId: '575ce9c4-3325-4704-a0f9-ad4f1e1c3182'
      }
    }
  },
} satisfies Record<string, RouteExamples>;
