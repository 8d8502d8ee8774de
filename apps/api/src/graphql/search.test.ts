import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePartner, graphql, restWallet, storedRecord } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { trpcFailure } from '../testing/staff-client.ts';

type Partner = Awaited<ReturnType<typeof consolePartner>>;

const SEARCH = 'query Search($query: String!) { search(query: $query) { kind id label href } }';

/** EIP-55 addresses mix cases; support pastes them in any case. */
const flipCase = (address: string) => `0x${[...address.slice(2)].map((c) => (c === c.toUpperCase() ? c.toLowerCase() : c.toUpperCase())).join('')}`;

describe.each(testDatabaseKinds)('search over GraphQL and tRPC on %s', (kind) => {
  let app: TestApp;
  let a: Partner;
  let b: Partner;

  beforeAll(async () => {
    app = await startTestApp(kind);
    [a, b] = await Promise.all([consolePartner(app), consolePartner(app)]);
  });
  afterAll(async () => {
    await app.close();
  });

  it('answers 401 without a session', async () => {
    const response = await graphql(app, undefined, SEARCH, { query: 'ali' });
    expect(response.status).toBe(401);
    expect(response.body.data ?? null).toBeNull();
  });

  it('finds a wallet by its address in any case and by its user identifier prefix, for the partner only', async () => {
    const identifier = `Zed-${randomUUID()}@Example.com`;
    const wallet = await restWallet(app, a.key.apiKey, { userIdentifier: identifier, userIdentifierType: 'EMAIL' });
    const byAddress = await graphql(app, a.cookies.support, SEARCH, { query: flipCase(wallet.address) });
    expect(byAddress.status).toBe(200);
    expect(byAddress.body).toEqual({
      data: { search: [{ kind: 'WALLET', id: wallet.id, label: `${wallet.address} · EVM · ${wallet.userIdentifier}`, href: `/wallets/${wallet.id}` }] },
    });
    const byPrefix = await graphql(app, a.cookies.support, SEARCH, { query: identifier.slice(0, 12).toLowerCase() });
    expect(byPrefix.body.data.search).toEqual([
      {
        kind: 'USER',
        id: `${a.key.projectId}:${wallet.userIdentifier}`,
        label: wallet.userIdentifier,
        href: `/transactions?project=${a.key.projectId}&user=${encodeURIComponent(wallet.userIdentifier)}`,
      },
    ]);
    // Another partner's staff: nothing, exactly as for an address nobody has.
    expect((await graphql(app, b.cookies.support, SEARCH, { query: wallet.address })).body).toEqual({ data: { search: [] } });
    expect((await graphql(app, b.cookies.support, SEARCH, { query: identifier })).body).toEqual({ data: { search: [] } });
  });

  it('finds a record by id and hash, and a request by its id, the same through tRPC', async () => {
    const wallet = await restWallet(app, a.key.apiKey);
    const record = await storedRecord(app, wallet, a.key);
    const requestId = randomUUID();
    await app.database.query(
      `INSERT INTO request_log (project_id, request_id, method, route, status, code, latency_ms, at) VALUES ($1, $2, 'POST', '/v1/wallets/:walletId/transfer', 403, 'POLICY_DENIED', 4.2, now())`,
      [a.key.projectId, requestId],
    );
    const transaction = { kind: 'TRANSACTION', id: record.id, label: `${record.hash} · EVM · ${record.status}`, href: `/transactions/${record.id}` };
    expect((await graphql(app, a.cookies.support, SEARCH, { query: record.hash!.toUpperCase().replace('0X', '0x') })).body.data.search).toEqual([transaction]);
    expect((await graphql(app, a.cookies.support, SEARCH, { query: ` ${record.id} ` })).body.data.search).toEqual([transaction]);
    const request = { kind: 'REQUEST', id: requestId, label: `POST /v1/wallets/:walletId/transfer · 403 · ${requestId}`, href: `/request-log?requestId=${requestId}` };
    expect((await graphql(app, a.cookies.support, SEARCH, { query: requestId })).body.data.search).toEqual([request]);
    expect(await a.support.search.query.query({ query: requestId })).toEqual([request]);
    expect(await a.support.search.query.query({ query: record.hash! })).toEqual([transaction]);
    expect(await b.support.search.query.query({ query: requestId })).toEqual([]);
    expect((await graphql(app, b.cookies.support, SEARCH, { query: record.id })).body.data.search).toEqual([]);
  });

  it('answers a blank query with an empty list and an over-long one with INVALID_REQUEST', async () => {
    expect((await graphql(app, a.cookies.support, SEARCH, { query: '  ' })).body).toEqual({ data: { search: [] } });
    const long = await graphql(app, a.cookies.support, SEARCH, { query: 'a'.repeat(201) });
    expect(long.body.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'INVALID_REQUEST', status: 400 }) })]);
    expect(await trpcFailure(a.support.search.query.query({ query: 'a'.repeat(201) }))).toMatchObject({ status: 400, body: { code: 'INVALID_REQUEST' } });
  });
});
