import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestApp, type TestApp } from './harness.ts';
import { responseContract, servedResponseContract, type Answer, type ContractDocument } from './response-contract.ts';

// The check every API test runs on each /v1 answer (harness.ts): real answers of a real app,
// judged against the document that app serves, with a mismatch planted in a copy of the answer.
describe('the response contract check', () => {
  let app: TestApp;
  let key: string;
  let contract: ReturnType<typeof responseContract>;

  beforeAll(async () => {
    app = await startTestApp('pglite');
    key = (await app.createKey()).apiKey;
    const served = await fetch(`${app.baseUrl}/v1/openapi.json`);
    contract = responseContract((await served.json()) as ContractDocument);
  });
  afterAll(async () => {
    await app?.close();
  });

  const answerOf = async (method: string, url: string, body?: unknown): Promise<Answer> => {
    const response = await app.request(method, url, { key, body });
    return { method, url, status: response.status, contentType: response.headers.get('content-type'), body: response.body };
  };

  it('accepts real answers, and names the operation, status and first schema error of a planted extra field', async () => {
    const created = await answerOf('POST', '/v1/wallets', { type: 'EVM', userIdentifier: 'contract@example.com', userIdentifierType: 'EMAIL' });
    expect(created.status).toBe(201);
    expect(contract.check(created)).toEqual({ checked: true, operationId: 'createWallet', mismatch: undefined });
    const walletId = (created.body as { id: string }).id;
    const fetched = await answerOf('GET', `/v1/wallets/${walletId}`);
    expect(contract.check(fetched)).toEqual({ checked: true, operationId: 'getWallet', mismatch: undefined });

    const planted = { ...fetched, body: { ...(fetched.body as object), planted: true } };
    expect(contract.check(planted).mismatch).toBe(
      "GET /v1/wallets/{walletId} (getWallet) answered 200 with a body its schema refuses: (body) must NOT have additional properties 'planted'",
    );
  });

  it('names an undocumented status, a non-JSON body and an error body under the wrong code', async () => {
    const listed = await answerOf('GET', '/v1/wallets?limit=1');
    expect(contract.check({ ...listed, status: 418 }).mismatch).toBe('GET /v1/wallets (listWallets) answered 418, a status the document does not list for it');
    expect(contract.check({ ...listed, contentType: 'text/plain' }).mismatch).toBe("GET /v1/wallets (listWallets) answered 200 as 'text/plain', not application/json");

    const refused = await answerOf('GET', '/v1/wallets?limit=0');
    expect(refused.status).toBe(400);
    expect(contract.check(refused).mismatch).toBeUndefined();
    // A 403 on a signing route is discriminated by code: a review without its caseId breaks that branch.
    const review = { code: 'POLICY_REVIEW_REQUIRED', message: 'review', reviewId: 'r', expiresAt: new Date().toISOString() };
    const signing = { method: 'POST', url: '/v1/wallets/00000000-0000-4000-8000-000000000000/sign-message', status: 403, contentType: 'application/json' };
    expect(contract.check({ ...signing, body: { ...review, caseId: 'r' } }).mismatch).toBeUndefined();
    expect(contract.check({ ...signing, body: review }).mismatch).toBe(
      "POST /v1/wallets/{walletId}/sign-message (signMessage) answered 403 with a body its schema refuses: (body) must have required property 'caseId'",
    );
    expect(contract.check({ ...signing, body: { code: 'WALLET_NOT_READY', message: 'x' } }).mismatch).toBe(
      'POST /v1/wallets/{walletId}/sign-message (signMessage) answered 403 with a body its schema refuses: (body) value of tag "code" must be in oneOf',
    );
  });

  it('leaves answers outside /v1 and to unknown routes unchecked, and counts and keeps what it checks', async () => {
    expect(contract.check({ method: 'GET', url: '/health', status: 200, contentType: 'application/json', body: {} })).toEqual({ checked: false });
    const unknown = await answerOf('GET', '/v1/no-such-route');
    expect(unknown.status).toBe(404);
    expect(contract.check(unknown)).toEqual({ checked: false });

    const served = servedResponseContract(app.baseUrl);
    await served.check(await answerOf('GET', '/v1/wallets'));
    expect(served.validated).toBe(1);
    await served.check({ method: 'DELETE', url: '/v1/wallets', status: 401, contentType: 'application/json', body: { code: 'UNAUTHORIZED', message: 'x' } });
    expect(served.validated).toBe(1);
    await expect(served.check({ method: 'GET', url: '/v1/wallets', status: 204, contentType: null, body: undefined })).rejects.toThrow(
      'The answer breaks /v1/openapi.json: GET /v1/wallets (listWallets) answered 204, a status the document does not list for it',
    );
    expect(served.firstMismatch).toBe('GET /v1/wallets (listWallets) answered 204, a status the document does not list for it');
    expect(served.validated).toBe(1);
    expect(served.checkedPairs).toEqual(['listWallets:200']);
  });
});
