import { randomUUID } from 'node:crypto';
import { testDatabaseKinds } from '@wallet/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalsProject, decide, LARGE } from '../testing/approval-fixtures.ts';
import { consolePartner, graphql, restWallet, storedRecord } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';

type Partner = Awaited<ReturnType<typeof consolePartner>>;

const TRANSACTION_FIELDS = `transactionId walletId projectId walletType intentKind status createdAt chainId network to value tokenAddress hash nonce
  blockNumber blockHash failureStage failureCode failureMessage submittedAt resolvedAt executionMode monitoring { chainOutcome winningHash winningStatus state }`;

const CASE_FIELDS = `caseId reviewId: caseId projectId environment status terminalReason walletId apiKeyId authorizationScopeId bindingRevision idempotencyKey requestHash
  initiatorUserId request { action operation walletType chainId network to value tokenAddress } requirements { policyId policyVersion ruleId requirementId }
  stages { id requirementId roles attributes { name values } requiredApprovals approvals { userId at } completedAt } rejectedBy { userId stageId at }
  partnerReview { decision decidedAt decidedBy { type id } } expiresAt createdAt completedAt consumedAt rejectedAt expiredAt invalidatedAt cancelledAt`;

describe.each(testDatabaseKinds)('support GraphQL on %s', (kind) => {
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

  it('answers 401 UNAUTHORIZED with the spec body without a session', async () => {
    const response = await graphql(app, undefined, '{ projects { projectId } }');
    expect(response.status).toBe(401);
    expect(response.body.errors).toEqual([
      expect.objectContaining({ message: 'Sign in first', extensions: { code: 'UNAUTHORIZED', status: 401, message: 'Sign in first' } }),
    ]);
    expect(response.body.data ?? null).toBeNull();
    const expired = await graphql(app, 'wallet_session=forged', '{ wallet(id: "x") { id } }');
    expect(expired.status).toBe(401);
  });

  it('describes its schema only to signed-in staff outside local mode; in local mode to anyone', async () => {
    const documents = [
      '{ __schema { queryType { name } } }',
      '{ __type(name: "Wallet") { fields { name } } }',
      'query { ...F } fragment F on Query { __schema { types { name } } }',
    ];
    for (const document of documents) {
      const anonymous = await graphql(app, undefined, document);
      expect(anonymous.status, document).toBe(401);
      expect(anonymous.body.data ?? null).toBeNull();
      expect(anonymous.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'UNAUTHORIZED', status: 401, message: 'Sign in first' } })]);
      expect(JSON.stringify(anonymous.body)).not.toMatch(/Wallet|queryType/);
      const forged = await graphql(app, 'wallet_session=forged', document);
      expect(forged.status).toBe(401);
      const signedIn = await graphql(app, a.cookies.support, document);
      expect(signedIn.body.errors, document).toBeUndefined();
    }
    expect((await graphql(app, a.cookies.support, documents[0]!)).body.data).toEqual({ __schema: { queryType: { name: 'Query' } } });
    // Nor by guessing: a misspelt field gets no "Did you mean" naming the real ones.
    const guessed = await graphql(app, undefined, '{ walets { id } transactionByHsh(hash: "0x1") { hash } }');
    expect(guessed.body.errors?.map((e) => e.message)).toEqual(['Cannot query field "walets" on type "Query".', 'Cannot query field "transactionByHsh" on type "Query".']);

    const local = await startTestApp(kind, { app: { secureCookies: false, graphiql: true, publicIntrospection: true } });
    try {
      const open = await graphql(local, undefined, documents[1]!);
      expect(open.status).toBe(200);
      expect(open.body.data.__type.fields.map((f: { name: string }) => f.name)).toContain('address');
      expect((await graphql(local, undefined, '{ walets { id } }')).body.errors?.[0]?.message).toMatch(/Did you mean "wallets"/);
    } finally {
      await local.close();
    }
  });

  it('finds wallets by address and user identifier across the partner projects, in cursor pages', async () => {
    const second = await a.owner.apiKeys.create.mutate({ projectId: (await a.owner.projects.create.mutate({ name: `gql-${randomUUID()}` })).projectId, environment: 'development', plan: 'scale' });
    const identifier = `shared-${randomUUID()}`;
    const w1 = await restWallet(app, a.key.apiKey, { userIdentifier: identifier });
    const w2 = await restWallet(app, second.apiKey, { userIdentifier: identifier });
    const w3 = await restWallet(app, second.apiKey, { userIdentifier: identifier, type: 'SOLANA' });
    await restWallet(app, b.key.apiKey, { userIdentifier: identifier });

    const query = `query($id: String, $after: String) { wallets(userIdentifier: $id, first: 2, after: $after) {
      edges { cursor node { id projectId address type claimedAt } } pageInfo { hasNextPage endCursor } } }`;
    const page1 = await graphql(app, a.cookies.support, query, { id: identifier });
    expect(page1.body.errors).toBeUndefined();
    expect(page1.body.data.wallets.edges.map((e: any) => e.node.id)).toEqual([w3.id, w2.id]);
    expect(page1.body.data.wallets.pageInfo.hasNextPage).toBe(true);
    const page2 = await graphql(app, a.cookies.support, query, { id: identifier, after: page1.body.data.wallets.pageInfo.endCursor });
    expect(page2.body.data.wallets.edges.map((e: any) => e.node.id)).toEqual([w1.id]);
    expect(page2.body.data.wallets.pageInfo).toEqual({ hasNextPage: false, endCursor: page2.body.data.wallets.edges[0].cursor });

    const byAddress = await graphql(app, a.cookies.support, `{ wallets(address: "${w2.address.toLowerCase()}") { edges { node { id projectId } } } }`);
    expect(byAddress.body.data.wallets.edges).toEqual([{ node: { id: w2.id, projectId: second.projectId } }]);
    // The other partner's wallet with the same identifier is not visible to A, and A's are not to B.
    const fromB = await graphql(app, b.cookies.support, `{ wallets(address: "${w2.address}") { edges { node { id } } } }`);
    expect(fromB.body.data.wallets.edges).toEqual([]);
  });

  it("looks up a record by id and by hash with its wallet and deliveries; another partner's ids are NOT_FOUND", async () => {
    const wallet = await restWallet(app, a.key.apiKey);
    const record = await storedRecord(app, wallet, { projectId: a.key.projectId, partnerId: a.partnerId, apiKeyId: a.key.apiKeyId }, {
      status: 'failed',
      failureStage: 'broadcast',
      failureCode: 'REPLACED',
      failureMessage: 'replaced by another transaction',
      monitoring: { chainOutcome: 'replaced', winningHash: '0xabc', winningStatus: 'confirmed', state: 'active' },
    });
    const rest = await app.request('GET', `/v1/wallets/${wallet.id}/transactions/${record.id}`, { key: a.key.apiKey });
    const byHash = await graphql(app, a.cookies.support, `query($h: String!) { transactionByHash(hash: $h) { ${TRANSACTION_FIELDS}
      wallet { id address } webhookDeliveries { eventId type status dispatched attempts { statusCode } } } }`, { h: record.hash!.toUpperCase().replace('0X', '0x') });
    expect(byHash.body.errors).toBeUndefined();
    const found = byHash.body.data.transactionByHash;
    expect(found).toMatchObject({ ...rest.body, projectId: a.key.projectId, tokenAddress: null, wallet: { id: wallet.id, address: wallet.address } });
    expect(found.monitoring).toEqual({ chainOutcome: 'replaced', winningHash: '0xabc', winningStatus: 'confirmed', state: 'active' });
    expect(found.webhookDeliveries).toEqual([{ eventId: expect.stringMatching(/^evt_/), type: 'send.broadcasted', status: 'not_sent', dispatched: false, attempts: [] }]);
    // Dispatched while the key has no endpoint: still not sent, and now it will stay so.
    await app.services.webhookDelivery.runOnce();
    const again = await graphql(app, a.cookies.support, `query($h: String!) { transactionByHash(hash: $h) { webhookDeliveries { status dispatched } } }`, { h: record.hash! });
    expect(again.body.data.transactionByHash.webhookDeliveries).toEqual([{ status: 'not_sent', dispatched: true }]);

    const byId = await graphql(app, a.cookies.support, `{ transaction(id: "${record.id}") { transactionId hash } transactions(hash: "${record.hash}") { edges { node { transactionId } } } }`);
    expect(byId.body.data).toEqual({ transaction: { transactionId: record.id, hash: record.hash }, transactions: { edges: [{ node: { transactionId: record.id } }] } });

    const walletTransactions = await graphql(app, a.cookies.support, `{ wallet(id: "${wallet.id}") { id transactions(first: 5) { edges { node { transactionId status } } } } }`);
    expect(walletTransactions.body.data.wallet.transactions.edges).toEqual([{ node: { transactionId: record.id, status: 'failed' } }]);

    for (const query of [`{ transaction(id: "${record.id}") { transactionId } }`, `{ wallet(id: "${wallet.id}") { id } }`, `{ transactionByHash(hash: "${record.hash}") { transactionId } }`]) {
      const foreign = await graphql(app, b.cookies.owner, query);
      expect(foreign.body.data).toBeNull();
      expect(foreign.body.errors).toEqual([expect.objectContaining({ extensions: { code: 'NOT_FOUND', status: 404, message: expect.stringMatching(/not found$/) } })]);
    }
    const missing = await graphql(app, b.cookies.owner, `{ transaction(id: "${randomUUID()}") { transactionId } }`);
    const foreign = await graphql(app, b.cookies.owner, `{ transaction(id: "${record.id}") { transactionId } }`);
    expect(missing.body).toEqual(foreign.body);
  });

  it("reads approval cases by id, a wallet's newest ones and the one behind a record, as REST shows them; another partner's case is NOT_FOUND like a missing one", async () => {
    const p = await approvalsProject(app, { partner: a.partner });
    const finance = await p.member(['finance']); // before the cases: an assignment invalidates open ones
    const first = (await p.sign(LARGE, { 'Idempotency-Key': 'gql-1' })).body.caseId as string;
    await new Promise((resolve) => setTimeout(resolve, 5));
    const second = (await p.sign(LARGE, { 'Idempotency-Key': 'gql-2' }, {}, 1)).body.caseId as string;
    expect((await decide(app, 'approve', first, finance)).ok).toBe(true);

    const one = await graphql(app, a.cookies.support, `query($id: ID!) { approvalCase(id: $id) { ${CASE_FIELDS} wallet { id } } }`, { id: first });
    expect(one.body.errors).toBeUndefined();
    const rest = (await p.getCase(first)).body;
    const { request, ...view } = rest;
    expect(one.body.data.approvalCase).toEqual({
      ...view,
      stages: view.stages.map((s: { attributes: Record<string, string[]> }) => ({ ...s, attributes: Object.entries(s.attributes).map(([name, values]) => ({ name, values })) })),
      projectId: p.projectId,
      environment: 'development',
      request: { action: request.action, operation: request.operation, ...request.chain, to: request.transfer.to, value: LARGE, tokenAddress: null },
      wallet: { id: p.wallet.id },
    });
    expect(one.body.data.approvalCase.stages).toEqual([expect.objectContaining({ id: 'finance', approvals: [{ userId: finance, at: expect.any(String) }], completedAt: expect.any(String) })]);

    const ofWallet = await graphql(app, a.cookies.support, `{ wallet(id: "${p.wallet.id}") { approvalCases { caseId status } latest: approvalCases(first: 1, environment: "development") { caseId } prod: approvalCases(environment: "production") { caseId } } }`);
    expect(ofWallet.body.data.wallet).toEqual({ approvalCases: [{ caseId: second, status: 'pending' }, { caseId: first, status: 'completed' }], latest: [{ caseId: second }], prod: [] });
    expect((await graphql(app, a.cookies.support, `{ wallet(id: "${p.wallet.id}") { approvalCases(first: 21) { caseId } } }`)).body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'INVALID_REQUEST', status: 400 }) }),
    ]);

    // The case behind a record: the case claimed by the request that wrote the record (its request id), keyed or not; a record of
    // another request (the pending case's key) shows none.
    const resendId = randomUUID();
    expect((await p.sign(LARGE, { 'Idempotency-Key': 'gql-1', 'x-request-id': resendId })).status).toBe(200);
    const keylessCase = (await p.sign(LARGE, {}, {}, 2)).body.caseId as string;
    expect((await decide(app, 'approve', keylessCase, finance)).ok).toBe(true);
    const keylessResendId = randomUUID();
    expect((await p.sign(LARGE, { 'x-request-id': keylessResendId }, {}, 2)).status).toBe(200);
    const owner = { projectId: p.projectId, partnerId: a.partnerId, apiKeyId: p.apiKeyId };
    const [signed, pending, keyless] = await Promise.all([
      storedRecord(app, p.wallet, owner, { idempotencyKey: 'gql-1', requestId: resendId }),
      storedRecord(app, p.wallet, owner, { idempotencyKey: 'gql-2', requestId: randomUUID() }),
      storedRecord(app, p.wallet, owner, { requestId: keylessResendId }),
    ]);
    const behind = await graphql(app, a.cookies.support, `{ a: transaction(id: "${signed.id}") { approvalCase { caseId status consumedAt } }
      b: transaction(id: "${pending.id}") { approvalCase { caseId } } c: transaction(id: "${keyless.id}") { approvalCase { caseId } } }`);
    expect(behind.body).toEqual({
      data: { a: { approvalCase: { caseId: first, status: 'consumed', consumedAt: expect.any(String) } }, b: { approvalCase: null }, c: { approvalCase: { caseId: keylessCase } } },
    });
    const missing = await graphql(app, b.cookies.support, `{ approvalCase(id: "${randomUUID()}") { caseId } }`);
    expect(missing.body).toEqual({ data: null, errors: [expect.objectContaining({ extensions: { code: 'NOT_FOUND', status: 404, message: 'Approval case not found' } })] });
    expect((await graphql(app, b.cookies.support, `{ approvalCase(id: "${first}") { caseId } }`)).body).toEqual(missing.body);
    expect((await graphql(app, b.cookies.support, '{ approvalCase(id: "not-a-uuid") { caseId } }')).body.errors?.[0]?.extensions).toEqual(missing.body.errors?.[0]?.extensions);
  });

  it('has no mutations, limits depth and cost, and serves no GraphiQL outside local mode', async () => {
    const mutation = await graphql(app, a.cookies.owner, 'mutation { anything }');
    expect(mutation.body.errors?.[0]?.message).toMatch(/mutation/i);

    const deep = await graphql(app, a.cookies.owner, `{ transactionByHash(hash: "0x1") { wallet { transactions { edges { node { wallet { transactions { edges { node { wallet { id } } } } } } } } } } }`);
    expect(deep.body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/too deep/), extensions: expect.objectContaining({ code: 'INVALID_REQUEST', status: 400 }) })]);

    const costly = await graphql(app, a.cookies.owner, `{ wallets(first: 100) { edges { node { transactions(first: 100) { edges { node { transactionId hash } } } } } } }`);
    expect(costly.body.errors).toEqual([expect.objectContaining({ message: expect.stringMatching(/too costly/) })]);
    const tooLarge = await graphql(app, a.cookies.owner, `{ wallets(first: 1000) { edges { node { id } } } }`);
    expect(tooLarge.body.errors).toEqual([expect.objectContaining({ extensions: expect.objectContaining({ code: 'INVALID_REQUEST', status: 400 }) })]);

    const page = await fetch(`${app.baseUrl}/graphql`, { headers: { accept: 'text/html' } });
    expect(await page.text()).not.toMatch(/graphiql/i);
  });
});
