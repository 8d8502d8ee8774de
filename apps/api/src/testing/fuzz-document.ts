import { parse as parseQuery } from 'node:querystring';
import { documentSchemas } from './document-schemas.ts';
import type { BodyCase, Schema } from './fuzz-inputs.ts';

/**
 * The operations of a served OpenAPI document, and whether a request conforms to it: the fuzz
 * test's oracle for "malformed" (every malformed request must be refused and write nothing).
 */

export interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required: boolean;
  schema: Schema;
}

export interface Operation {
  method: string;
  path: string;
  operationId: string;
  parameters: Parameter[];
  /** The application/json request body schema, when the operation takes one. */
  body?: Schema;
}

export interface OpenApiDocument {
  paths: Record<string, Record<string, { operationId: string; parameters?: Parameter[]; requestBody?: { content: Record<string, { schema: Schema }> }; responses?: Record<string, unknown> }>>;
  components: { schemas: Record<string, Schema> };
}

export function operationsOf(document: OpenApiDocument): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => ({
      method: method.toUpperCase(),
      path,
      operationId: operation.operationId,
      parameters: operation.parameters ?? [],
      body: operation.requestBody?.content['application/json']?.schema,
    })),
  );
}

export interface FuzzRequest {
  /** Path parameter values as they go into the URL (percent-encoded). */
  pathValues: Record<string, string>;
  /** The query string without `?`. */
  query: string;
  idempotencyKey?: string;
  body?: BodyCase;
}

const NUMERIC = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** Validates values against the document's schemas. */
export function createConformance(document: OpenApiDocument) {
  const validator = documentSchemas(document);
  const conforms = (schema: Schema, value: unknown) => validator(schema)(value);

  /** A query or path value (always a string on the wire) read as the schema's type. */
  function conformsAsText(schema: Schema, text: string): boolean {
    if (conforms(schema, text)) return true;
    if (NUMERIC.test(text) && conforms(schema, Number(text))) return true;
    return (text === 'true' || text === 'false') && conforms(schema, text === 'true');
  }

  /** Why `request` does not conform to `operation` of the document; undefined when it does. */
  function malformedReason(operation: Operation, request: FuzzRequest): string | undefined {
    for (const parameter of operation.parameters.filter((p) => p.in === 'path')) {
      let value: string;
      try {
        value = decodeURIComponent(request.pathValues[parameter.name]!);
      } catch {
        return `path ${parameter.name}: bad percent-escape`;
      }
      if (value === '' || !conformsAsText(parameter.schema, value)) return `path ${parameter.name}`;
    }
    const query = parseQuery(request.query);
    for (const parameter of operation.parameters.filter((p) => p.in === 'query')) {
      const value = query[parameter.name];
      if (value === undefined) {
        if (parameter.required) return `query ${parameter.name}: missing`;
        continue;
      }
      if (Array.isArray(value)) return `query ${parameter.name}: repeated`;
      if (!conformsAsText(parameter.schema, value)) return `query ${parameter.name}`;
    }
    const header = operation.parameters.find((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key');
    if (header && request.idempotencyKey !== undefined && !conforms(header.schema, request.idempotencyKey)) return 'header Idempotency-Key';
    if (!operation.body) return undefined;
    const body = request.body;
    if (body?.raw === undefined) return 'body: missing';
    if (body.contentType?.split(';')[0]?.trim().toLowerCase() !== 'application/json') return 'body: content-type';
    let parsed: unknown;
    try {
      // RFC 8259 lets a parser ignore a byte order mark; body-parser does.
      parsed = JSON.parse(body.raw.replace(/^\ufeff/, ''));
    } catch {
      return 'body: not JSON';
    }
    return conforms(operation.body, parsed) ? undefined : 'body: schema';
  }

  return { conforms, malformedReason };
}
