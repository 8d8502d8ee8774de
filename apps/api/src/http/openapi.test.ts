import { createConfig, lintFromString } from '@redocly/openapi-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from '../testing/harness.ts';

/** The served /v1/openapi.json, as partners' generators read it: a real OpenAPI validator (Redocly's recommended rules) finds no error in it. */
describe('the served OpenAPI document', () => {
  let app: TestApp;
  beforeAll(async () => {
    app = await startTestApp('pglite');
  });
  afterAll(async () => {
    await app?.close();
  });

  it('passes Redocly\'s validation with no error, and no component schema is a reference to itself', async () => {
    const served = await fetch(`${app.baseUrl}/v1/openapi.json`);
    expect(served.status).toBe(200);
    const source = await served.text();
    const problems = await lintFromString({ source, absoluteRef: `${app.baseUrl}/v1/openapi.json`, config: await createConfig({ extends: ['recommended'] }) });
    const errors = problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message} at ${p.location.map((l) => l.pointer).join(', ')}`);
    expect(errors).toEqual([]);
    const schemas = (JSON.parse(source) as { components: { schemas: Record<string, { $ref?: string }> } }).components.schemas;
    const selfReferencing = Object.entries(schemas).filter(([name, schema]) => schema.$ref === `#/components/schemas/${name}`).map(([name]) => name);
    expect(selfReferencing).toEqual([]);
    expect(schemas.InvalidRequest).toMatchObject({ type: 'object', required: ['code', 'message'] });
    // Every status of every operation that has a body says what the body is.
    const paths = (JSON.parse(source) as { paths: Record<string, Record<string, { operationId: string; responses: Record<string, { content?: Record<string, { schema?: unknown }> }> }>> }).paths;
    const withoutSchema = Object.values(paths).flatMap((item) =>
      Object.values(item).flatMap((operation) =>
        Object.entries(operation.responses).filter(([status, response]) => Number(status) >= 400 && !response.content?.['application/json']?.schema).map(([status]) => `${operation.operationId} ${status}`),
      ),
    );
    expect(withoutSchema).toEqual([]);
  });
});
