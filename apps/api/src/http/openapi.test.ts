import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Spectral, type RulesetDefinition } from '@stoplight/spectral-core';
import { oas } from '@stoplight/spectral-rulesets';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servedOpenApiDocument } from '../client/client-types.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

/**
 * Every problem two strict OpenAPI linters report, errors and warnings alike: Spectral's `spectral:oas`
 * ruleset and Redocly's `recommended` one, with no rule turned off.
 */
async function lintProblems(source: string, absoluteRef: string): Promise<string[]> {
  const spectral = new Spectral();
  // spectral-rulesets declares oas with an inferred type that setRuleset's parameter type does not accept.
  spectral.setRuleset(oas as RulesetDefinition);
  const spectralProblems = (await spectral.run(source)).map((p) => `spectral ${p.code}: ${p.message} at ${p.path.join('.')}`);
  const redocly = await lintFromString({ source, absoluteRef, config: await createConfig({ extends: ['recommended'] }) });
  const redoclyProblems = redocly.map((p) => `redocly ${p.ruleId} (${p.severity}): ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
  return [...spectralProblems, ...redoclyProblems];
}

type Operations = Record<string, Record<string, { operationId: string; description?: string; tags?: string[]; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>>;

/** The served /v1/openapi.json, as partners' generators and linters read it. */
describe('the served OpenAPI document', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('pglite');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('gets no error and no warning from Spectral (spectral:oas) and Redocly (recommended)', async () => {
    const served = await fetch(`${app.baseUrl}/v1/openapi.json`);
    expect(served.status).toBe(200);
    expect(await lintProblems(await served.text(), `${app.baseUrl}/v1/openapi.json`)).toEqual([]);
  });

  it('gets none in local mode either (the same builder with the /v1/local routes)', async () => {
    const local = servedOpenApiDocument({ local: true });
    expect(Object.keys(local.paths)).toContain('/v1/local/faucet');
    expect(await lintProblems(JSON.stringify(local), 'http://127.0.0.1/v1/openapi.json')).toEqual([]);
  });

  it('describes and tags every operation, and no component schema is a reference to itself', async () => {
    const document = (await (await fetch(`${app.baseUrl}/v1/openapi.json`)).json()) as {
      tags: { name: string; description: string }[];
      paths: Operations;
      components: { schemas: Record<string, { $ref?: string }> };
    };
    const schemas = document.components.schemas;
    const selfReferencing = Object.entries(schemas).filter(([name, schema]) => schema.$ref === `#/components/schemas/${name}`).map(([name]) => name);
    expect(selfReferencing).toEqual([]);
    expect(schemas.InvalidRequest).toMatchObject({ type: 'object', required: ['code', 'message'] });
    const operations = Object.values(document.paths).flatMap((item) => Object.values(item));
    expect(operations.filter((operation) => !operation.description?.trim()).map((operation) => operation.operationId)).toEqual([]);
    const declared = new Set(document.tags.map((tag) => tag.name));
    expect(operations.flatMap((operation) => operation.tags ?? []).filter((tag) => !declared.has(tag))).toEqual([]);
    // The production document declares no tag without operations (Local is local mode only).
    expect(declared.has('Local')).toBe(false);
    // Every status of every operation that has a body says what the body is.
    const withoutSchema = operations.flatMap((operation) =>
      Object.entries(operation.responses).filter(([status, response]) => Number(status) >= 400 && !response.content?.['application/json']?.schema).map(([status]) => `${operation.operationId} ${status}`),
    );
    expect(withoutSchema).toEqual([]);
  });
});
