import { describe, expect, it } from 'vitest';
import { createConformance, type OpenApiDocument, type Operation } from './fuzz-document.ts';
import { createRng, malformedBody, sampleValid, seedFrom, type Schema } from './fuzz-inputs.ts';

const components: Record<string, Schema> = {
  Transfer: {
    type: 'object',
    properties: {
      to: { type: 'string', minLength: 1, maxLength: 128, pattern: '^[^\\u0000-\\u001f\\u007f]*$' },
      value: { type: 'string', pattern: '^(0|[1-9]\\d{0,77})$' },
      chainId: { type: 'integer', exclusiveMinimum: 0 },
      note: { type: 'object', properties: { tag: { type: 'string', enum: ['a', 'b'] } }, required: ['tag'], additionalProperties: false },
    },
    required: ['to', 'value', 'chainId', 'note'],
    additionalProperties: false,
  },
};
const document: OpenApiDocument = { paths: {}, components: { schemas: components } };
const operation: Operation = {
  method: 'POST',
  path: '/v1/things/{walletId}',
  operationId: 'thing',
  parameters: [
    { name: 'walletId', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } },
    { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: 100 } },
    { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', minLength: 1, maxLength: 256 } },
  ],
  body: { $ref: '#/components/schemas/Transfer' },
};
const wallet = '7d444840-9dc0-11d1-b245-5ffdce74fad2';

describe('fuzz inputs', () => {
  it('are the same for the same seed and differ for another', () => {
    const run = (seed: number) => Array.from({ length: 50 }, (_, i) => malformedBody(operation.body!, components, createRng(seed + i * 7919)));
    expect(run(1)).toEqual(run(1));
    expect(run(1)).not.toEqual(run(2));
  });

  it('reads FUZZ_SEED as a 32-bit integer and refuses anything else', () => {
    expect(seedFrom(undefined, 5)).toBe(5);
    expect(seedFrom('', 5)).toBe(5);
    expect(seedFrom('42', 5)).toBe(42);
    expect(seedFrom('0x10', 5)).toBe(16);
    expect(() => seedFrom('abc', 5)).toThrow(/FUZZ_SEED/);
    expect(() => seedFrom('-1', 5)).toThrow(/FUZZ_SEED/);
  });

  it('samples bodies the document accepts, and almost every mutation of one it refuses', () => {
    const { conforms, malformedReason } = createConformance(document);
    const rng = createRng(7);
    for (let i = 0; i < 20; i++) expect(conforms(operation.body!, sampleValid(operation.body!, components, rng))).toBe(true);
    const request = (body: ReturnType<typeof malformedBody>) => ({ pathValues: { walletId: wallet }, query: '', body });
    const reasons = Array.from({ length: 300 }, () => malformedReason(operation, request(malformedBody(operation.body!, components, rng))));
    // The only mutations that may conform: a unicode string or lone surrogate where any string fits, a number as another number.
    expect(reasons.filter((reason) => reason === undefined).length).toBeLessThan(30);
    expect(new Set(reasons)).toEqual(new Set([undefined, 'body: schema', 'body: not JSON', 'body: content-type', 'body: missing']));
  });

  it('judges path, query and header values as the document types them', () => {
    const { malformedReason } = createConformance(document);
    const body = { label: 'valid', raw: JSON.stringify({ to: 'x', value: '1', chainId: 1, note: { tag: 'a' } }), contentType: 'application/json' };
    const judge = (pathValues: Record<string, string>, query = '', idempotencyKey?: string) => malformedReason(operation, { pathValues, query, body, idempotencyKey });
    expect(judge({ walletId: wallet }, 'limit=5', 'k')).toBeUndefined();
    expect(judge({ walletId: '%00' })).toBe('path walletId');
    expect(judge({ walletId: '%ZZ' })).toBe('path walletId: bad percent-escape');
    expect(judge({ walletId: wallet }, 'limit=abc')).toBe('query limit');
    expect(judge({ walletId: wallet }, 'limit=1&limit=2')).toBe('query limit: repeated');
    expect(judge({ walletId: wallet }, 'unknown=1')).toBeUndefined();
    expect(judge({ walletId: wallet }, '', 'a'.repeat(257))).toBe('header Idempotency-Key');
    expect(malformedReason(operation, { pathValues: { walletId: wallet }, query: '', body: { ...body, raw: `\ufeff${body.raw}` } })).toBeUndefined();
  });
});
