import type { RouteExamples } from '../http/route.ts';
import { exampleWallet, walletId, walletNotFound } from './example-values.ts';

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
      200: { summary: 'The migrated wallet', value: exampleWallet },
      404: walletNotFound,
    },
    request: {
      summary: 'The envelope encryptShareForMigration made with the enclave key',
      body: {
        encryptedPayload: '{"encryptedData":"pf9iVP3i6w3Rs1Qt6Lo1L7DOOcRx51Kx9cRWIcxXaZ1FyOQXnTvmjOqsXaFRh7O7ssEIZ18vyvTYnaeykOyDZUp9jXyEh9gV0htX5BWEKICyWjXqhexjFnDGRmGLkCfBLyPcWMKY+uGuwnmFJTuJcTQKRByF0L2Q4i/LuQ==","keyId":"f03aeab4e85e26e411454f8180df496043bd5af8f2165f9822526b2093a3d7f2","ephemeral":"BPmcz55q16ywb+9/9N/LZTJuYwz1beNxQ+TFa1Y3wnVa9RMkzpaAb1BDzD546v/ylErmsPzbveyIEH7YJnkY7js=","algorithm":"ECIES-P256-AES256-SHA256"}'
      },
      parameters: { walletId },
    },
  },
} satisfies Record<string, RouteExamples>;
