import { testDatabaseKinds } from '@wallet/db';
import { type Address } from 'viem';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { approvalsProject, tokenReviewPolicy } from '../testing/approval-fixtures.ts';
import { consolePartner, graphql, restWallet } from '../testing/console-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import type { PollLoop } from '../workers/poll-loop.ts';
import { startSponsoredWorker } from '../workers/sponsored-worker.ts';

const CHAIN_ID = 84532;
const USDC = 1_000_000n;

/** What the console's record page reads of a sponsored record, and the evidence the monitor resolved it with. */
const SPONSORED_FIELDS = `transactionId projectId status executionMode stage reviewId userOperationHash actualGasCost
  hash blockNumber blockHash monitoring { chainOutcome winningHash winningStatus state }`;

interface Lookup {
  transactionId: string;
  status: string;
  executionMode: string;
  stage?: string | null;
  reviewId?: string | null;
  userOperationHash?: string | null;
  actualGasCost?: string | null;
  hash: string | null;
  blockNumber: string | null;
  blockHash: string | null;
  monitoring?: { chainOutcome: string | null; winningHash: string | null; winningStatus: string | null; state?: string };
}

/** The GraphQL node a REST lookup corresponds to (GraphQL answers null where REST leaves a field out). */
const asNode = (rest: Lookup, projectId: string) => ({
  transactionId: rest.transactionId,
  projectId,
  status: rest.status,
  executionMode: rest.executionMode,
  stage: rest.stage ?? null,
  reviewId: rest.reviewId ?? null,
  userOperationHash: rest.userOperationHash ?? null,
  actualGasCost: rest.actualGasCost ?? null,
  hash: rest.hash,
  blockNumber: rest.blockNumber,
  blockHash: rest.blockHash,
  monitoring: rest.monitoring ? { state: null, ...rest.monitoring } : null,
});

describe.each(testDatabaseKinds)('support GraphQL: sponsored records on %s', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let worker: PollLoop | undefined;
  let a: Awaited<ReturnType<typeof consolePartner>>;
  let usdc: Address;

  const lookup = async (apiKey: string, walletId: string, transactionId: string) =>
    (await app.request('GET', `/v1/wallets/${walletId}/transactions/${transactionId}`, { key: apiKey })).body as Lookup;

  /** Polls the REST lookup until `done` holds (the sponsored worker moves the record). */
  async function until(apiKey: string, walletId: string, transactionId: string, done: (r: Lookup) => boolean): Promise<Lookup> {
    const end = Date.now() + 40_000;
    for (;;) {
      const record = await lookup(apiKey, walletId, transactionId);
      if (done(record)) return record;
      if (Date.now() > end) throw new Error(`record ${transactionId} still ${record.status}/${record.stage}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  beforeAll(async () => {
    devnets = await startLocalDevnets({ sponsorship: true });
    app = await startTestApp(kind, { chains: devnets });
    a = await consolePartner(app);
    await app.services.sponsorship.change(await app.services.policies.operatorScope(a.key.projectId, 'development'), 'enable');
    const chains = (await app.request('GET', '/v1/chains', { key: a.key.apiKey })).body as { chains: { type: string; usdc: { address: Address } | null }[] };
    usdc = chains.chains.find((c) => c.type === 'EVM')!.usdc!.address;
    worker = startSponsoredWorker({ runner: app.services.sponsoredRunner, idleMs: 100, logger: { error: () => undefined } });
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await devnets?.stop();
  });

  it('a confirmed sponsored record shows its stage, operation hash, gas cost and evidence as REST does, by id, hash and wallet, and in the console read; legacy records null', async () => {
    const wallet = await restWallet(app, a.key.apiKey);
    expect((await app.request('POST', '/v1/local/faucet', { key: a.key.apiKey, body: { walletId: wallet.id, amount: '10', token: 'usdc' } })).status).toBe(200);
    const sent = await app.request('POST', `/v1/wallets/${wallet.id}/transfer`, {
      key: a.key.apiKey,
      body: { to: privateKeyToAccount(generatePrivateKey()).address, value: (2n * USDC).toString(), chainId: CHAIN_ID, tokenAddress: usdc },
    });
    expect(sent.status, JSON.stringify(sent.body)).toBe(202);
    const id = (sent.body as Lookup).transactionId;
    const rest = await until(a.key.apiKey, wallet.id, id, (r) => ['confirmed', 'reverted', 'failed'].includes(r.status));
    expect(rest).toMatchObject({ status: 'confirmed', stage: 'included', executionMode: 'sponsored' });

    const byId = await graphql(app, a.cookies.support, `query($id: ID!) { transaction(id: $id) { ${SPONSORED_FIELDS} } }`, { id });
    expect(byId.body.errors).toBeUndefined();
    const node = byId.body.data.transaction;
    expect(node).toEqual(asNode(rest, a.key.projectId));
    expect(node.userOperationHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(node.userOperationHash).not.toBe(node.hash);
    expect(node.actualGasCost).toMatch(/^[1-9]\d*$/);
    // The monitor's evidence: the bundle transaction included the operation, in a block it names.
    expect(node.monitoring.winningHash).toBe(node.hash);
    expect(node.blockNumber).toMatch(/^\d+$/);
    expect(node.blockHash).toMatch(/^0x[0-9a-f]{64}$/);

    // The bundle transaction's hash finds the record; the wallet's connection carries the same fields.
    const elsewhere = await graphql(app, a.cookies.support, `query($h: String!, $w: ID!) { transactionByHash(hash: $h) { ${SPONSORED_FIELDS} }
      wallet(id: $w) { transactions(first: 5) { edges { node { ${SPONSORED_FIELDS} } } } } }`, { h: rest.hash, w: wallet.id });
    expect(elsewhere.body.errors).toBeUndefined();
    expect(elsewhere.body.data.transactionByHash).toEqual(node);
    expect(elsewhere.body.data.wallet.transactions.edges).toEqual([{ node }]);

    // The console's record page reads tRPC transactions.get: the same record, for a support account too.
    const consoleRead = await a.support.transactions.get.query({ transactionId: id });
    expect(consoleRead).toMatchObject({ ...rest, projectId: a.key.projectId });

    // A legacy record of the same partner (a native transfer the wallet pays for itself): the sponsored fields are null.
    const payer = await restWallet(app, a.key.apiKey);
    expect((await app.request('POST', '/v1/local/faucet', { key: a.key.apiKey, body: { walletId: payer.id, amount: '0.01', token: 'native' } })).status).toBe(200);
    const native = await app.request('POST', `/v1/wallets/${payer.id}/transfer`, { key: a.key.apiKey, body: { to: wallet.address, value: '1', chainId: CHAIN_ID } });
    expect(native.status, JSON.stringify(native.body)).toBe(200);
    const legacyId = (native.body as Lookup).transactionId;
    const legacy = await graphql(app, a.cookies.support, `{ transaction(id: "${legacyId}") { executionMode stage reviewId userOperationHash actualGasCost } }`);
    expect(legacy.body).toEqual({ data: { transaction: { executionMode: 'legacy', stage: null, reviewId: null, userOperationHash: null, actualGasCost: null } } });
  }, 90_000);

  it('a record paused for review names the review; its case gives the project and environment the console links to', async () => {
    const reviewPolicy = tokenReviewPolicy((5n * USDC).toString());
    const p = await approvalsProject(app, { policy: reviewPolicy, partner: a.partner });
    await app.services.sponsorship.change(await app.services.policies.operatorScope(p.projectId, p.environment), 'enable');
    expect((await p.post('/v1/local/faucet', { walletId: p.wallet.id, amount: '20', token: 'usdc' })).status).toBe(200);
    const accepted = await p.post(`/v1/wallets/${p.wallet.id}/transfer`, {
      to: privateKeyToAccount(generatePrivateKey()).address,
      value: (6n * USDC).toString(),
      chainId: CHAIN_ID,
      tokenAddress: usdc,
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const id = (accepted.body as Lookup).transactionId;
    const rest = await until(p.key, p.wallet.id, id, (r) => r.stage === 'requires_action' || ['confirmed', 'reverted', 'failed'].includes(r.status));
    expect(rest).toMatchObject({ status: 'pending', stage: 'requires_action', reviewId: expect.any(String), userOperationHash: null, actualGasCost: null });

    const answer = await graphql(app, a.cookies.support, `query($id: ID!, $review: ID!) { transaction(id: $id) { ${SPONSORED_FIELDS} }
      approvalCase(id: $review) { caseId projectId environment status } }`, { id, review: rest.reviewId });
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data.transaction).toEqual(asNode(rest, p.projectId));
    expect(answer.body.data.transaction).toMatchObject({ stage: 'requires_action', reviewId: rest.reviewId, hash: null });
    expect(answer.body.data.approvalCase).toEqual({ caseId: rest.reviewId, projectId: p.projectId, environment: p.environment, status: 'pending' });
  }, 60_000);
});
