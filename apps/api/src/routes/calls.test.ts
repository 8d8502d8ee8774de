import { AAVE_POOL_ABI } from '@wallet/domain';
import { testDatabaseKinds } from '@wallet/db';
import { createPublicClient, encodeFunctionData, erc20Abi, http, parseTransaction, type Address, type Hex, type PublicClient } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { guardrail, policyProject, traces } from '../testing/policy-fixtures.ts';
import { consolePartner, graphql } from '../testing/console-fixtures.ts';
import { startMonitorWorker, type MonitorWorker } from '../workers/monitor-worker.ts';
import { startSponsoredWorker } from '../workers/sponsored-worker.ts';
import { entryPoint08Abi } from 'viem/account-abstraction';

const CHAIN_ID = 84532;
const USDC = 1_000_000n;
const OTHER = '0x1111111111111111111111111111111111111111';
const SIMPLE_7702 = '0xe6cae83bde06e4c305530e199d7217f42808555b';
const silent = { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined };

interface CallsRecord {
  transactionId: string;
  intentKind: string;
  status: string;
  hash: string;
  nonce: number;
  calls: { to: string; value: string; data: string; selector: string | null }[];
}

describe.each(testDatabaseKinds)('POST /v1/wallets/{walletId}/calls (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let monitor: MonitorWorker;
  let key: string;
  let client: PublicClient;
  let usdc: Address;
  let pool: Address;
  let aToken: Address;

  const post = (path: string, body: unknown, headers: Record<string, string> = {}, withKey = key, on = app) => on.request('POST', path, { key: withKey, body, headers });
  const usdcOf = (who: Address) => client.readContract({ address: usdc, abi: erc20Abi, functionName: 'balanceOf', args: [who] });
  const approve = (spender: Address, amount: bigint) => ({ to: usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [spender, amount] }) });
  const supply = (amount: bigint, onBehalfOf: Address) => ({ to: pool, data: encodeFunctionData({ abi: AAVE_POOL_ABI, functionName: 'supply', args: [usdc, amount, onBehalfOf, 0] }) });
  const transfer = (to: Address, amount: bigint) => ({ to: usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, amount] }) });

  async function fundedWallet(usdcAmount: string, withKey = key, on = app): Promise<{ id: string; address: Address }> {
    const created = await post('/v1/wallets', { type: 'EVM', userIdentifier: `calls-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' }, {}, withKey, on);
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const wallet = created.body as { id: string; address: Address };
    for (const [amount, token] of [['1', 'native'], [usdcAmount, 'usdc']]) {
      const funded = await post('/v1/local/faucet', { walletId: wallet.id, amount, token }, {}, withKey, on);
      expect(funded.status, JSON.stringify(funded.body)).toBe(200);
    }
    return wallet;
  }

  async function settled(walletId: string, transactionId: string, withKey = key, on = app): Promise<CallsRecord> {
    const end = Date.now() + 40_000;
    for (;;) {
      const record = (await on.request('GET', `/v1/wallets/${walletId}/transactions/${transactionId}`, { key: withKey })).body as CallsRecord;
      if (['confirmed', 'reverted', 'failed'].includes(record.status)) return record;
      if (Date.now() > end) throw new Error(`record ${transactionId} still ${record.status}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  }

  beforeAll(async () => {
    devnets = await startLocalDevnets({ sponsorship: true, yieldMarkets: true });
    app = await startTestApp(kind, { chains: devnets });
    key = (await app.createKey()).apiKey;
    client = createPublicClient({ transport: http(devnets.evmRpcUrl), pollingInterval: 100 });
    ({ poolAddress: pool, aToken } = devnets.yield!.pool);
    usdc = (await app.request('GET', '/v1/chains', { key })).body.chains.find((c: { type: string }) => c.type === 'EVM').usdc.address;
    monitor = startMonitorWorker({ monitor: app.services.monitor, logger: silent, idleMs: 100 });
  }, 90_000);
  afterAll(async () => {
    await monitor?.stop();
    await app?.close();
    await devnets?.stop();
  });

  it('runs approve and supply in one transaction carrying the delegation, then a type 2 batch; a replay sends nothing', async () => {
    const wallet = await fundedWallet('50');
    const amount = 25n * USDC;
    const body = { chainId: CHAIN_ID, calls: [approve(pool, amount), supply(amount, wallet.address)] };
    const sent = await post(`/v1/wallets/${wallet.id}/calls`, body, { 'Idempotency-Key': `calls-${wallet.id}` });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    expect(sent.headers.get('x-transaction-id')).toBe(sent.body.transactionId);
    const tx = parseTransaction(sent.body.signedTransaction as Hex);
    expect(tx.type).toBe('eip7702');
    expect(tx.to?.toLowerCase()).toBe(wallet.address.toLowerCase());
    expect(tx.authorizationList?.[0]).toMatchObject({ address: expect.stringMatching(/^0x/i), chainId: CHAIN_ID, nonce: tx.nonce! + 1 });

    const record = await settled(wallet.id, sent.body.transactionId);
    expect(record).toMatchObject({ intentKind: 'calls', status: 'confirmed', hash: sent.body.txHash });
    expect(record.calls.map((c) => c.selector)).toEqual(['0x095ea7b3', '0x617ba037']);
    // Both effects, from one transaction: the pool holds the USDC, the wallet its aTokens, the allowance is used up.
    expect(await usdcOf(wallet.address)).toBe(25n * USDC);
    expect(await client.readContract({ address: aToken, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.address] })).toBe(amount);
    expect(await client.readContract({ address: usdc, abi: erc20Abi, functionName: 'allowance', args: [wallet.address, pool] })).toBe(0n);
    expect((await client.getCode({ address: wallet.address }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702.slice(2)}`);
    const nonceAfter = await client.getTransactionCount({ address: wallet.address });
    expect(nonceAfter).toBe(2);

    // The same key again: the same answer, no second transaction.
    const replay = await post(`/v1/wallets/${wallet.id}/calls`, body, { 'Idempotency-Key': `calls-${wallet.id}` });
    expect(replay.status).toBe(200);
    expect(replay.body.transactionId).toBe(sent.body.transactionId);
    expect(await client.getTransactionCount({ address: wallet.address })).toBe(nonceAfter);

    // Delegated now: a plain type 2 self-call at the next nonce.
    const second = await post(`/v1/wallets/${wallet.id}/calls`, { chainId: String(CHAIN_ID), calls: [transfer('0x1111111111111111111111111111111111111111', USDC)] });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const secondTx = parseTransaction(second.body.signedTransaction as Hex);
    expect(secondTx).toMatchObject({ type: 'eip1559', nonce: 2 });
    expect((await settled(wallet.id, second.body.transactionId)).status).toBe('confirmed');
    expect(await usdcOf(wallet.address)).toBe(24n * USDC);
  });

  it('shows the batch in history and to the console through tRPC and GraphQL, each call with its selector', async () => {
    const partner = await consolePartner(app, [], ['support'] as const);
    const wallet = await fundedWallet('1', partner.key.apiKey);
    const sent = await post(`/v1/wallets/${wallet.id}/calls`, { chainId: CHAIN_ID, calls: [approve(pool, 1n), { to: OTHER, value: '5' }] }, {}, partner.key.apiKey);
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const calls = [
      { to: usdc, value: '0', data: approve(pool, 1n).data, selector: '0x095ea7b3' },
      { to: OTHER, value: '5', data: '0x', selector: null },
    ];
    const list = await app.request('GET', `/v1/wallets/${wallet.id}/transactions?intentKind=calls`, { key: partner.key.apiKey });
    expect(list.body.data).toEqual([expect.objectContaining({ transactionId: sent.body.transactionId, intentKind: 'calls', calls })]);
    expect(await partner.support.transactions.get.query({ transactionId: sent.body.transactionId })).toMatchObject({ intentKind: 'calls', calls });
    const gql = await graphql(app, partner.cookies.support, `query($t: ID!) { transaction(id: $t) { intentKind calls { to value data selector } } }`, { t: sent.body.transactionId });
    expect(gql.body.errors).toBeUndefined();
    expect(gql.body.data.transaction).toEqual({ intentKind: 'calls', calls });
  });

  it('refuses a batch whose second call reverts, with the reason, signing nothing', async () => {
    const wallet = await fundedWallet('10');
    const refused = await post(`/v1/wallets/${wallet.id}/calls`, { chainId: CHAIN_ID, calls: [approve(pool, USDC), supply(5n * USDC, wallet.address)] });
    expect(refused.status, JSON.stringify(refused.body)).toBe(422);
    expect(refused.body).toMatchObject({ code: 'CALLS_SIMULATION_REVERTED', callIndex: 1 });
    expect(refused.body.reason).toMatch(/ERC20InsufficientAllowance|revert/);
    expect(await traces(app, wallet.id)).toMatchObject({ signatures: 0, records: 0 });
    expect(await client.getCode({ address: wallet.address })).toBeUndefined();
    expect(await usdcOf(wallet.address)).toBe(10n * USDC);
  });

  it('answers bad bodies with a JSON error naming the field, writing nothing', async () => {
    const wallet = await fundedWallet('1');
    const cases: [unknown, string][] = [
      [{ chainId: CHAIN_ID, calls: [] }, 'calls'],
      [{ chainId: CHAIN_ID, calls: Array.from({ length: 11 }, () => transfer(wallet.address, 1n)) }, 'calls'],
      [{ chainId: CHAIN_ID, calls: [{ to: '0x1234' }] }, 'calls.0.to'],
      [{ chainId: CHAIN_ID, calls: [{ to: usdc, data: '0xabc' }] }, 'calls.0.data'],
      [{ chainId: CHAIN_ID, calls: [{ to: usdc, value: '-1' }] }, 'calls.0.value'],
      [{ chainId: CHAIN_ID, calls: [{ to: usdc, extra: 1 }] }, 'calls.0'],
      [{ calls: [{ to: usdc }] }, 'chainId'],
      [{ chainId: 1, calls: [{ to: usdc }] }, 'chainId'],
      [{ chainId: CHAIN_ID, calls: [{ to: usdc }], maxFeePerGas: '1', maxPriorityFeePerGas: '2' }, 'maxPriorityFeePerGas'],
    ];
    for (const [body, path] of cases) {
      const response = await post(`/v1/wallets/${wallet.id}/calls`, body);
      expect(response.status, JSON.stringify(body)).toBe(400);
      expect(response.body.code).toBe('INVALID_REQUEST');
      expect(JSON.stringify(response.body.details ?? response.body.message), JSON.stringify(body)).toContain(path);
    }
    const solana = await post('/v1/wallets', { type: 'SOLANA', userIdentifier: `calls-sol-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' });
    const notEvm = await post(`/v1/wallets/${solana.body.id}/calls`, { chainId: CHAIN_ID, calls: [{ to: usdc }] });
    expect(notEvm.status).toBe(400);
    expect(notEvm.body.message).toMatch(/EVM wallets/);
    // A type 4 transaction delegates the wallet: partners sign delegations with sign-authorization, not sign-transaction.
    const tx = { to: wallet.address, value: '0', chainId: CHAIN_ID, type: 4, nonce: 0, gasLimit: '50000', maxFeePerGas: '2', maxPriorityFeePerGas: '1', authorizationList: [{ address: SIMPLE_7702, chainId: CHAIN_ID, nonce: 1, r: '0x01', s: '0x02', yParity: 0 }] };
    const typeFour = await post(`/v1/wallets/${wallet.id}/sign-transaction`, { transaction: tx });
    expect(typeFour.status).toBe(400);
    expect(typeFour.body.details).toEqual([{ path: 'transaction.type', message: 'must be 0 or 2; sign an EIP-7702 delegation with sign-authorization' }]);
    expect(await traces(app, wallet.id)).toMatchObject({ signatures: 0, records: 0 });
  });

  it('denies a batch when a policy allows the approve but not the call after it: nothing signed', async () => {
    const project = await policyProject(app);
    await project.apply(guardrail('approve-only', 'EVM', [{ id: 'only-approve', effect: 'deny', actions: 'all', condition: { not: { fact: 'request.function.selector', op: 'in', value: ['0x095ea7b3'] } } }]));
    const wallet = await fundedWallet('10', project.key);
    // The dry run gives the same decision, with each call's own trace.
    const dry = await post('/v1/permissions-v2/evaluate', { walletId: wallet.id, route: 'calls', body: { chainId: CHAIN_ID, calls: [approve(pool, USDC), supply(USDC, wallet.address)] } }, {}, project.key);
    expect(dry.status, JSON.stringify(dry.body)).toBe(200);
    expect(dry.body.decision).toBe('deny');
    expect(dry.body.calls.map((c: { decision: string; request: { action: string; facts: Record<string, string> } }) => [c.decision, c.request.action, c.request.facts['request.function.selector']])).toEqual([
      ['allow', 'sign_transaction', '0x095ea7b3'],
      ['deny', 'sign_transaction', '0x617ba037'],
    ]);
    const denied = await post(`/v1/wallets/${wallet.id}/calls`, { chainId: CHAIN_ID, calls: [approve(pool, USDC), supply(USDC, wallet.address)] }, {}, project.key);
    expect(denied.status, JSON.stringify(denied.body)).toBe(403);
    expect(denied.body).toMatchObject({ code: 'POLICY_DENIED', deniedBy: [{ policyId: 'approve-only', ruleId: 'only-approve' }] });
    expect(denied.body.message).toMatch(/^Call 1 of the batch/);
    expect(await traces(app, wallet.id)).toEqual({ signatures: 0, records: 0, reservations: 0 });
    expect(await client.getCode({ address: wallet.address })).toBeUndefined();
    // The approve alone is allowed.
    const allowed = await post(`/v1/wallets/${wallet.id}/calls`, { chainId: CHAIN_ID, calls: [approve(pool, USDC)] }, {}, project.key);
    expect(allowed.status, JSON.stringify(allowed.body)).toBe(200);
  });

  it('counts the token transfers of a batch once against a spend limit, with 10 batches in parallel', async () => {
    const project = await policyProject(app);
    const wallet = await fundedWallet('100', project.key);
    // Delegated first, so that the parallel batches need no delegation nonce.
    const first = await post(`/v1/wallets/${wallet.id}/calls`, { chainId: CHAIN_ID, calls: [approve(pool, 0n)] }, {}, project.key);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    await settled(wallet.id, first.body.transactionId, project.key);
    await project.apply(
      guardrail('daily-usdc', 'EVM', [{ id: 'cap', effect: 'deny', actions: 'all', condition: { aggregate: { meter: 'spend.token', asset: usdc.toLowerCase(), window: '1d' }, op: 'gt', value: String(10n * USDC) } }]),
    );
    const a = '0x2222222222222222222222222222222222222222';
    const b = '0x3333333333333333333333333333333333333333';
    // Each batch moves 2 USDC in two transfers: 5 of the 10 fit under 10 USDC.
    const responses = await Promise.all(
      Array.from({ length: 10 }, () => post(`/v1/wallets/${wallet.id}/calls`, { chainId: CHAIN_ID, calls: [transfer(a, USDC), transfer(b, USDC)] }, {}, project.key)),
    );
    const sent = responses.filter((r) => r.status === 200);
    expect(responses.map((r) => r.status).sort()).toEqual([200, 200, 200, 200, 200, 403, 403, 403, 403, 403]);
    for (const r of responses.filter((x) => x.status === 403)) expect(r.body.deniedBy[0]).toMatchObject({ reason: 'spend-limit-exceeded' });
    // The meter holds exactly what was signed: 5 batches of 2 USDC, each transfer counted once.
    const usage = await project.get(`/v1/permissions-v2/wallets/${wallet.id}/policies/daily-usdc/usage?chainId=${CHAIN_ID}`);
    expect(usage.body.meters).toEqual([expect.objectContaining({ spent: String(10n * USDC), reserved: '0' })]);
    expect(await app.database.prisma.transactionRecord.count({ where: { walletId: wallet.id } })).toBe(1 + 5);
    // Distinct nonces after the delegation's two (a refused batch's nonce goes back to the allocator for the next request).
    const nonces = new Set(sent.map((r) => parseTransaction(r.body.signedTransaction as Hex).nonce!));
    expect(nonces.size).toBe(5);
    expect(Math.min(...nonces)).toBeGreaterThanOrEqual(2);
  });

  it('runs the same batch sponsored from a wallet with 0 ETH, the paymaster paying', async () => {
    const issued = await app.createKey();
    const created = await post('/v1/wallets', { type: 'EVM', userIdentifier: `calls-sponsored-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' }, {}, issued.apiKey);
    const wallet = created.body as { id: string; address: Address };
    expect((await post('/v1/local/faucet', { walletId: wallet.id, amount: '10', token: 'usdc' }, {}, issued.apiKey)).status).toBe(200);
    const body = { chainId: CHAIN_ID, sponsored: true, calls: [approve(pool, 4n * USDC), supply(4n * USDC, wallet.address)] };
    // Sponsorship off for the project: refused, nothing recorded.
    const off = await post(`/v1/wallets/${wallet.id}/calls`, body, {}, issued.apiKey);
    expect(off.status, JSON.stringify(off.body)).toBe(409);
    expect(off.body.code).toBe('CALLS_UNAVAILABLE');
    await app.services.sponsorship.change(await app.services.policies.operatorScope(issued.projectId, 'development'), 'enable', {});
    const reverting = await post(`/v1/wallets/${wallet.id}/calls`, { ...body, calls: [approve(pool, USDC), supply(4n * USDC, wallet.address)] }, {}, issued.apiKey);
    expect(reverting.status, JSON.stringify(reverting.body)).toBe(422);
    expect(reverting.body).toMatchObject({ code: 'CALLS_SIMULATION_REVERTED', callIndex: 1 });
    expect(await traces(app, wallet.id)).toMatchObject({ signatures: 0, records: 0 });
    // The eligibility of sponsored transfers: only calls to the chain's sponsored tokens and listed contracts (here the pool), without native value.
    const elsewhere = await post(`/v1/wallets/${wallet.id}/calls`, { ...body, calls: [approve(pool, USDC), { to: OTHER, data: '0x12345678' }] }, {}, issued.apiKey);
    expect(elsewhere.status, JSON.stringify(elsewhere.body)).toBe(409);
    expect(elsewhere.body).toMatchObject({ code: 'CALLS_UNAVAILABLE', message: expect.stringContaining(`call 1 of the batch calls ${OTHER}`) });
    const native = await post(`/v1/wallets/${wallet.id}/calls`, { ...body, calls: [{ ...approve(pool, USDC), value: '1' }] }, {}, issued.apiKey);
    expect(native.status, JSON.stringify(native.body)).toBe(409);
    expect(native.body.message).toContain('call 0 of the batch sends native value');
    expect(await traces(app, wallet.id)).toMatchObject({ signatures: 0, records: 0 });

    const paymaster = app.services.sponsorshipChains.find((c) => c.chainId === CHAIN_ID)!.paymaster;
    const deposit = () => client.readContract({ address: app.services.sponsorshipChains[0]!.entryPoint, abi: entryPoint08Abi, functionName: 'balanceOf', args: [paymaster] });
    const before = await deposit();
    const worker = startSponsoredWorker({ runner: app.services.sponsoredRunner, idleMs: 100, logger: { error: () => undefined } });
    try {
      const accepted = await post(`/v1/wallets/${wallet.id}/calls`, body, { 'Idempotency-Key': `sponsored-${wallet.id}` }, issued.apiKey);
      expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
      expect(accepted.body).toMatchObject({ intentKind: 'calls', executionMode: 'sponsored', stage: 'accepted' });
      const replay = await post(`/v1/wallets/${wallet.id}/calls`, body, { 'Idempotency-Key': `sponsored-${wallet.id}` }, issued.apiKey);
      expect(replay.body.transactionId).toBe(accepted.body.transactionId);
      const record = (await settled(wallet.id, accepted.body.transactionId, issued.apiKey)) as CallsRecord & { actualGasCost: string; executionMode: string };
      expect(record).toMatchObject({ status: 'confirmed', executionMode: 'sponsored', intentKind: 'calls' });
      expect(BigInt(record.actualGasCost)).toBeGreaterThan(0n);
      // The preVerificationGas counted from the batch's own calldata: the deposit's refund covers the relayer (within 5 %), and
      // not much more (the charge also holds the EntryPoint's 10 % penalty on the call gas the batch left unused).
      const receipt = await client.getTransactionReceipt({ hash: record.hash as Hex });
      const relayerPaid = receipt.gasUsed * receipt.effectiveGasPrice;
      expect(BigInt(record.actualGasCost) * 100n).toBeGreaterThanOrEqual(relayerPaid * 95n);
      expect(BigInt(record.actualGasCost) * 100n).toBeLessThanOrEqual(relayerPaid * 115n);
      // The worker's signature is judged call by call too: a policy refusing the supply ends the next batch unsigned.
      const scope = await app.services.policies.operatorScope(issued.projectId, 'development');
      await app.services.policies.apply(scope, guardrail('no-supply', 'EVM', [{ id: 'no-supply', effect: 'deny', actions: 'all', condition: { fact: 'request.function.selector', op: 'eq', value: '0x617ba037' } }]));
      const refused = await post(`/v1/wallets/${wallet.id}/calls`, { ...body, calls: [approve(pool, USDC), supply(USDC, wallet.address)] }, {}, issued.apiKey);
      expect(refused.status, JSON.stringify(refused.body)).toBe(202);
      expect(await settled(wallet.id, refused.body.transactionId, issued.apiKey)).toMatchObject({ status: 'failed', failureCode: 'POLICY_DENIED' });
    } finally {
      await worker.stop();
    }
    expect(await client.getBalance({ address: wallet.address })).toBe(0n);
    expect(await usdcOf(wallet.address)).toBe(6n * USDC);
    expect(await client.readContract({ address: aToken, abi: erc20Abi, functionName: 'balanceOf', args: [wallet.address] })).toBe(4n * USDC);
    expect(await deposit()).toBeLessThan(before);
  });

  it('with the simulation bypassed, a reverting batch lands reverted and its first call leaves no trace', async () => {
    const unsimulated = await startTestApp(kind, { chains: devnets, calls: { skipSimulation: true } });
    try {
      const otherKey = (await unsimulated.createKey()).apiKey;
      const wallet = await fundedWallet('10', otherKey, unsimulated);
      const body = { chainId: CHAIN_ID, calls: [approve(pool, USDC), supply(5n * USDC, wallet.address)], gasLimit: '400000' };
      const sent = await post(`/v1/wallets/${wallet.id}/calls`, body, {}, otherKey, unsimulated);
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const receipt = await client.waitForTransactionReceipt({ hash: sent.body.txHash });
      expect(receipt.status).toBe('reverted');
      const worker = startMonitorWorker({ monitor: unsimulated.services.monitor, logger: silent, idleMs: 100 });
      try {
        expect((await settled(wallet.id, sent.body.transactionId, otherKey, unsimulated)).status).toBe('reverted');
      } finally {
        await worker.stop();
      }
      expect(await client.readContract({ address: usdc, abi: erc20Abi, functionName: 'allowance', args: [wallet.address, pool] })).toBe(0n);
      expect(await usdcOf(wallet.address)).toBe(10n * USDC);
    } finally {
      await unsimulated.close();
    }
  });
});
