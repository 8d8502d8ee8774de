import { testDatabaseKinds } from '@wallet/db';
import type { Clock } from '@wallet/domain';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from './local/devnets.ts';
import { consolePartner, graphql } from './testing/console-fixtures.ts';
import { startTestApp, type TestApp } from './testing/harness.ts';
import { staffClient, trpcFailure } from './testing/staff-client.ts';
import { TEST_CA_FILE, startReceiver, verifyWebhook, type Receiver } from './webhooks/testing/receiver.ts';

const EVM_CHAIN = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';

/** Real time plus an offset the test moves (to make monitor checks due without waiting). */
function movableClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advanceTo(at: Date) {
      offset += Math.max(0, at.getTime() - (Date.now() + offset));
    },
  } satisfies Clock & Record<string, unknown>;
}

const RECORD_FIELDS = `transactionId walletId projectId walletType intentKind status createdAt chainId network to value tokenAddress hash nonce
  blockNumber blockHash failureStage failureCode failureMessage submittedAt resolvedAt executionMode monitoring { chainOutcome winningHash winningStatus state }
  autoRetry { enabled maxFeePerGas reason attempts { hash maxFeePerGas maxPriorityFeePerGas recentBlockhash sentAt outcome } }`;
const WALLET_FIELDS = 'id type scheme status createdAt address publicKey userIdentifier userIdentifierType custodyMode';

/** A GraphQL record without the fields REST leaves out when absent (null here), for comparison. */
const withoutNulls = (value: Record<string, unknown>) =>
  Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => v !== null || !['to', 'value', 'tokenAddress', 'monitoring'].includes(k))
      .map(([k, v]) => [k, k === 'autoRetry' && v ? withoutOptionalNulls(v) : v]),
  );
/** REST leaves an attempt's or a retry's optional fields out; GraphQL answers them null. */
const withoutOptionalNulls = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(withoutOptionalNulls)
    : value !== null && typeof value === 'object'
      ? Object.fromEntries(Object.entries(value).filter(([k, v]) => v !== null || k === 'hash' || k === 'maxFeePerGas').map(([k, v]) => [k, withoutOptionalNulls(v)]))
      : value;

describe.each(testDatabaseKinds)('one use case through REST, tRPC and GraphQL, and the support scenario (%s)', (kind) => {
  const clock = movableClock();
  let devnets: LocalDevnets;
  let app: TestApp;
  let receiver: Receiver;
  let a: Awaited<ReturnType<typeof consolePartner>>;
  let b: Awaited<ReturnType<typeof consolePartner>>;
  let webhookSecret: string;
  let transfer: { walletId: string; address: string; transactionId: string; txHash: string };

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    receiver = await startReceiver();
    app = await startTestApp(kind, {
      chains: devnets,
      clock,
      env: { WEBHOOK_CA_FILE: TEST_CA_FILE, WEBHOOK_TIMEOUT_MS: '2000', WEBHOOK_RETRY_BASE_MS: '30', WEBHOOK_RETRY_MAX_MS: '300' },
    });
    [a, b] = await Promise.all([consolePartner(app), consolePartner(app)]);
    // The developer points the key's webhook at the receiver before anything happens.
    const config = await a.developer.webhooks.set.mutate({
      apiKeyId: a.key.apiKeyId,
      url: receiver.url,
      eventTypes: ['send.broadcasted', 'send.confirmed', 'rest.transaction.confirmed', 'rest.transaction.failed'],
      enabled: true,
    });
    webhookSecret = config.secret!;

    // A real transfer from a funded wallet, monitored to `confirmed`, its events delivered.
    const key = a.key.apiKey;
    const wallet = (await app.request('POST', '/v1/wallets', { key, body: { type: 'EVM', userIdentifier: 'customer-42@example.com', userIdentifierType: 'EMAIL' } })).body;
    expect((await app.request('POST', '/v1/local/faucet', { key, body: { walletId: wallet.id, amount: '1', token: 'native' } })).status).toBe(200);
    const sent = await app.request('POST', `/v1/wallets/${wallet.id}/transfer`, { key, body: { to: RECIPIENT, value: '1000000000000000', chainId: EVM_CHAIN } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    transfer = { walletId: wallet.id, address: wallet.address, transactionId: sent.body.transactionId, txHash: sent.body.txHash };

    const deadline = Date.now() + 30_000;
    for (;;) {
      const [row] = await app.database.query<{ status: string; next_check_at: Date | null }>('SELECT status, next_check_at FROM transaction_records WHERE id = $1', [transfer.transactionId]);
      if (row!.status === 'confirmed') break;
      if (Date.now() > deadline) throw new Error(`record still ${row!.status}`);
      if (row!.next_check_at) clock.advanceTo(new Date(row!.next_check_at.getTime() + 1));
      await app.services.monitor.runOnce();
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    const wanted = ['send.broadcasted', 'rest.transaction.confirmed', 'send.confirmed'];
    while (!wanted.every((type) => receiver.requests.some((r) => r.body.type === type))) {
      if (Date.now() > deadline) throw new Error(`deliveries incomplete: ${receiver.requests.map((r) => r.body.type).join(', ')}`);
      await app.services.webhookDelivery.runOnce();
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }, 90_000);
  afterAll(async () => {
    const logs = app?.logLines.join('') ?? '';
    if (webhookSecret) expect(logs).not.toContain(webhookSecret);
    await receiver?.close();
    await app?.close();
    await devnets?.stop();
  });

  it('gives the same wallet, record and record list through all three transports', async () => {
    const { walletId, transactionId } = transfer;
    const restWallet = await app.request('GET', `/v1/wallets/${walletId}`, { key: a.key.apiKey });
    const restRecord = await app.request('GET', `/v1/wallets/${walletId}/transactions/${transactionId}`, { key: a.key.apiKey });
    const restList = await app.request('GET', `/v1/wallets/${walletId}/transactions`, { key: a.key.apiKey });
    expect([restWallet.status, restRecord.status, restList.status]).toEqual([200, 200, 200]);
    expect(restRecord.body.status).toBe('confirmed');

    const trpcWallet = await a.support.wallets.get.query({ walletId });
    const { webhookDeliveries, ...trpcRecord } = await a.support.transactions.get.query({ transactionId });
    const trpcList = await a.support.transactions.list.query({ projectId: a.key.projectId, walletId });
    expect(trpcWallet).toEqual({ ...restWallet.body, projectId: a.key.projectId, custody: 'api_key', claimedAt: null, claimedByUserId: null });
    expect(trpcRecord).toEqual({ ...restRecord.body, projectId: a.key.projectId });
    // The console's list rows carry the wallet's user besides the REST summary (its user column).
    expect(trpcList.data).toEqual(restList.body.data.map((t: object) => ({ ...t, projectId: a.key.projectId, userIdentifier: restWallet.body.userIdentifier })));
    expect(webhookDeliveries.length).toBeGreaterThanOrEqual(3);

    const gql = await graphql(
      app,
      a.cookies.support,
      `query($w: ID!, $t: ID!) { wallet(id: $w) { ${WALLET_FIELDS} transactions { edges { node { ${RECORD_FIELDS} } } } } transaction(id: $t) { ${RECORD_FIELDS} } }`,
      { w: walletId, t: transactionId },
    );
    expect(gql.body.errors).toBeUndefined();
    const { transactions, ...gqlWallet } = gql.body.data.wallet;
    expect(gqlWallet).toEqual(restWallet.body);
    expect(withoutNulls(gql.body.data.transaction)).toEqual({ ...restRecord.body, projectId: a.key.projectId });
    // GraphQL's nodes are full records; REST lists summaries, which carry no `autoRetry` (single lookups do).
    expect(transactions.edges.map(({ node: { autoRetry: _autoRetry, ...node } }: any) => withoutNulls(node))).toEqual(
      restList.body.data.map((t: object) => ({ ...t, projectId: a.key.projectId, nonce: restRecord.body.nonce })),
    );
  });

  it("fails the same way: another partner's id is 404 NOT_FOUND and no credentials 401 UNAUTHORIZED in all three", async () => {
    const { walletId, transactionId } = transfer;
    const notFound = { code: 'NOT_FOUND', message: 'Wallet not found' };
    const rest = await app.request('GET', `/v1/wallets/${walletId}`, { key: b.key.apiKey });
    expect({ status: rest.status, body: rest.body }).toEqual({ status: 404, body: notFound });
    expect(await trpcFailure(b.support.wallets.get.query({ walletId }))).toEqual({ status: 404, body: notFound });
    const gql = await graphql(app, b.cookies.support, `{ wallet(id: "${walletId}") { id } }`);
    expect(gql.body.errors?.[0]?.extensions).toEqual({ ...notFound, status: 404 });

    const restRecord = await app.request('GET', `/v1/wallets/${walletId}/transactions/${transactionId}`, { key: b.key.apiKey });
    const trpcRecord = await trpcFailure(b.support.transactions.get.query({ transactionId }));
    const gqlRecord = await graphql(app, b.cookies.support, `{ transaction(id: "${transactionId}") { hash } }`);
    // REST reaches the record through its wallet, so the wallet is what is not found there.
    expect(restRecord.status).toBe(404);
    expect(trpcRecord).toEqual({ status: 404, body: { code: 'NOT_FOUND', message: 'Transaction not found' } });
    expect(gqlRecord.body.errors?.[0]?.extensions).toEqual({ code: 'NOT_FOUND', message: 'Transaction not found', status: 404 });

    const anonymousRest = await app.request('GET', `/v1/wallets/${walletId}`);
    const anonymousTrpc = await trpcFailure(staffClient(app.baseUrl).client.wallets.get.query({ walletId }));
    const anonymousGql = await graphql(app, undefined, `{ wallet(id: "${walletId}") { id } }`);
    expect([anonymousRest.status, anonymousTrpc.status, anonymousGql.status]).toEqual([401, 401, 401]);
    expect([anonymousRest.body.code, anonymousTrpc.body.code, anonymousGql.body.errors?.[0]?.extensions?.code]).toEqual(['UNAUTHORIZED', 'UNAUTHORIZED', 'UNAUTHORIZED']);
  });

  it('lets a support user holding only the transaction hash find the record, its wallet, its monitoring outcome and its webhook deliveries', async () => {
    const response = await graphql(
      app,
      a.cookies.support,
      `query($hash: String!) { transactionByHash(hash: $hash) {
         transactionId status hash blockNumber blockHash resolvedAt failureStage failureCode failureMessage
         monitoring { chainOutcome winningHash winningStatus state }
         wallet { id address userIdentifier userIdentifierType projectId claimedAt }
         webhookDeliveries { eventId type status url deliveredAt attempts { attemptedAt statusCode latencyMs error } }
       } }`,
      { hash: transfer.txHash },
    );
    expect(response.status).toBe(200);
    expect(response.body.errors).toBeUndefined();
    const found = response.body.data.transactionByHash;
    const rest = (await app.request('GET', `/v1/wallets/${transfer.walletId}/transactions/${transfer.transactionId}`, { key: a.key.apiKey })).body;
    expect(found).toMatchObject({
      transactionId: transfer.transactionId,
      status: 'confirmed',
      hash: transfer.txHash,
      blockNumber: rest.blockNumber,
      blockHash: rest.blockHash,
      resolvedAt: rest.resolvedAt,
      failureStage: null,
      monitoring: rest.monitoring ? { state: null, ...rest.monitoring } : null,
      wallet: { id: transfer.walletId, address: transfer.address, userIdentifier: 'customer-42@example.com', userIdentifierType: 'EMAIL', projectId: a.key.projectId, claimedAt: null },
    });
    expect(found.blockNumber).toMatch(/^\d+$/);

    // Every delivered event is one the receiver got, under the same webhook-id, signed with the key's secret.
    const delivered = found.webhookDeliveries.filter((d: any) => d.status === 'delivered');
    expect(delivered.map((d: any) => d.type).sort()).toEqual(['rest.transaction.confirmed', 'send.broadcasted', 'send.confirmed']);
    for (const delivery of delivered) {
      expect(delivery).toMatchObject({ url: receiver.url, deliveredAt: expect.any(String), attempts: [expect.objectContaining({ statusCode: 204, error: null })] });
      const received = receiver.requests.find((r) => r.headers['webhook-id'] === delivery.eventId);
      expect(received, delivery.type).toBeDefined();
      expect(verifyWebhook([webhookSecret], received!.headers, received!.rawBody, Math.floor(clock.now().getTime() / 1000))).toEqual([webhookSecret]);
    }
    expect(receiver.requests.find((r) => r.body.type === 'rest.transaction.confirmed')!.body.data).toMatchObject({ transactionId: transfer.transactionId, hash: transfer.txHash });

    // The same lookup by another partner's support staff finds nothing.
    const foreign = await graphql(app, b.cookies.support, `{ transactionByHash(hash: "${transfer.txHash}") { transactionId } }`);
    expect(foreign.body.errors?.[0]?.extensions).toMatchObject({ code: 'NOT_FOUND', status: 404 });
  });
});
