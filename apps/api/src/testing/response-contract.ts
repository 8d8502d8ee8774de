import type { ErrorObject } from 'ajv';
import { appendFileSync } from 'node:fs';
import { documentSchemas, type Schema } from './document-schemas.ts';

/**
 * Test-only: whether an answer of the service is one its served OpenAPI document describes (the
 * status is documented for the operation or under `default`, the body is JSON when a JSON body is
 * documented, and the body matches that status's schema). Only `/v1` operations are checked.
 */

interface DocumentedResponse {
  content?: Record<string, { schema?: Schema }>;
}

export interface ContractDocument {
  paths: Record<string, Record<string, { operationId?: string; responses?: Record<string, DocumentedResponse> }>>;
  components: { schemas: Record<string, Schema> };
}

interface Template {
  method: string;
  path: string;
  operationId: string;
  pattern: RegExp;
  params: number;
  responses: Record<string, DocumentedResponse>;
}

export interface Answer {
  method: string;
  /** The request path, with or without a query string. */
  url: string;
  status: number;
  contentType: string | null;
  /** The body as received: the parsed JSON, the text when it is not JSON, undefined when empty. */
  body: unknown;
}

function templatesOf(document: ContractDocument): Template[] {
  const templates = Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => {
      const source = path.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+');
      return {
        method: method.toUpperCase(),
        path,
        operationId: operation.operationId ?? '',
        pattern: new RegExp(`^${source}$`),
        params: (path.match(/\{/g) ?? []).length,
        responses: operation.responses ?? {},
      };
    }),
  );
  // A literal segment wins over a parameter: /v1/wallets/claimed before /v1/wallets/{walletId}.
  return templates.sort((a, b) => a.params - b.params);
}

function describeError(error: ErrorObject): string {
  const where = error.instancePath || '(body)';
  const params = error.params as Record<string, unknown>;
  const detail =
    params.additionalProperty !== undefined ? ` '${String(params.additionalProperty)}'`
    : params.allowedValue !== undefined ? ` ${JSON.stringify(params.allowedValue)}`
    : params.allowedValues !== undefined ? ` ${JSON.stringify(params.allowedValues)}`
    : '';
  return `${where} ${error.message ?? 'is invalid'}${detail}`;
}

export function responseContract(document: ContractDocument) {
  const templates = templatesOf(document);
  const validator = documentSchemas(document);

  /**
   * Why `answer` breaks the document (undefined when it conforms), and whether it was checked
   * against an operation. Answers outside /v1 are not, nor those to a method and path no operation
   * has: the pipeline answers them before any route (401, 403, 429, 400 for a body, 404, 405).
   */
  function check(answer: Answer): { checked: boolean; operationId?: string; mismatch?: string } {
    const path = answer.url.split('?')[0]!;
    // The document itself is not one of its operations.
    if (!path.startsWith('/v1/') || path === '/v1/openapi.json') return { checked: false };
    const method = answer.method.toUpperCase();
    const template = templates.find((t) => t.method === method && t.pattern.test(path));
    if (!template) return { checked: false };
    return { checked: true, operationId: template.operationId, mismatch: operationMismatch(template, answer) };
  }

  function operationMismatch(template: Template, answer: Answer): string | undefined {
    const method = template.method;
    const operation = `${method} ${template.path} (${template.operationId})`;
    const documented = template.responses[String(answer.status)] ?? template.responses.default;
    if (!documented) return `${operation} answered ${answer.status}, a status the document does not list for it`;
    const json = documented.content?.['application/json'];
    if (!documented.content) {
      return answer.body === undefined ? undefined : `${operation} answered ${answer.status} with a body, but the document gives that status none`;
    }
    const mediaType = answer.contentType?.split(';')[0]?.trim().toLowerCase() ?? '';
    if (!json) return documented.content[mediaType] ? undefined : `${operation} answered ${answer.status} as '${mediaType}', not a documented media type`;
    if (mediaType !== 'application/json') return `${operation} answered ${answer.status} as '${mediaType || 'no content type'}', not application/json`;
    if (!json.schema) return undefined;
    const validate = validator(json.schema);
    if (validate(answer.body)) return undefined;
    const first = validate.errors?.[0];
    return `${operation} answered ${answer.status} with a body its schema refuses: ${first ? describeError(first) : 'invalid'}`;
  }

  return { check };
}

/**
 * The contract of one running service: its document is fetched from `baseUrl` once, on the first
 * /v1 answer. `check` throws on a mismatch (the test fails naming the operation, status and first
 * schema error); `firstMismatch` keeps it for suites whose test swallowed the throw.
 */
export function servedResponseContract(baseUrl: string) {
  let contract: Promise<ReturnType<typeof responseContract>> | undefined;
  const checkedPairs: string[] = [];
  let firstMismatch: string | undefined;
  const load = async () => {
    const served = await fetch(`${baseUrl}/v1/openapi.json`);
    if (served.status !== 200) throw new Error(`GET /v1/openapi.json answered ${served.status}`);
    return responseContract((await served.json()) as ContractDocument);
  };
  return {
    async check(answer: Answer): Promise<void> {
      if (!answer.url.split('?')[0]!.startsWith('/v1/')) return;
      contract ??= load();
      const result = (await contract).check(answer);
      if (result.mismatch) {
        firstMismatch ??= result.mismatch;
        throw new Error(`The answer breaks /v1/openapi.json: ${result.mismatch}`);
      }
      if (result.checked) checkedPairs.push(contractPair(result.operationId!, answer.status));
    },
    /** How many answers matched their operation's documented status and schema. */
    get validated() {
      return checkedPairs.length;
    },
    /** The `operationId:status` of each answer that matched, in the order received (one entry per answer). */
    get checkedPairs(): readonly string[] {
      return checkedPairs;
    },
    get firstMismatch() {
      return firstMismatch;
    },
  };
}

export type ServedResponseContract = ReturnType<typeof servedResponseContract>;

/** How the contract log and the coverage report name a documented answer: `operationId:status`. */
export function contractPair(operationId: string, status: number | string): string {
  return `${operationId}:${status}`;
}

/**
 * Appends `<answers checked>\t<suite>\t<operationId:status,…>` to the RESPONSE_CONTRACT_LOG file
 * (each distinct pair once; the first field stays the count so a sum over the log is the answers
 * checked). `checkedPairs` holds one entry per answer checked.
 */
export function appendContractLog(file: string, suite: string, checkedPairs: readonly string[]): void {
  appendFileSync(file, `${checkedPairs.length}\t${suite}\t${[...new Set(checkedPairs)].join(',')}\n`);
}

/** Reads a fetch response's body as the harness does: parsed JSON, else the text, undefined when empty. */
export async function readBody(response: Response): Promise<unknown> {
  const text = await response.text();
  if (!text) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/** Checks a fetch answer to `method url` (an absolute URL) against `contract`; the caller can still read its body. */
export async function checkResponse(contract: ServedResponseContract, method: string, url: string, response: Response): Promise<void> {
  const { pathname, search } = new URL(url);
  await contract.check({
    method,
    url: `${pathname}${search}`,
    status: response.status,
    contentType: response.headers.get('content-type'),
    body: await readBody(response.clone()),
  });
}

/**
 * `fetch` for tests that reach service processes directly: each /v1 answer is checked against the
 * document its origin serves (fetched once per origin) before the caller reads it.
 */
export function checkedFetch() {
  const contracts = new Map<string, ServedResponseContract>();
  return async (url: string, init: RequestInit = {}): Promise<Response> => {
    const response = await fetch(url, init);
    const { origin } = new URL(url);
    let contract = contracts.get(origin);
    if (!contract) contracts.set(origin, (contract = servedResponseContract(origin)));
    await checkResponse(contract, init.method ?? 'GET', url, response);
    return response;
  };
}

/**
 * Calls of a service process with an API key (read when called), each answer checked as
 * `checkedFetch` does: `call(base, method, path, body?, idempotencyKey?)` → status and JSON body.
 */
export function checkedServiceCalls(apiKey: () => string) {
  const fetchChecked = checkedFetch();
  return async (base: string, method: string, urlPath: string, body?: unknown, idempotencyKey?: string): Promise<{ status: number; body: Record<string, any> }> => {
    const response = await fetchChecked(`${base}${urlPath}`, {
      method,
      headers: { 'x-api-key': apiKey(), ...(body ? { 'content-type': 'application/json' } : {}), ...(idempotencyKey ? { 'idempotency-key': idempotencyKey } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    });
    return { status: response.status, body: (await response.json()) as Record<string, any> };
  };
}
