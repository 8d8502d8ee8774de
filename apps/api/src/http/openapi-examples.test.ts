import { describe, expect, it } from 'vitest';
import { servedOpenApiDocument } from '../client/client-types.ts';
import { documentSchemas, type DocumentWithSchemas, type Schema } from '../testing/document-schemas.ts';

type Examples = Record<string, { value: unknown }>;
interface Media {
  schema?: Schema;
  examples?: Examples;
}
interface Operation {
  operationId: string;
  parameters?: { name: string; in: string; schema: Schema; examples?: Examples }[];
  requestBody?: { content: Record<string, Media> };
  responses: Record<string, { content?: Record<string, Media> }>;
}
type Document = DocumentWithSchemas & { paths: Record<string, Record<string, Operation>> };

/**
 * What is wrong with the examples of a document: an operation without a request example (it has a
 * body, or path/query parameters) or without an example of its success answer, and every example
 * its schema refuses, checked with the ajv setup the response contract check uses.
 */
function exampleProblems(document: Document): string[] {
  const validator = documentSchemas(document);
  const problems: string[] = [];
  const check = (operationId: string, where: string, schema: Schema | undefined, examples: Examples | undefined) => {
    for (const [name, example] of Object.entries(examples ?? {})) {
      if (!schema) {
        problems.push(`${operationId} ${where} example "${name}": no schema to hold it`);
        continue;
      }
      const validate = validator(schema);
      if (!validate(example.value)) {
        const errors = (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message} ${JSON.stringify(error.params)}`).join('; ');
        problems.push(`${operationId} ${where} example "${name}": ${errors}`);
      }
    }
  };
  for (const operations of Object.values(document.paths)) {
    for (const operation of Object.values(operations)) {
      const id = operation.operationId;
      const parameters = (operation.parameters ?? []).filter((parameter) => parameter.in === 'path' || parameter.in === 'query');
      const body = operation.requestBody?.content['application/json'];
      for (const parameter of parameters) {
        if (parameter.in === 'path' && !parameter.examples) problems.push(`${id}: no example of path parameter ${parameter.name}`);
        check(id, `parameter ${parameter.name}`, parameter.schema, parameter.examples);
      }
      if (parameters.length > 0 && !body && !parameters.some((parameter) => parameter.examples)) problems.push(`${id}: no request example`);
      if (body && !body.examples) problems.push(`${id}: no request body example`);
      check(id, 'request body', body?.schema, body?.examples);
      let successExamples = 0;
      for (const [status, response] of Object.entries(operation.responses)) {
        const media = response.content?.['application/json'];
        if (Number(status) < 300 && media) successExamples += Object.keys(media.examples ?? {}).length;
        check(id, `response ${status}`, media?.schema, media?.examples);
      }
      if (successExamples === 0) problems.push(`${id}: no example of its success answer`);
    }
  }
  return problems;
}

describe('the examples of the OpenAPI document', () => {
  // Local mode serves a superset of the production document (the /v1/local routes).
  const served = () => servedOpenApiDocument({ local: true }) as unknown as Document;

  it('shows a request and a success answer for every operation, each valid against its schema', () => {
    expect(exampleProblems(served())).toEqual([]);
  });

  it('names the operation and the example when an example breaks its schema or is missing', () => {
    const document = structuredClone(served());
    const create = document.paths['/v1/wallets']!.post!;
    const created = create.responses['201']!.content!['application/json']!.examples!.example!;
    (created.value as Record<string, unknown>).createdBy = 'a field the schema does not have';
    (created.value as Record<string, unknown>).type = 'DOGE';
    delete create.requestBody!.content['application/json']!.examples;
    const getWallet = document.paths['/v1/wallets/{walletId}']!.get!;
    getWallet.parameters!.find((parameter) => parameter.name === 'walletId')!.examples!.example!.value = 'not-a-uuid';
    const problems = exampleProblems(document);
    expect(problems).toContain('createWallet: no request body example');
    expect(problems.some((problem) => problem.startsWith('createWallet response 201 example "example": '))).toBe(true);
    expect(problems.some((problem) => problem.startsWith('getWallet parameter walletId example "example": / must match format "uuid"'))).toBe(true);
  });
});
