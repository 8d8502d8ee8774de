import { testDatabaseKinds } from '@wallet/db';
import { hasControlCharacter } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { consolePartner, restWallet } from '../testing/console-fixtures.ts';
import { controlStrings, createRng, malformedBody, sampleValid, seedFrom, type BodyCase, type Schema } from '../testing/fuzz-inputs.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { guardrail } from '../testing/policy-fixtures.ts';
import { CSRF_HEADER } from './context.ts';
import { appRouter } from './router.ts';

/**
 * `/trpc` from outside: every procedure with seeded malformed inputs (the REST fuzz's mutations of
 * a sample of its input schema, fuzz-inputs.ts), control characters in every id, and the
 * transport itself: methods, content types, batch shapes, oversized and deeply nested inputs.
 * Every answer must be below 500, JSON, and an error in tRPC's shape with the spec body in
 * `data.apiError`; nothing may be logged as a server error. FUZZ_SEED reruns another seed,
 * FUZZ_CASES sets the inputs per procedure.
 */
const SEED = seedFrom(process.env.FUZZ_SEED, 20_261_202);
const CASES = Number(process.env.FUZZ_CASES || 4);
if (!Number.isInteger(CASES) || CASES < 1) throw new Error(`FUZZ_CASES must be a positive integer, got ${process.env.FUZZ_CASES}`);
/** One database: the transport is under test (PostgreSQL when TEST_DATABASE_URL is set; both refuse U+0000 in text). */
const kind = testDatabaseKinds.at(-1)!;

/** Procedures not fuzzed, each with its reason. */
const NOT_FUZZED: Record<string, string> = {
  'auth.signOut': 'would end the session the fuzz runs in (auth.test.ts signs out with and without one)',
  'auth.signOutEverywhere': 'would end the session the fuzz runs in (auth.test.ts)',
};

type Procedure = { _def: { type: 'query' | 'mutation' | 'subscription'; inputs: z.ZodType[] } };
const procedures = Object.entries(appRouter._def.procedures as unknown as Record<string, Procedure>);

/** A procedure's input as JSON Schema (zod's, `$defs` as the components fuzz-inputs.ts resolves); none: any object. */
function inputSchema(procedure: Procedure): { schema: Schema; components: Record<string, Schema> } {
  const input = procedure._def.inputs[0];
  if (!input) return { schema: { type: 'object' }, components: {} };
  const text = JSON.stringify(z.toJSONSchema(input, { io: 'input', unrepresentable: 'any' })).replaceAll('"#/$defs/', '"#/components/schemas/');
  const schema = JSON.parse(text) as Schema;
  return { schema, components: (schema.$defs ?? {}) as Record<string, Schema> };
}

const hash = (text: string) => [...text].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);
const ID_KEY = /^(?:id|.+Id)$/;
/** The sign-in procedures: no session, so no staff input rules (their inputs are an email and a password). */
const PUBLIC = /^auth\./;

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  body: any;
}

interface TransportCase {
  label: string;
  method: string;
  path: string;
  body?: string;
  contentType?: string;
  headers?: Record<string, string>;
  /** The status it must get (otherwise any below 500). */
  status?: number;
}

/** What is wrong with an answer: a 5xx, not JSON, an error outside tRPC's shape or without the spec body. */
function problemsOf(method: string, answer: Answer): string[] {
  const problems: string[] = [];
  if (answer.status >= 500) problems.push(`status ${answer.status}`);
  if (method === 'HEAD') return problems;
  if (!/^application\/json/.test(answer.headers.get('content-type') ?? '')) problems.push(`content-type ${answer.headers.get('content-type')}`);
  if (answer.body === undefined) return [...problems, `not JSON: ${answer.text.slice(0, 80)}`];
  if (answer.status < 400) return problems;
  // Node's HTTP parser refused the request line before tRPC (over 16 KB): the service's plain error body.
  if (answer.status === 431) return typeof answer.body.code === 'string' ? problems : [...problems, `431 without code: ${answer.text.slice(0, 120)}`];
  for (const item of Array.isArray(answer.body) ? answer.body : [answer.body]) {
    if (item?.result) continue;
    const data = item?.error?.data;
    if (typeof data?.apiError?.code !== 'string' || typeof data?.apiError?.message !== 'string') problems.push(`error without data.apiError {code, message}: ${JSON.stringify(item).slice(0, 160)}`);
    else if (data.httpStatus >= 500) problems.push(`an item answered ${data.httpStatus} ${data.apiError.code}`);
  }
  if (!Array.isArray(answer.body) && answer.body.error?.data?.httpStatus !== answer.status) problems.push(`data.httpStatus ${answer.body.error?.data?.httpStatus} is not the status`);
  return problems;
}

describe(`tRPC fuzz on ${kind} (FUZZ_SEED=${SEED})`, () => {
  let app: TestApp;
  let cookie: string;
  let projectId: string;
  let apiKeyId: string;
  let walletId: string;

  beforeAll(async () => {
    app = await startTestApp(kind);
    const partner = await consolePartner(app, [], ['owner']);
    cookie = partner.cookies.owner;
    projectId = partner.key.projectId;
    apiKeyId = partner.key.apiKeyId;
    walletId = (await restWallet(app, partner.key.apiKey)).id;
  });
  afterAll(async () => {
    await app?.close();
  });

  async function send(method: string, path: string, options: { body?: string; contentType?: string; headers?: Record<string, string> } = {}): Promise<Answer> {
    const headers: Record<string, string> = { cookie, [CSRF_HEADER]: '1', ...options.headers };
    if (options.contentType) headers['content-type'] = options.contentType;
    const response = await fetch(`${app.baseUrl}${path}`, { method, headers, body: options.body });
    const text = await response.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      // judged by problemsOf
    }
    return { status: response.status, headers: response.headers, text, body };
  }

  /** A call of the procedure with this input: a query's in the URL, a mutation's as the body. */
  const call = (path: string, procedure: Procedure, input: BodyCase) =>
    procedure._def.type === 'query'
      ? send('GET', `/trpc/${path}${input.raw === undefined ? '' : `?input=${encodeURIComponent(input.raw)}`}`)
      : send('POST', `/trpc/${path}`, { body: input.raw, contentType: input.contentType });

  const serverErrors = () => app.logLines.filter((line) => /"level":(50|60)/.test(line)).map((line) => line.slice(0, 300));

  it('answers a text/plain POST with a JSON 415 and an OPTIONS preflight with a JSON 405, approving no CORS', async () => {
    const plain = await send('POST', '/trpc/projects.create', { body: JSON.stringify({ name: 'plain' }), contentType: 'text/plain' });
    expect(plain.status).toBe(415);
    expect(plain.headers.get('content-type')).toMatch(/^application\/json/);
    expect(plain.body).toMatchObject({ error: { data: { code: 'UNSUPPORTED_MEDIA_TYPE', httpStatus: 415, apiError: { code: 'INVALID_REQUEST', message: expect.stringContaining('text/plain') } } } });

    const preflight = await send('OPTIONS', '/trpc/projects.create', { headers: { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST', 'access-control-request-headers': CSRF_HEADER } });
    expect(preflight.status).toBe(405);
    expect(preflight.headers.get('allow')).toBe('GET, POST');
    expect(preflight.headers.get('content-type')).toMatch(/^application\/json/);
    expect(preflight.body).toMatchObject({ error: { data: { code: 'METHOD_NOT_SUPPORTED', httpStatus: 405, apiError: { code: 'INVALID_REQUEST' } } } });
    expect([...preflight.headers.keys()].filter((name) => name.startsWith('access-control-'))).toEqual([]);
    expect(await app.database.prisma.project.count({ where: { name: 'plain' } })).toBe(0);
    expect(serverErrors()).toEqual([]);
  });

  it('refuses a control character in any id or other field of any procedure with 400 INVALID_REQUEST naming it', async () => {
    const failures: string[] = [];
    const checked: string[] = [];
    for (const [path, procedure] of procedures) {
      if (PUBLIC.test(path)) continue;
      const { schema, components } = inputSchema(procedure);
      const rng = createRng(SEED ^ hash(`fields ${path}`));
      const properties = Object.keys(schema.properties ?? {});
      for (const key of properties) {
        const sample: Record<string, unknown> = { ...(sampleValid(schema, components, rng) as Record<string, unknown>), ...(properties.includes('projectId') ? { projectId } : {}) };
        sample[key] = `id${rng.pick(controlStrings.filter(hasControlCharacter))}`;
        const answer = await call(path, procedure, { label: key, raw: JSON.stringify(sample), contentType: 'application/json' });
        checked.push(key);
        const apiError = answer.body?.error?.data?.apiError;
        if (answer.status !== 400 || apiError?.code !== 'INVALID_REQUEST' || apiError.details?.[0]?.path !== key) {
          failures.push(`${path} ${key} → ${answer.status} ${answer.text.slice(0, 200)}`);
        }
      }
    }
    expect(checked.filter((key) => ID_KEY.test(key)).length).toBeGreaterThan(60);
    expect(checked.length).toBeGreaterThan(150);
    expect(failures).toEqual([]);
  });

  it(`calls every procedure with ${CASES} malformed inputs: no 5xx, JSON in tRPC's error shape, nothing logged as a server error`, async () => {
    const failures: string[] = [];
    for (const [path, procedure] of procedures) {
      if (NOT_FUZZED[path]) continue;
      const rng = createRng(SEED ^ hash(path));
      const { schema, components } = inputSchema(procedure);
      for (let i = 0; i < CASES; i++) {
        const input = malformedBody(schema, components, rng);
        const answer = await call(path, procedure, input);
        const problems = problemsOf(procedure._def.type === 'query' ? 'GET' : 'POST', answer);
        if (problems.length > 0) failures.push(`${path} #${i} (${input.label}) → ${answer.status} ${problems.join('; ')}\n    ${JSON.stringify(input.raw?.slice(0, 160))}`);
      }
    }
    expect(failures, `rerun with FUZZ_SEED=${SEED}\n${failures.join('\n')}`).toEqual([]);
    expect(serverErrors()).toEqual([]);
  });

  it('answers methods, content types, batch shapes, oversized and deeply nested inputs below 500 with JSON', async () => {
    const input = (value: unknown) => encodeURIComponent(JSON.stringify(value));
    const deep = (depth: number) => '['.repeat(depth) + ']'.repeat(depth);
    const cases: TransportCase[] = [
      ...['PUT', 'DELETE', 'PATCH', 'OPTIONS'].flatMap((method) => [
        { label: `${method} a query`, method, path: '/trpc/auth.me', status: 405 },
        { label: `${method} a mutation with a JSON body`, method, path: '/trpc/projects.create', body: '{"name":"x"}', contentType: 'application/json', status: 405 },
      ]),
      { label: 'HEAD', method: 'HEAD', path: '/trpc/auth.me' },
      { label: 'a mutation by GET', method: 'GET', path: `/trpc/projects.create?input=${input({ name: 'x' })}`, status: 405 },
      { label: 'a query by POST', method: 'POST', path: '/trpc/auth.me', body: '{}', contentType: 'application/json', status: 405 },
      ...['text/plain', 'application/xml', 'application/x-www-form-urlencoded', 'text/html; charset=utf-8', 'application/jsonp'].map((contentType) => ({
        label: `content type ${contentType}`,
        method: 'POST',
        path: '/trpc/projects.create',
        body: '{"name":"x"}',
        contentType,
        status: 415,
      })),
      { label: 'no content type', method: 'POST', path: '/trpc/projects.create', body: '{"name":"x"}', status: 415 },
      { label: 'multipart junk', method: 'POST', path: '/trpc/projects.create', body: '--x\r\nnot a part', contentType: 'multipart/form-data; boundary=x' },
      { label: 'a form as multipart', method: 'POST', path: '/trpc/projects.create', body: '--x\r\nContent-Disposition: form-data; name="name"\r\n\r\nx\r\n--x--\r\n', contentType: 'multipart/form-data; boundary=x' },
      { label: 'octet-stream', method: 'POST', path: '/trpc/projects.create', body: '\u0000\u0001binary', contentType: 'application/octet-stream' },
      { label: 'JSON in UTF-16 by name', method: 'POST', path: '/trpc/projects.create', body: '{"name":"utf-16"}', contentType: 'application/json; charset=utf-16' },
      { label: 'non-JSON body', method: 'POST', path: '/trpc/projects.create', body: '{"name":', contentType: 'application/json', status: 400 },
      { label: 'non-JSON input', method: 'GET', path: '/trpc/wallets.list?input=%7B', status: 400 },
      { label: 'unknown procedure', method: 'GET', path: '/trpc/nothing.here', status: 404 },
      { label: 'no procedure', method: 'GET', path: '/trpc', status: 404 },
      { label: 'a control character in the path', method: 'GET', path: '/trpc/auth.me%00', status: 404 },
      { label: 'batch: input an array', method: 'GET', path: `/trpc/auth.me,wallets.get?batch=1&input=${input([1, 2])}` },
      { label: 'batch: input a string', method: 'GET', path: `/trpc/auth.me,wallets.get?batch=1&input=${input('x')}` },
      { label: 'batch: input not JSON', method: 'GET', path: '/trpc/auth.me,wallets.get?batch=1&input=%5B' },
      { label: 'batch: mismatched indexes', method: 'GET', path: `/trpc/wallets.get,wallets.get?batch=1&input=${input({ 1: { walletId: 'x' }, 7: { walletId: 'y' } })}` },
      { label: 'batch: a control-character id beside a good call', method: 'GET', path: `/trpc/auth.me,wallets.get?batch=1&input=${input({ 1: { walletId: 'a\u0000b' } })}`, status: 207 },
      { label: 'batch: unknown and empty procedures', method: 'GET', path: '/trpc/auth.me,,nothing.here,?batch=1' },
      { label: 'batch: a query and a mutation by GET', method: 'GET', path: `/trpc/auth.me,projects.create?batch=1&input=${input({ 1: { name: 'x' } })}` },
      { label: 'batch: mutations with a body that is not an object', method: 'POST', path: '/trpc/projects.create,projects.create?batch=1', body: '[{"name":"x"}]', contentType: 'application/json' },
      { label: 'batch: null body', method: 'POST', path: '/trpc/projects.create,projects.create?batch=1', body: 'null', contentType: 'application/json' },
      { label: 'batch: 200 calls', method: 'GET', path: `/trpc/${Array(200).fill('auth.me').join(',')}?batch=1` },
      { label: 'batch: not 1', method: 'GET', path: `/trpc/auth.me,auth.me?batch=yes` },
      { label: 'a body over 1 MB', method: 'POST', path: '/trpc/projects.create', body: JSON.stringify({ name: 'x'.repeat(1_100_000) }), contentType: 'application/json', status: 413 },
      { label: 'an input of 12 KB in the URL', method: 'GET', path: `/trpc/wallets.list?input=${input({ projectId: 'p'.repeat(12_000) })}`, status: 400 },
      { label: 'a request line over 16 KB', method: 'GET', path: `/trpc/wallets.list?input=${input({ projectId: 'p'.repeat(20_000) })}`, status: 431 },
      { label: 'a body nested 20,000 deep', method: 'POST', path: '/trpc/projects.create', body: deep(20_000), contentType: 'application/json', status: 400 },
      { label: 'an input nested 2,000 deep', method: 'GET', path: `/trpc/wallets.list?input=${encodeURIComponent(deep(2_000))}`, status: 400 },
      { label: 'a policy nested 65 deep', method: 'POST', path: '/trpc/policies.validate', body: `{"document":${'{"a":'.repeat(64)}1${'}'.repeat(64)}}`, contentType: 'application/json', status: 400 },
      // U+0000 deep inside a document the use case judges (PostgreSQL stores no U+0000 in text or JSON).
      ...[
        ['policies.validate', {}],
        ['policies.activate', { projectId, environment: 'development' }],
      ].map(([procedure, location]) => ({
        label: `${String(procedure)} with U+0000 inside the document`,
        method: 'POST',
        path: `/trpc/${String(procedure)}`,
        body: JSON.stringify({ ...(location as object), document: guardrail('nul\u0000', 'EVM', [{ id: 'r\u0000', effect: 'deny', actions: ['transfer'], condition: { fact: 'request.to', op: 'eq', value: '\u0000' } }], {}, { description: 'a\u0000b' }) }),
        contentType: 'application/json',
      })),
      {
        label: 'a dry run with U+0000 inside its body',
        method: 'POST',
        path: '/trpc/policies.dryRun',
        body: JSON.stringify({ projectId, environment: 'development', apiKeyId, walletId, route: 'transfer', body: { to: '0x\u0000', value: '1\u0000', chainId: 84532 } }),
        contentType: 'application/json',
      },
      { label: 'streaming asked without a batch', method: 'GET', path: '/trpc/auth.me', headers: { 'trpc-accept': 'application/jsonl' }, status: 400 },
    ];
    const failures: string[] = [];
    for (const c of cases) {
      const answer = await send(c.method, c.path, c);
      const problems = problemsOf(c.method, answer);
      if (c.status !== undefined && answer.status !== c.status) problems.push(`expected ${c.status}`);
      // A method /trpc never takes: Allow lists both; a query by POST or a mutation by GET: the one the procedure takes.
      const allow = answer.headers.get('allow');
      if (answer.status === 405 && (['GET', 'POST'].includes(c.method) ? !['GET', 'POST'].includes(allow ?? '') || allow === c.method : allow !== 'GET, POST')) {
        problems.push(`405 with Allow ${allow}`);
      }
      if (problems.length > 0) failures.push(`${c.label} → ${answer.status} ${problems.join('; ')}: ${answer.text.slice(0, 160)}`);
    }
    expect(failures).toEqual([]);
    expect(await app.database.prisma.project.count({ where: { name: 'x' } })).toBe(0);
    expect(serverErrors()).toEqual([]);
  });
});
