import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkedFetch } from '../testing/response-contract.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

/** Every /v1 answer is checked against the document the answering process serves. */
const fetchChecked = checkedFetch();

/** What a raw socket reads back for `request` (the server closes the connection after a parser error). */
function raw(app: TestApp, request: string): Promise<string> {
  const { hostname, port } = new URL(app.baseUrl);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('close', () => resolve(received));
    socket.on('error', reject);
  });
}

describe('requests the HTTP parser refuses', () => {
  let app: TestApp;
  let key: string;
  beforeAll(async () => {
    app = await startTestApp('pglite');
    key = (await app.createKey()).apiKey;
  });
  afterAll(async () => {
    await app?.close();
  });

  it('answers a request line over 16 KB with 431 and the JSON error body', async () => {
    const response = await fetchChecked(`${app.baseUrl}/v1/wallets/${'a'.repeat(20_000)}`, { headers: { 'x-api-key': key } });
    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    expect([response.headers.get('x-content-type-options'), response.headers.get('cache-control')]).toEqual(['nosniff', 'no-store']);
    expect(await response.json()).toEqual({ code: 'REQUEST_HEADERS_TOO_LARGE', message: 'Request line and headers are larger than 16 KB' });
  });

  it('answers a malformed request with 400 INVALID_REQUEST as JSON', async () => {
    const answer = await raw(app, 'GET /v1/wallets HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/);
    expect(answer).toMatch(/\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-store\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({ code: 'INVALID_REQUEST', message: 'Invalid request: malformed HTTP' });
  });
});
