import { createClient, paginate, unwrap, waitForTransaction, WalletApiError, type WalletClient } from '@wallet/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { approvalsProject, LARGE } from '../testing/approval-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { DEAD, EVM_CHAIN, EVM_FEES, examplePolicy } from '../testing/policy-fixtures.ts';
import { startMonitorWorker } from '../workers/monitor-worker.ts';
import { startYieldWorker } from '../workers/yield-worker.ts';

const silent = { error: () => undefined, warn: () => undefined, info: () => undefined, debug: () => undefined };

/** @wallet/client against the real service over HTTP, on the local devnets (typed calls, cursors, waiting, errors). */
describe('the typed client against the service', () => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let client: WalletClient;
  let workers: { stop(): Promise<void> }[] = [];

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 100, yieldMarkets: true });
    app = await startTestApp('pglite', { chains: devnets });
    client = createClient({ baseUrl: app.baseUrl, apiKey: (await app.createKey()).apiKey });
    workers = [startMonitorWorker({ monitor: app.services.monitor, logger: silent, idleMs: 100 }), startYieldWorker({ runner: app.services.yieldRunner, logger: silent, idleMs: 100 })];
  });
  afterAll(async () => {
    for (const worker of workers) await worker.stop();
    await app?.close();
    await devnets?.stop();
  });

  const newWallet = (userIdentifier = `client-${Math.random()}`) =>
    unwrap(client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier, userIdentifierType: 'CUSTOM_ID' } }));
  const fund = (walletId: string, amount: string, token: 'native' | 'usdc' = 'native') => unwrap(client.POST('/v1/local/faucet', { body: { walletId, amount, token } }));

  it('creates and gets a wallet, and iterates the list across pages by its cursor', async () => {
    // A project of its own, so the list holds exactly this test's wallets.
    const client = createClient({ baseUrl: app.baseUrl, apiKey: (await app.createKey()).apiKey });
    const newWallet = (userIdentifier: string) => unwrap(client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier, userIdentifierType: 'CUSTOM_ID' } }));
    const created = await client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: 'client-first', userIdentifierType: 'CUSTOM_ID' } });
    expect(created.response.status).toBe(201);
    expect(created.data).toMatchObject({ type: 'EVM', status: 'ready', userIdentifier: 'client-first' });
    const fetched = await unwrap(client.GET('/v1/wallets/{walletId}', { params: { path: { walletId: created.data!.id } } }));
    expect(fetched).toEqual(created.data);

    const more = [];
    for (let i = 0; i < 4; i++) more.push(await newWallet(`client-page-${i}`));
    const seen: string[] = [];
    for await (const wallet of paginate(client, '/v1/wallets', { params: { query: { limit: 2, type: 'EVM' } } })) seen.push(wallet.id);
    // Newest first, every wallet once, over three pages of two.
    expect(seen).toEqual([...more].reverse().map((w) => w.id).concat(created.data!.id));
    const filtered = [];
    for await (const wallet of paginate(client, '/v1/wallets', { params: { query: { limit: 1, userIdentifier: 'client-page-2', userIdentifierType: 'CUSTOM_ID' } } })) filtered.push(wallet.id);
    expect(filtered).toEqual([more[2]!.id]);
  });

  it('a wrong call answers the typed error: status, code, details, request id', async () => {
    const answer = await client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: '', userIdentifierType: 'CUSTOM_ID' } });
    expect(answer.response.status).toBe(400);
    expect(answer.error).toMatchObject({ code: 'INVALID_REQUEST' });
    const error = await unwrap(client.POST('/v1/wallets', { body: { type: 'EVM', userIdentifier: '', userIdentifierType: 'CUSTOM_ID' } })).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WalletApiError);
    expect(error).toMatchObject({ status: 400, code: 'INVALID_REQUEST', details: [expect.objectContaining({ path: expect.any(String) })], requestId: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const missing = await unwrap(client.GET('/v1/wallets/{walletId}', { params: { path: { walletId: crypto.randomUUID() } } })).catch((e: unknown) => e);
    expect(missing).toMatchObject({ name: 'WalletApiError', status: 404, code: 'NOT_FOUND' });
  });

  it('transfers on the EVM devnet and waits for the record to be confirmed', async () => {
    const wallet = await newWallet();
    await fund(wallet.id, '1');
    const sent = await client.POST('/v1/wallets/{walletId}/transfer', { params: { path: { walletId: wallet.id } }, body: { to: DEAD, value: '1000000000000000', chainId: EVM_CHAIN } });
    expect(sent.response.status, JSON.stringify(sent.error)).toBe(200);
    const { transactionId } = sent.data!;
    expect(sent.response.headers.get('x-transaction-id')).toBe(transactionId);
    const record = await waitForTransaction(client, wallet.id, transactionId, { timeoutMs: 60_000, intervalMs: 250 });
    expect(record).toMatchObject({ transactionId, status: 'confirmed', intentKind: 'transfer', to: DEAD, value: '1000000000000000' });
    expect(record.blockNumber).toEqual(expect.anything());

    const history = [];
    for await (const item of paginate(client, '/v1/wallets/{walletId}/transactions', { params: { path: { walletId: wallet.id }, query: { limit: 1 } } })) history.push(item.transactionId);
    expect(history).toEqual([transactionId]);
  });

  it('waitForTransaction throws its timeout error while the record is not terminal', async () => {
    const wallet = await newWallet();
    await fund(wallet.id, '1');
    const sent = await unwrap(client.POST('/v1/wallets/{walletId}/transfer', { params: { path: { walletId: wallet.id } }, body: { to: DEAD, value: '1', chainId: EVM_CHAIN } }));
    const { transactionId } = sent;
    const error = await waitForTransaction(client, wallet.id, transactionId, { timeoutMs: 1, intervalMs: 1 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'TransactionWaitTimeoutError', transactionId, lastStatus: expect.stringMatching(/^(pending|submitted)$/) });
  });

  it('deposits into a yield market and reads the operation until it is confirmed', async () => {
    const wallet = await newWallet();
    await fund(wallet.id, '1');
    await fund(wallet.id, '20', 'usdc');
    const created = await client.POST('/v1/wallets/{walletId}/yield/deposits', { params: { path: { walletId: wallet.id } }, body: { marketId: 'poolprov-v3:84532:usdc', amount: '5' } });
    expect(created.response.status, JSON.stringify(created.error)).toBe(202);
    const operationId = created.data!.id;
    let operation = created.data!;
    const until = Date.now() + 60_000;
    while (['pending', 'submitted'].includes(operation.status) && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      operation = await unwrap(client.GET('/v1/wallets/{walletId}/yield/operations/{operationId}', { params: { path: { walletId: wallet.id, operationId } } }));
    }
    expect(operation).toMatchObject({ id: operationId, action: 'deposit', amount: '5.0', status: 'confirmed' });
    const position = await unwrap(client.GET('/v1/wallets/{walletId}/yield/position', { params: { path: { walletId: wallet.id }, query: { marketId: 'poolprov-v3:84532:usdc' } } }));
    expect(Number(position.suppliedBalance)).toBeGreaterThanOrEqual(5);
  });

  it('reads policies after one is applied, and approval cases opened by a signing request', async () => {
    const key = await app.createKey();
    const scope = await app.services.policies.operatorScope(key.projectId, 'development');
    await app.services.policies.apply(scope, examplePolicy('evm-guardrails.json'));
    const own = createClient({ baseUrl: app.baseUrl, apiKey: key.apiKey });
    const { policies } = await unwrap(own.GET('/v1/permissions-v2/policies'));
    expect(policies.map((p) => [p.policyId, p.status])).toEqual([['evm-guardrails', 'active']]);
    const policy = await unwrap(own.GET('/v1/permissions-v2/policies/{policyId}', { params: { path: { policyId: 'evm-guardrails' } } }));
    expect(policy).toMatchObject({ policyId: 'evm-guardrails', walletType: 'EVM' });

    const p = await approvalsProject(app);
    const approvals = createClient({ baseUrl: app.baseUrl, apiKey: p.key });
    const refused = await unwrap(
      approvals.POST('/v1/wallets/{walletId}/sign-transaction', {
        params: { path: { walletId: p.wallet.id } },
        body: { transaction: { to: DEAD, value: LARGE, chainId: EVM_CHAIN, type: 2, nonce: 0, ...EVM_FEES } },
      }),
    ).catch((e: unknown) => e);
    expect(refused).toMatchObject({ name: 'WalletApiError', status: 403, code: 'POLICY_REVIEW_REQUIRED' });
    const caseId = ((refused as WalletApiError).body as { caseId: string }).caseId;
    const listed = [];
    for await (const item of paginate(approvals, '/v1/permissions-v2/approval-cases', { params: { query: { limit: 1 } } })) listed.push(item.caseId);
    expect(listed).toEqual([caseId]);
    const one = await unwrap(approvals.GET('/v1/permissions-v2/approval-cases/{caseId}', { params: { path: { caseId } } }));
    expect(one).toMatchObject({ caseId, status: 'pending', walletId: p.wallet.id });
  });
});
