import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import openapiTS, { astToString, COMMENT_HEADER } from 'openapi-typescript';
import { allRoutes } from '../app.ts';
import { buildOpenApi } from '../http/openapi.ts';
import type { Services } from '../services.ts';

/** Where `@wallet/client` keeps its checked-in types. */
export const CLIENT_TYPES_FILE = fileURLToPath(new URL('../../../../packages/client/src/generated/openapi.ts', import.meta.url));
export const REGENERATE_COMMAND = 'npm run client:generate';

/**
 * The /v1/openapi.json document the service serves, built in-process from the same route table.
 * The route factories only capture their services (handlers call them per request), so building
 * the table needs none: every service method here throws if called. `local` adds the routes served
 * in local mode only (`POST /v1/local/faucet`, `GET /v1/local/devnets`).
 */
export function servedOpenApiDocument({ local }: { local: boolean }) {
  const unused = new Proxy(
    {},
    {
      get: (_target, name) => () => {
        throw new Error(`building the OpenAPI document called a service (${String(name)})`);
      },
    },
  );
  const services = new Proxy({} as Services, {
    get: (_target, name) => (name === 'localFaucet' || name === 'localDevnets' ? (local ? unused : undefined) : unused),
  });
  return buildOpenApi(allRoutes(services));
}

/**
 * The TypeScript source of `packages/client/src/generated/openapi.ts`: openapi-typescript over the
 * document as served in local mode (a superset of production's: it adds the /v1/local routes).
 */
export async function generateClientTypes(): Promise<string> {
  const document = servedOpenApiDocument({ local: true });
  // A request field with a default (the faucet's `token`) is optional to send; openapi-typescript
  // would otherwise type every field with a default as always present.
  const ast = await openapiTS(JSON.parse(JSON.stringify(document)) as Parameters<typeof openapiTS>[0], { defaultNonNullable: false });
  const header = `${COMMENT_HEADER}// Generated from the service's /v1/openapi.json (local mode, so it includes the /v1/local routes).\n// Regenerate with \`${REGENERATE_COMMAND}\`; apps/api/src/client/generated-types.test.ts fails when it is stale.\n\n`;
  return header + astToString(ast);
}

export function readCheckedInClientTypes(): string {
  return readFileSync(CLIENT_TYPES_FILE, 'utf8');
}

export const clientTypesRelativePath = path.relative(fileURLToPath(new URL('../../../../', import.meta.url)), CLIENT_TYPES_FILE);
