import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { typeCheck, type FileDiagnostics } from './type-check.ts';

interface ServedDocument {
  paths: Record<string, Record<string, { tags?: string[] }>>;
}

const CLIENT = `import createClient from 'openapi-fetch';
import type { paths } from './openapi.ts';

export const client = createClient<paths>({ baseUrl: 'https://wallets.example.com', headers: { 'X-API-Key': 'sk_test_example' } });
`;

/**
 * A partner's backend on a client generated from the served document: one operation of each tag,
 * with its path parameters and body, and the 403 of a transfer told apart by its code.
 */
const PARTNER_PROGRAM = `import { client } from './client.ts';

export async function partnerFlow(): Promise<string[]> {
  const seen: string[] = [];
  const created = await client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: 'alice@example.com', userIdentifierType: 'EMAIL' } });
  if (!created.data) throw new Error(\`\${created.error.code}: \${created.error.message}\`);
  const walletId: string = created.data.id;
  seen.push(created.data.address);

  const funded = await client.POST('/v1/local/faucet', { body: { walletId, amount: '1', token: 'native' } });
  if (funded.data) seen.push(funded.data.txHash);

  const chains = await client.GET('/v1/chains');
  for (const chain of chains.data?.chains ?? []) seen.push(chain.name, chain.usdc?.address ?? 'no USDC');

  const enclave = await client.GET('/v1/enclave/public-key');
  if (enclave.data) seen.push(enclave.data.keyFingerprint);

  const signed = await client.POST('/v1/wallets/{walletId}/sign-message', { params: { path: { walletId } }, body: { message: 'hello' } });
  if (signed.error) seen.push(signed.error.code);

  const sent = await client.POST('/v1/wallets/{walletId}/transfer', {
    params: { path: { walletId }, header: { 'Idempotency-Key': 'transfer-1' } },
    body: { chainId: 84532, to: '0x000000000000000000000000000000000000dEaD', value: '1000000000000000' },
  });
  if (sent.data) {
    const record = await client.GET('/v1/wallets/{walletId}/transactions/{transactionId}', {
      params: { path: { walletId, transactionId: sent.data.transactionId } },
    });
    if (record.data) seen.push(record.data.status);
  } else if (sent.response.status === 403) {
    switch (sent.error.code) {
      case 'POLICY_REVIEW_REQUIRED': {
        const review = await client.POST('/v1/permissions-v2/reviews/{reviewId}/approve', { params: { path: { reviewId: sent.error.reviewId } } });
        seen.push(sent.error.expiresAt, review.data?.status ?? review.error?.code ?? '');
        break;
      }
      case 'POLICY_DENIED':
        seen.push(...sent.error.deniedBy.map((entry) => entry.ruleId ?? entry.reason));
        break;
      case 'FORBIDDEN':
        seen.push(sent.error.message);
        break;
    }
  }

  const deposit = await client.POST('/v1/wallets/{walletId}/yield/deposits', { params: { path: { walletId } }, body: { chainId: 84532, amount: '1.5' } });
  if (deposit.data) seen.push(deposit.data.status);
  return seen;
}
`;

/** Misuses the same client: the compiler must refuse each line, so a break in the types fails the test. */
const MISUSE = `import { client } from './client.ts';

export async function misuse(walletId: string) {
  const sent = await client.POST('/v1/wallets/{walletId}/transfer', { params: { path: { walletId } }, body: { to: '0xdead', value: '1' } });
  if (sent.error?.code === 'POLICY_DENIED') return sent.error.reviewId;
  await client.POST('/v1/wallets/{walletId}/transfer', { params: { path: { walletId } }, body: { to: '0xdead', value: 1 } });
  await client.GET('/v1/wallets/{walletId}', { params: { path: { wallet: walletId } } });
  return undefined;
}
`;

/** The operations a program calls, as `METHOD /v1/...` (its calls are `client.METHOD('/v1/...'`). */
function operationsCalled(source: string): string[] {
  return [...source.matchAll(/client\.(GET|POST|PUT|PATCH|DELETE)\('([^']+)'/g)].map(([, method, path]) => `${method} ${path}`);
}

/** A client generated from the document the service serves compiles for a partner's program. */
describe('a client generated from the served document', () => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let document: ServedDocument;
  let diagnostics: Record<string, FileDiagnostics>;

  beforeAll(async () => {
    // Local mode, as `npm start` serves it: the document has the /v1/local routes too.
    devnets = await startLocalDevnets();
    app = await startTestApp('pglite', { chains: devnets });
    const served = await fetch(`${app.baseUrl}/v1/openapi.json`);
    expect(served.status).toBe(200);
    document = (await served.json()) as ServedDocument;
    const types = astToString(await openapiTS(JSON.parse(JSON.stringify(document)) as Parameters<typeof openapiTS>[0]));
    diagnostics = typeCheck({ 'openapi.ts': types, 'client.ts': CLIENT, 'partner-program.ts': PARTNER_PROGRAM, 'misuse.ts': MISUSE });
  });
  afterAll(async () => {
    await app?.close();
    await devnets?.stop();
  });

  it('generates types that compile on their own', () => {
    expect(diagnostics['openapi.ts']!.text).toBe('');
    expect(diagnostics['client.ts']!.text).toBe('');
  });

  it("type-checks a program calling one operation of each of the document's tags, telling a 403's codes apart", () => {
    const tagOf = new Map<string, string>();
    for (const [path, item] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(item)) tagOf.set(`${method.toUpperCase()} ${path}`, operation.tags?.[0] ?? '(no tag)');
    }
    const called = operationsCalled(PARTNER_PROGRAM);
    expect(called.filter((operation) => !tagOf.has(operation)), 'the program calls operations the document does not have').toEqual([]);
    const tagsCalled = new Set(called.map((operation) => tagOf.get(operation)));
    expect([...new Set(tagOf.values())].filter((tag) => !tagsCalled.has(tag)), 'tags the program calls no operation of').toEqual([]);
    expect(diagnostics['partner-program.ts']!.text, 'the compiler refused the partner program').toBe('');
  });

  it('refuses a misused field: a code branch without it, a number for a string, a wrong path parameter', () => {
    const { codes, text } = diagnostics['misuse.ts']!;
    // 2339: reviewId is not on POLICY_DENIED; 2322: value must be a string; 2561: no path parameter `wallet`.
    expect(codes, text).toEqual([2339, 2322, 2561]);
    expect(text).toContain("Property 'reviewId' does not exist");
  });
});
