import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allRoutes } from '../app.ts';
import { approvalsProject, LARGE, partnerReviewPolicy, requirementPath, reviewPath, type ApprovalsProject } from '../testing/approval-fixtures.ts';
import { createConformance, operationsOf, type FuzzRequest, type OpenApiDocument, type Operation } from '../testing/fuzz-document.ts';
import { createRng, idempotencyKey, malformedBody, malformedQuery, oversizePathParam, pathParamValues, sampleValid, seedFrom, type Rng } from '../testing/fuzz-inputs.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { responseContract, type ContractDocument } from '../testing/response-contract.ts';
import { examplePolicy } from '../testing/policy-fixtures.ts';

/**
 * Walks every operation of the served /v1/openapi.json with seeded malformed inputs (path params,
 * query strings, Idempotency-Key headers, bodies mutated from the request schema) and fails on a
 * 5xx, an answer that is not JSON, a 4xx without the Error shape, an answer its operation's response
 * schemas refuse (response-contract.ts), a malformed request that is not
 * refused, or a refused request that wrote a row. "Malformed" is judged against the document itself
 * (fuzz-document.ts); a request that happens to conform may succeed and write.
 * FUZZ_SEED reruns another seed; FUZZ_CASES sets the requests per operation.
 */
const SEED = seedFrom(process.env.FUZZ_SEED, 20_261_125);
const CASES = Number(process.env.FUZZ_CASES || 12);
if (!Number.isInteger(CASES) || CASES < 1) throw new Error(`FUZZ_CASES must be a positive integer, got ${process.env.FUZZ_CASES}`);

/** Operations not fuzzed, each with its reason. The test fails when one is skipped without being listed. */
const NOT_FUZZED: Record<string, string> = {};

/**
 * Tables that record refusals by design, so their rows change on malformed input:
 * - request_log: one row per refused /v1 request, for support;
 * - rate_limit_counters: every authenticated request counts against its key's minute.
 */
const WRITTEN_ON_REFUSAL = new Set(['request_log', 'rate_limit_counters']);
/**
 * A refusal other than 400 INVALID_REQUEST (an unknown id's 404, a policy's 403, a 409) is stored
 * under its Idempotency-Key so that a resend replays it (docs/api-conventions.md, Idempotency); a 400 leaves the key free.
 */
const STORED_REFUSAL_TABLE = 'idempotency_records';

const hash = (text: string) => [...text].reduce((h, c) => (Math.imul(h, 31) + c.charCodeAt(0)) >>> 0, 7);

describe.each(testDatabaseKinds)(`OpenAPI fuzz on %s (FUZZ_SEED=${SEED})`, (kind) => {
  let app: TestApp;
  let project: ApprovalsProject;
  let document: OpenApiDocument;
  let valid: Record<string, (rng: Rng) => string>;
  let snapshotSql: string;

  beforeAll(async () => {
    app = await startTestApp(kind);
    // evm-approvals.json's conditional approval plus a partner review: one signature opens a case and a review.
    const conditional = examplePolicy('evm-approvals.json') as { rules: unknown[] };
    project = await approvalsProject(app, { policy: partnerReviewPolicy('evm-approvals', conditional.rules) });
    const wallets = [project.wallet.id];
    for (const type of ['COSMOS', 'SOLANA', 'STELLAR', 'SUI']) wallets.push((await project.newWallet(type)).id);
    const userId = await project.member([]);
    const opened = await project.sign(LARGE, { 'Idempotency-Key': 'fuzz-case' });
    expect(opened.body, JSON.stringify(opened.body)).toMatchObject({ caseId: expect.any(String), reviewId: expect.any(String) });
    for (const path of [requirementPath('org-1'), reviewPath(opened.body.reviewId as string)]) expect((await project.get(path)).status, path).toBe(200);
    // Real objects for the path params not under test, so requests get past the 404 into validation.
    // No fixture makes a transaction or yield operation here (they need a devnet): those ids are unknown uuids.
    valid = {
      walletId: (rng) => rng.pick(wallets),
      policyId: () => 'evm-approvals',
      policyVersion: () => '1',
      requirementId: () => 'finance-approval',
      authorizationScopeId: () => 'org-1',
      userId: () => userId,
      caseId: () => opened.body.caseId as string,
      reviewId: () => opened.body.reviewId as string,
      transactionId: () => randomUUID(),
      operationId: () => randomUUID(),
    };
    document = (await app.request('GET', '/v1/openapi.json')).body as OpenApiDocument;
    const tables = await app.database.prisma.$queryRawUnsafe<Array<{ name: string }>>(
      `SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' ORDER BY 1`,
    );
    // Row count and the sum of xmin per table: an insert, delete or update changes one of them.
    snapshotSql = tables
      .filter(({ name }) => !WRITTEN_ON_REFUSAL.has(name))
      .map(({ name }) => `SELECT '${name}' AS name, count(*)::text AS n, coalesce(sum(xmin::text::bigint), 0)::text AS x FROM "${name}"`)
      .join(' UNION ALL ');
  });
  afterAll(async () => {
    await app?.close();
  });

  const snapshot = async () => {
    const rows = await app.database.prisma.$queryRawUnsafe<Array<{ name: string; n: string; x: string }>>(snapshotSql);
    return new Map(rows.map((row) => [row.name, `${row.n}/${row.x}`]));
  };
  /** The next transaction id: every writing transaction takes one, so the tables are only compared when it moved. */
  const nextXid = async () => (await app.database.prisma.$queryRawUnsafe<Array<{ x: string }>>(`SELECT pg_snapshot_xmax(pg_current_snapshot())::text AS x`))[0]!.x;

  function buildRequest(operation: Operation, rng: Rng): FuzzRequest {
    const pathParams = operation.parameters.filter((p) => p.in === 'path');
    const queryParams = operation.parameters.filter((p) => p.in === 'query');
    const request: FuzzRequest = { pathValues: {}, query: '' };
    for (const p of pathParams) {
      const value = valid[p.name];
      if (!value) throw new Error(`no real object for path parameter ${p.name} of ${operation.method} ${operation.path}: add one to \`valid\``);
      request.pathValues[p.name] = encodeURIComponent(value(rng));
    }
    request.query = queryParams
      .filter((p) => p.required)
      .map((p) => `${p.name}=${encodeURIComponent(p.name === 'chainId' ? '84532' : p.name === 'walletId' ? project.wallet.id : String(sampleValid(p.schema, document.components.schemas, rng)))}`)
      .join('&');
    if (operation.body) request.body = { label: 'sample body', raw: JSON.stringify(sampleValid(operation.body, document.components.schemas, rng)), contentType: 'application/json' };
    if (operation.parameters.some((p) => p.in === 'header')) request.idempotencyKey = idempotencyKey(rng);

    const targets = [...(pathParams.length > 0 ? ['path'] : []), ...(operation.body ? ['body', 'body', 'body'] : []), 'query'];
    const target = rng.pick(targets);
    if (target === 'path') {
      const p = rng.pick(pathParams);
      request.pathValues[p.name] = rng.chance(0.15) ? oversizePathParam(rng) : rng.pick(pathParamValues);
    } else if (target === 'body') {
      request.body = malformedBody(operation.body!, document.components.schemas, rng);
    } else {
      const malformed = malformedQuery(queryParams.map((p) => p.name), rng);
      request.query = request.query ? `${request.query}&${malformed.query}` : malformed.query;
    }
    return request;
  }

  const documented = (operation: Operation) => new Set(Object.keys(document.paths[operation.path]![operation.method.toLowerCase()]!.responses ?? {}));

  const describeRequest = (request: FuzzRequest) =>
    JSON.stringify({ ...request, body: request.body && { label: request.body.label, contentType: request.body.contentType, raw: request.body.raw?.slice(0, 200) } });

  it(`walks every operation of the served document with ${CASES} malformed requests each: no 5xx, JSON answers, refusals write nothing`, async () => {
    const conformance = createConformance(document);
    const answers = responseContract(document as unknown as ContractDocument);
    const operations = operationsOf(document);
    const failures: string[] = [];
    const fuzzed = new Set<string>();
    for (const operation of operations) {
      const name = `${operation.method} ${operation.path}`;
      if (NOT_FUZZED[name]) continue;
      fuzzed.add(name);
      const rng = createRng(SEED ^ hash(name));
      let xid = await nextXid();
      let tables = await snapshot();
      for (let i = 0; i < CASES; i++) {
        const request = buildRequest(operation, rng);
        const malformed = conformance.malformedReason(operation, request);
        const url = operation.path.replace(/\{(\w+)\}/g, (_, p: string) => request.pathValues[p]!) + (request.query ? `?${request.query}` : '');
        const headers: Record<string, string> = { 'x-api-key': project.key };
        if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
        if (request.body?.contentType) headers['content-type'] = request.body.contentType;
        const response = await fetch(`${app.baseUrl}${url}`, { method: operation.method, headers, body: request.body?.raw });
        const text = await response.text();
        const written: string[] = [];
        const nowXid = await nextXid();
        if (nowXid !== xid) {
          const now = await snapshot();
          written.push(...[...now].filter(([table, state]) => tables.get(table) !== state).map(([table]) => table));
          [xid, tables] = [nowXid, now];
        }
        const problems: string[] = [];
        if (response.status >= 500) {
          const logged = app.logLines.findLast((line) => line.includes('unhandled error'));
          problems.push(`status ${response.status}${logged ? `: ${(JSON.parse(logged) as { err?: { message?: string } }).err?.message?.slice(0, 200)}` : ''}`);
        }
        let body: any;
        try {
          body = JSON.parse(text);
        } catch {
          problems.push(`not JSON: ${text.slice(0, 80)}`);
        }
        if (!/^application\/json/.test(response.headers.get('content-type') ?? '')) problems.push(`content-type ${response.headers.get('content-type')}`);
        if (response.status >= 400 && (typeof body?.code !== 'string' || typeof body?.message !== 'string')) problems.push(`error body without code and message: ${text.slice(0, 120)}`);
        if (!documented(operation).has(String(response.status))) problems.push(`status ${response.status} is not documented for the operation`);
        const contentType = response.headers.get('content-type');
        const mismatch = answers.check({ method: operation.method, url, status: response.status, contentType, body: body ?? (text || undefined) }).mismatch;
        if (mismatch) problems.push(mismatch);
        if (malformed && response.status < 400) problems.push(`malformed (${malformed}) but answered ${response.status}`);
        const refused = malformed !== undefined || response.status >= 400;
        const unexpected = written.filter((table) => table !== STORED_REFUSAL_TABLE || response.status === 400 || response.status < 400);
        if (refused && unexpected.length > 0) problems.push(`wrote rows in ${unexpected.join(', ')}`);
        if (problems.length > 0) failures.push(`${name} #${i} → ${response.status} ${problems.join('; ')}\n    ${describeRequest(request)}`);
      }
    }
    // The document lists every route the service serves, and each was fuzzed or listed with its reason.
    expect(operations.length).toBe(allRoutes(app.services).length);
    const skipped = operations.map((o) => `${o.method} ${o.path}`).filter((name) => !fuzzed.has(name) && !NOT_FUZZED[name]);
    expect(skipped).toEqual([]);
    expect(fuzzed.size).toBe(operations.length - Object.keys(NOT_FUZZED).length);
    expect(failures, `rerun with FUZZ_SEED=${SEED}\n${failures.join('\n')}`).toEqual([]);
    // Every refusal reached the request log: no batch of these inputs failed to insert.
    await app.services.requestLog!.flush();
    expect(app.services.requestLog!.stats().dropped).toEqual({ buffer_full: 0, write_failed: 0, stopped: 0 });
    // A larger FUZZ_CASES needs more time than the suite's default.
  }, Math.max(120_000, CASES * 10_000));
});
