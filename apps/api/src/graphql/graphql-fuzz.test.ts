import { testDatabaseKinds } from '@wallet/db';
import { CONTROL_CHARACTER_MESSAGE, hasControlCharacter } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePartner, restWallet } from '../testing/console-fixtures.ts';
import { controlStrings, createRng, hugeNumbers, seedFrom, unicodeStrings, type Rng } from '../testing/fuzz-inputs.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

/**
 * `/graphql` from outside: every argument of every field the schema describes (root fields, and
 * the fields of what they return) with seeded malformed values, as literals and as variables,
 * and the transport itself: methods, content types, bodies, batches, oversized and deeply nested
 * documents and variables. Every answer must be below 500, JSON, and every error must carry the
 * spec body in `extensions` (`code`, `message`, `status`); a control character in any argument is
 * a 400 INVALID_REQUEST; nothing may be logged as a server error. FUZZ_SEED reruns another seed,
 * FUZZ_CASES sets the documents per field.
 */
const SEED = seedFrom(process.env.FUZZ_SEED, 20_261_203);
const CASES = Number(process.env.FUZZ_CASES || 10);
if (!Number.isInteger(CASES) || CASES < 1) throw new Error(`FUZZ_CASES must be a positive integer, got ${process.env.FUZZ_CASES}`);
/** One database: the transport is under test (PostgreSQL when TEST_DATABASE_URL is set; both refuse U+0000 in text). */
const kind = testDatabaseKinds.at(-1)!;
/** What the console sends: the GraphQL-over-HTTP media type first, so request errors are HTTP 400s. */
const ACCEPT = 'application/graphql-response+json, application/json';

interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface Field {
  name: string;
  args: Array<{ name: string; type: TypeRef }>;
  type: TypeRef;
}
const TYPE_REF = 'kind name ofType { kind name ofType { kind name ofType { kind name } } }';
const INTROSPECTION = `{ __schema { queryType { name } types { name kind enumValues { name } fields { name args { name type { ${TYPE_REF} } } type { ${TYPE_REF} } } } } }`;

const named = (ref: TypeRef): TypeRef => (ref.ofType ? named(ref.ofType) : ref);
const typeText = (ref: TypeRef): string => (ref.kind === 'NON_NULL' ? `${typeText(ref.ofType!)}!` : ref.kind === 'LIST' ? `[${typeText(ref.ofType!)}]` : ref.name!);
const hash = (text: string) => [...text].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);

/** A value written as a GraphQL literal (JSON's string escapes are GraphQL's; a raw number is written as is). */
function literal(value: unknown): string {
  if (value instanceof RawNumber) return value.text;
  if (Array.isArray(value)) return `[${value.map(literal).join(', ')}]`;
  if (typeof value === 'object' && value !== null) return `{${Object.entries(value).map(([k, v]) => `${k}: ${literal(v)}`).join(', ')}}`;
  return JSON.stringify(value);
}
/** A number JSON and GraphQL can write but JavaScript cannot hold (1e400, 2^64). */
class RawNumber {
  constructor(readonly text: string) {}
  toJSON() {
    return Number(this.text);
  }
}

/** The strings of a value, to tell whether it carries a control character. */
const stringsOf = (value: unknown): string[] =>
  typeof value === 'string' ? [value] : Array.isArray(value) ? value.flatMap(stringsOf) : typeof value === 'object' && value !== null && !(value instanceof RawNumber) ? Object.values(value).flatMap(stringsOf) : [];

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

/** What is wrong with an answer: a 5xx, not JSON, an error without the spec body in `extensions`. */
function problemsOf(method: string, answer: Answer): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  if (method === 'HEAD') return problems;
  if (!/^application\/(graphql-response\+)?json/.test(answer.headers.get('content-type') ?? '')) problems.push(`content-type ${answer.headers.get('content-type')}`);
  if (answer.body === undefined) return [...problems, `not JSON: ${answer.text.slice(0, 80)}`];
  // Node's HTTP parser refused the request line before yoga (over 16 KB): the service's plain error body.
  if (answer.status === 431) return typeof answer.body.code === 'string' ? problems : [...problems, `431 without code: ${answer.text.slice(0, 120)}`];
  for (const error of answer.body.errors ?? []) {
    const extensions = error?.extensions;
    if (typeof error?.message !== 'string' || typeof extensions?.code !== 'string' || typeof extensions?.message !== 'string' || typeof extensions?.status !== 'number') {
      problems.push(`error without the spec body in extensions: ${JSON.stringify(error).slice(0, 200)}`);
    } else if (extensions.status >= 500) problems.push(`an error ${extensions.status} ${extensions.code}`);
    if ('http' in (extensions ?? {})) problems.push('extensions.http shown');
  }
  if (answer.status >= 400 && !(answer.body.errors?.length > 0)) problems.push(`${answer.status} without errors`);
  return problems;
}

describe(`GraphQL fuzz on ${kind} (FUZZ_SEED=${SEED})`, () => {
  let app: TestApp;
  let cookie: string;
  let projectId: string;
  let walletId: string;
  let query: Field[];
  let types: Map<string, { kind: string; fields: Field[] | null; enumValues: Array<{ name: string }> | null }>;

  beforeAll(async () => {
    app = await startTestApp(kind);
    const partner = await consolePartner(app, [], ['support']);
    cookie = partner.cookies.support;
    projectId = partner.key.projectId;
    walletId = (await restWallet(app, partner.key.apiKey)).id;
    const schema = (await send('POST', { query: INTROSPECTION })).body.data.__schema;
    types = new Map(schema.types.map((t: { name: string }) => [t.name, t]));
    query = types.get(schema.queryType.name)!.fields!;
  });
  afterAll(async () => {
    await app?.close();
  });

  async function send(method: string, payload?: unknown, options: { raw?: string; contentType?: string; headers?: Record<string, string>; path?: string } = {}): Promise<Answer> {
    const headers: Record<string, string> = { cookie, accept: ACCEPT, ...options.headers };
    const body = options.raw ?? (payload === undefined ? undefined : JSON.stringify(payload));
    if (body !== undefined) headers['content-type'] = options.contentType ?? 'application/json';
    const response = await fetch(`${app.baseUrl}${options.path ?? '/graphql'}`, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      // judged by problemsOf
    }
    return { status: response.status, headers: response.headers, text, body: parsed };
  }

  const serverErrors = () => app.logLines.filter((line) => /"level":(50|60)/.test(line)).map((line) => line.slice(0, 300));

  /** A value an argument takes (real ids where the name says which). */
  function usual(name: string, ref: TypeRef): unknown {
    const type = named(ref);
    if (type.name === 'Int') return name === 'status' ? 403 : 5;
    if (type.name === 'Boolean') return true;
    if (type.kind === 'ENUM') return types.get(type.name!)!.enumValues![0]!.name;
    if (name === 'projectId') return projectId;
    if (name === 'environment') return 'development';
    if (name === 'id' || name === 'walletId') return walletId;
    return 'a';
  }

  /** A malformed value for an argument: control characters, other text, numbers out of range, the wrong type. */
  function malformed(rng: Rng): unknown {
    switch (rng.int(6)) {
      case 0:
        return rng.pick(controlStrings);
      case 1:
        return rng.pick([...unicodeStrings, '', ' ', '%00', "' OR 1=1--", 'a'.repeat(rng.pick([201, 5_000, 70_000]))]);
      case 2:
        return rng.pick([0, -1, 2 ** 31, 1.5, -(2 ** 53), new RawNumber(rng.pick(hugeNumbers.filter((n) => !n.startsWith('-0'))))]);
      case 3:
        return rng.pick([null, true, [], ['a', 1], {}, { a: 'x' }]);
      case 4:
        return `${rng.pick(['0x', 'a'])}${rng.pick(controlStrings)}${'f'.repeat(rng.int(64))}`;
      default:
        return rng.pick(hugeNumbers);
    }
  }

  /** One document for a field: each argument omitted, usual or malformed, as a literal or a variable; a selection that is valid for what it returns. */
  function documentFor(field: Field, rng: Rng, parent?: Field) {
    const variables: Record<string, unknown> = {};
    const declared: string[] = [];
    const values: unknown[] = [];
    const argsOf = (f: Field, fuzz: boolean) => {
      const parts: string[] = [];
      for (const arg of f.args) {
        const required = arg.type.kind === 'NON_NULL';
        const choice = fuzz ? rng.int(3) : 1;
        if (choice === 0 && !required) continue;
        const value = choice === 2 ? malformed(rng) : usual(arg.name, arg.type);
        if (choice === 2) values.push(value);
        if (rng.chance(0.5)) {
          const variable = `v${declared.length}`;
          declared.push(`$${variable}: ${typeText(arg.type)}`);
          variables[variable] = value;
          parts.push(`${arg.name}: $${variable}`);
        } else parts.push(`${arg.name}: ${literal(value)}`);
      }
      return parts.length > 0 ? `(${parts.join(', ')})` : '';
    };
    const selection = (f: Field) => (['OBJECT', 'INTERFACE', 'UNION'].includes(named(f.type).kind) ? ' { __typename }' : '');
    const inner = `${field.name}${argsOf(field, true)}${selection(field)}`;
    const body = parent ? `${parent.name}${argsOf(parent, false)} { ${inner} }` : inner;
    const document = `query Fuzz${declared.length > 0 ? `(${declared.join(', ')})` : ''} { ${body} }`;
    return { document, variables, controlCharacter: values.flatMap(stringsOf).some(hasControlCharacter) };
  }

  it('answers a text/plain POST with a JSON 415 and an OPTIONS preflight with a JSON 405, approving no CORS', async () => {
    const plain = await send('POST', undefined, { raw: '{ projects { projectId } }', contentType: 'text/plain' });
    expect(plain.status).toBe(415);
    expect(plain.headers.get('content-type')).toMatch(/^application\/(graphql-response\+)?json/);
    expect(plain.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'INVALID_REQUEST', status: 415, message: 'Unsupported content type "text/plain"' } })]);

    const preflight = await send('OPTIONS', undefined, { headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' } });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get('allow')).toBe('GET, POST');
    expect(preflight.body.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'INVALID_REQUEST', status: 405 }) })]);
    // No Access-Control-Allow-Origin reflecting the caller (with credentials): yoga's default CORS is off.
    const answered = await send('POST', { query: '{ projects { projectId } }' }, { headers: { origin: 'https://elsewhere.example' } });
    expect(answered.status).toBe(200);
    for (const answer of [preflight, answered]) expect([...answer.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
  });

  it('refuses a control character in an id, literal or variable, with 400 INVALID_REQUEST naming the argument', async () => {
    for (const [document, variables] of [
      ['{ wallet(id: "w\\u0000") { id } }', {}],
      ['query($id: ID!) { wallet(id: $id) { id } }', { id: `${walletId}\n` }],
      ['query($h: String!) { transactionByHash(hash: $h) { transactionId } }', { h: '0x\u0000' }],
    ] as const) {
      const answer = await send('POST', { query: document, variables });
      expect(answer.status, document).toBe(400);
      expect(answer.body.data ?? null).toBeNull();
      const name = /\((\w+):/.exec(document.replace(/^query\([^)]*\)/, ''))![1]!;
      expect(answer.body.errors).toEqual([
        expect.objectContaining({
          message: `Invalid request: ${name}: ${CONTROL_CHARACTER_MESSAGE}`,
          extensions: { code: 'INVALID_REQUEST', status: 400, message: `Invalid request: ${name}: ${CONTROL_CHARACTER_MESSAGE}`, details: [{ path: name, message: CONTROL_CHARACTER_MESSAGE }] },
        }),
      ]);
    }
    // Without a session the field's 401 comes first, as in REST.
    const anonymous = await fetch(`${app.baseUrl}/graphql`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ wallet(id: "w\\u0000") { id } }' }) });
    expect(anonymous.status).toBe(401);
  });

  it(`sends every field ${CASES} documents with malformed arguments: no 5xx, the spec body in every error, control characters refused`, async () => {
    const failures: string[] = [];
    const targets: Array<{ field: Field; parent?: Field }> = query.map((field) => ({ field }));
    // The fields with arguments of what the root fields return (a wallet's transactions, a transaction's approval case, ...).
    for (const parent of query.filter((f) => named(f.type).kind === 'OBJECT')) {
      for (const field of types.get(named(parent.type).name!)!.fields ?? []) if (field.args.length > 0) targets.push({ field, parent });
    }
    expect(targets.length).toBeGreaterThan(query.length);
    for (const { field, parent } of targets) {
      const name = parent ? `${parent.name}.${field.name}` : field.name;
      const rng = createRng(SEED ^ hash(name));
      for (let i = 0; i < CASES; i++) {
        const { document, variables, controlCharacter } = documentFor(field, rng, parent);
        const answer = await send('POST', { query: document, variables });
        const problems = problemsOf('POST', answer);
        if (controlCharacter && (answer.status !== 400 || answer.body?.errors?.[0]?.extensions?.code !== 'INVALID_REQUEST')) problems.push('a control character not refused with 400 INVALID_REQUEST');
        if (problems.length > 0) failures.push(`${name} #${i} → ${answer.status} ${problems.join('; ')}\n    ${document.slice(0, 200)} ${JSON.stringify(variables).slice(0, 120)}`);
      }
    }
    expect(failures, `rerun with FUZZ_SEED=${SEED}\n${failures.join('\n')}`).toEqual([]);
    expect(serverErrors()).toEqual([]);
  });

  it('answers methods, content types, bodies, batches, oversized and deeply nested documents below 500 with JSON', async () => {
    const deep = (depth: number) => `{ wallet(id: ${'['.repeat(depth)}"x"${']'.repeat(depth)}) { id } }`;
    const selections = (depth: number) => `{ ${'a { '.repeat(depth)}b${' }'.repeat(depth)} }`;
    const cases: Array<{ label: string; method?: string; payload?: unknown; raw?: string; contentType?: string; path?: string; accept?: string; status?: number }> = [
      ...['PUT', 'DELETE', 'PATCH'].map((method) => ({ label: method, method, payload: { query: '{ __typename }' }, status: 405 })),
      { label: 'HEAD', method: 'HEAD' },
      { label: 'GET a query', method: 'GET', path: `/graphql?query=${encodeURIComponent('{ projects { projectId } }')}`, status: 200 },
      { label: 'GET without a query', method: 'GET', path: '/graphql?variables=%7B%7D', status: 400 },
      { label: 'GET variables not JSON', method: 'GET', path: `/graphql?query=${encodeURIComponent('query($id: ID!) { wallet(id: $id) { id } }')}&variables=%7B`, status: 400 },
      { label: 'GET a mutation', method: 'GET', path: `/graphql?query=${encodeURIComponent('mutation { x }')}`, status: 405 },
      ...['application/xml', 'text/html', 'application/jsonp'].map((contentType) => ({ label: contentType, raw: '{"query":"{ __typename }"}', contentType, status: 415 })),
      { label: 'JSON in UTF-16 by name', raw: '{"query":"{ __typename }"}', contentType: 'application/json; charset=utf-16' },
      { label: 'a form', raw: `query=${encodeURIComponent('{ __typename }')}`, contentType: 'application/x-www-form-urlencoded' },
      { label: 'multipart junk', raw: '--x\r\nnot a part', contentType: 'multipart/form-data; boundary=x' },
      { label: 'application/graphql', raw: '{ __typename }', contentType: 'application/graphql' },
      { label: 'non-JSON', raw: '{"query":', status: 400 },
      { label: 'a JSON scalar', raw: '42', status: 400 },
      { label: 'a batch (batching is off)', payload: [{ query: '{ __typename }' }, { query: '{ __typename }' }], status: 400 },
      { label: 'no query', payload: {}, status: 400 },
      { label: 'query not a string', payload: { query: 1 }, status: 400 },
      { label: 'variables a string', payload: { query: '{ __typename }', variables: 'x' }, status: 400 },
      { label: 'variables a list', payload: { query: 'query($id: ID!) { wallet(id: $id) { id } }', variables: [1] }, status: 400 },
      { label: 'extensions a string', payload: { query: '{ __typename }', extensions: 'x' }, status: 400 },
      { label: 'an unknown operationName', payload: { query: 'query A { __typename }', operationName: 'B' }, status: 400 },
      { label: 'two operations, none named', payload: { query: 'query A { __typename } query B { __typename }' }, status: 400 },
      { label: 'a mutation', payload: { query: 'mutation { anything }' }, status: 400 },
      { label: 'a subscription', payload: { query: 'subscription { anything }' }, status: 400 },
      { label: 'an unknown field', payload: { query: '{ walets { edges { node { id } } } }' }, status: 400 },
      { label: 'a fragment cycle', payload: { query: '{ ...A } fragment A on Query { ...B } fragment B on Query { ...A }' }, status: 400 },
      { label: 'a syntax error', payload: { query: '{ wallet(id: "x" { id } }' }, status: 400 },
      { label: 'a lone surrogate in a variable', raw: '{"query":"query($id: ID!) { wallet(id: $id) { id } }","variables":{"id":"\\ud800"}}' },
      { label: 'application/json only: a validation error', payload: { query: '{ nothing }' }, accept: 'application/json', status: 200 },
      { label: 'a body over 1 MB', payload: { query: `{ __typename }`, variables: { pad: 'x'.repeat(1_100_000) } }, status: 413 },
      { label: 'a request line over 16 KB', method: 'GET', path: `/graphql?query=${'a'.repeat(20_000)}`, status: 431 },
      { label: 'over 2,000 tokens', payload: { query: `{ ${'__typename '.repeat(2_100)}}` }, status: 400 },
      { label: 'a list literal nested 20,000 deep', payload: { query: deep(20_000) }, status: 400 },
      { label: 'a list literal nested 65 deep', payload: { query: deep(65) }, status: 400 },
      { label: 'selections 12 deep', payload: { query: `{ wallet(id: "x") { transactions { edges { node { wallet { transactions { edges { node { wallet { id } } } } } } } } } } }` }, status: 400 },
      { label: 'selections 70 deep', payload: { query: selections(70) }, status: 400 },
      { label: 'variables nested 20,000 deep', raw: `{"query":"query($id: ID!) { wallet(id: $id) { id } }","variables":{"id":${'['.repeat(20_000)}${']'.repeat(20_000)}}}`, status: 400 },
      { label: 'an unused variable with a control character', payload: { query: 'query($id: ID) { projects { projectId } }', variables: { id: '\u0000' } }, status: 400 },
      { label: 'a control character in a directive argument', payload: { query: 'query($s: Boolean!) { projects @include(if: $s) { projectId } }', variables: { s: 'a\u0000' } } },
    ];
    const failures: string[] = [];
    for (const c of cases) {
      const method = c.method ?? 'POST';
      const answer = await send(method, c.payload, { raw: c.raw, contentType: c.contentType, path: c.path, headers: c.accept ? { accept: c.accept } : {} });
      const problems = problemsOf(method, answer);
      if (c.status !== undefined && answer.status !== c.status) problems.push(`expected ${c.status}`);
      if (answer.status === 405 && answer.headers.get('allow') !== 'GET, POST' && method !== 'GET') problems.push(`405 with Allow ${answer.headers.get('allow')}`);
      if (problems.length > 0) failures.push(`${c.label} → ${answer.status} ${problems.join('; ')}: ${answer.text.slice(0, 200)}`);
    }
    expect(failures).toEqual([]);
    expect(serverErrors()).toEqual([]);
  });
});
