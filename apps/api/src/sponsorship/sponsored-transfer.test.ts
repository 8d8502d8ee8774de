import { ENTRY_POINT_V08_ADDRESS, SIMPLE_7702_ACCOUNT_ADDRESS } from '@wallet/chains/sponsorship';
import { testDatabaseKinds } from '@wallet/db';
import { createPublicClient, http, parseAbi, type Address, type PublicClient } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { approvalsProject, decide, tokenReviewPolicy } from '../testing/approval-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { guardrail, policyProject } from '../testing/policy-fixtures.ts';
import { startSponsoredWorker } from '../workers/sponsored-worker.ts';
import type { PollLoop } from '../workers/poll-loop.ts';

const CHAIN_ID = 84532;
const USDC = 1_000_000n;
const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)']);

interface Record_ {
  transactionId: string;
  status: string;
  stage?: string | null;
  executionMode: string;
  userOperationHash?: string | null;
  actualGasCost?: string | null;
  hash: string | null;
  reviewId?: string | null;
  monitoring?: { winningHash: string | null };
  autoRetry?: { enabled: boolean; maxFeePerGas: string | null; attempts: { hash: string | null; userOperationHash?: string; maxFeePerGas?: string; sentAt: string; outcome: string }[]; reason?: string };
}

describe.each(testDatabaseKinds)('sponsored ERC-20 transfers over the relayer (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let worker: PollLoop | undefined;
  let key: { apiKey: string; projectId: string };
  let usdc: Address;
  let client: PublicClient;
  let paymaster: Address;

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) => app.request('POST', path, { key: key.apiKey, body, headers });
  const get = (path: string) => app.request('GET', path, { key: key.apiKey });
  const usdcOf = (who: Address) => client.readContract({ address: usdc, abi: ERC20, functionName: 'balanceOf', args: [who] });
  const entryPointNonce = (who: Address) => client.readContract({ address: ENTRY_POINT_V08_ADDRESS, abi: entryPoint08Abi, functionName: 'getNonce', args: [who, 0n] });
  const deposit = () => client.readContract({ address: ENTRY_POINT_V08_ADDRESS, abi: entryPoint08Abi, functionName: 'balanceOf', args: [paymaster] });
  const setSponsorship = async (verb: 'enable' | 'disable' | 'pause' | 'resume' | 'limits', limits: Record<string, string> = {}) =>
    app.services.sponsorship.change(await app.services.policies.operatorScope(key.projectId, 'development'), verb, limits);

  async function usdcWallet(amount: string): Promise<{ id: string; address: Address }> {
    const created = await post('/v1/wallets', { type: 'EVM', userIdentifier: `sponsored-${Math.random()}@example.com`, userIdentifierType: 'EMAIL' });
    expect(created.status).toBe(201);
    const wallet = created.body as { id: string; address: Address };
    expect((await post('/v1/local/faucet', { walletId: wallet.id, amount, token: 'usdc' })).status).toBe(200);
    return wallet;
  }

  async function settled(walletId: string, transactionId: string, read: typeof get = get, timeoutMs = 40_000): Promise<Record_> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const record = (await read(`/v1/wallets/${walletId}/transactions/${transactionId}`)).body as Record_;
      if (['confirmed', 'reverted', 'failed'].includes(record.status) || record.stage === 'requires_action') return record;
      if (Date.now() > end) throw new Error(`record ${transactionId} still ${record.status}/${record.stage}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  beforeAll(async () => {
    devnets = await startLocalDevnets({ sponsorship: true });
    app = await startTestApp(kind, { chains: devnets });
    key = await app.createKey();
    client = createPublicClient({ transport: http(devnets.evmRpcUrl) });
    const chains = (await get('/v1/chains')).body as { chains: { type: string; usdc: { address: Address } | null }[] };
    usdc = chains.chains.find((c) => c.type === 'EVM')!.usdc!.address;
    paymaster = app.services.sponsorshipChains.find((c) => c.chainId === CHAIN_ID)!.paymaster;
    worker = startSponsoredWorker({ runner: app.services.sponsoredRunner, idleMs: 100, logger: { error: () => undefined } });
  }, 60_000);
  afterAll(async () => {
    await worker?.stop();
    await app?.close();
    await devnets?.stop();
  });

  it('a wallet with 0 ETH sends USDC twice: 202 with the record, confirmed by its UserOperationEvent, the paymaster paying', async () => {
    await setSponsorship('enable');
    const wallet = await usdcWallet('100');
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const body = { to: recipient, value: (7n * USDC).toString(), chainId: CHAIN_ID, tokenAddress: usdc };
    const depositBefore = await deposit();

    const accepted = await post(`/v1/wallets/${wallet.id}/transfer`, body, { 'Idempotency-Key': `sponsored-first-${kind}` });
    expect(accepted.status).toBe(202);
    const first = accepted.body as Record_;
    expect(first).toMatchObject({ executionMode: 'sponsored', stage: 'accepted', status: 'pending', autoRetry: { enabled: true, maxFeePerGas: null, attempts: [] } });
    expect(accepted.headers.get('x-transaction-id')).toBe(first.transactionId);
    expect(first).not.toHaveProperty('signedTransaction');
    // A replay with the key only reads.
    const replay = await post(`/v1/wallets/${wallet.id}/transfer`, body, { 'Idempotency-Key': `sponsored-first-${kind}` });
    expect(replay.status).toBe(202);
    expect((replay.body as Record_).transactionId).toBe(first.transactionId);

    const done = await settled(wallet.id, first.transactionId);
    expect(done).toMatchObject({ status: 'confirmed', stage: 'included', executionMode: 'sponsored' });
    expect(done.userOperationHash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done.hash).toMatch(/^0x[0-9a-f]{64}$/);
    expect(done.hash).not.toBe(done.userOperationHash);
    expect(done.monitoring?.winningHash).toBe(done.hash);
    expect(BigInt(done.actualGasCost!)).toBeGreaterThan(0n);
    // One relayer transaction, which won; its fees are the ones it was signed with.
    expect(done.autoRetry!.attempts).toEqual([{ hash: done.hash, userOperationHash: done.userOperationHash, maxFeePerGas: expect.stringMatching(/^\d+$/), maxPriorityFeePerGas: expect.stringMatching(/^\d+$/), sentAt: expect.any(String), outcome: 'included' }]);
    expect(done.autoRetry!.reason).toBe('first submission of the signed operation');
    // The chain's own records: the USDC moved, the wallet still holds no ETH, it is delegated, and the deposit paid exactly the cost.
    expect(await usdcOf(recipient)).toBe(7n * USDC);
    expect(await client.getBalance({ address: wallet.address })).toBe(0n);
    expect((await client.getCode({ address: wallet.address }))?.toLowerCase()).toBe(`0xef0100${SIMPLE_7702_ACCOUNT_ADDRESS.slice(2).toLowerCase()}`);
    expect(await entryPointNonce(wallet.address)).toBe(1n);
    expect(depositBefore - (await deposit())).toBe(BigInt(done.actualGasCost!));
    const receipt = await client.getTransactionReceipt({ hash: done.hash as `0x${string}` });
    expect(receipt.type).toBe('eip7702');
    // The deposit's refund covers what the relayer paid for the bundle transaction (within 5 %): the budget counts the real cost.
    const relayerPaid = receipt.gasUsed * receipt.effectiveGasPrice;
    expect(BigInt(done.actualGasCost!) * 100n).toBeGreaterThanOrEqual(relayerPaid * 95n);
    expect(BigInt(done.actualGasCost!) * 100n).toBeLessThanOrEqual(relayerPaid * 110n);
    expect(receipt.to?.toLowerCase()).toBe(ENTRY_POINT_V08_ADDRESS.toLowerCase());

    // Events rule 6: the terminal event follows the chain's evidence, naming the bundle transaction.
    const events = await app.database.prisma.event.findMany({ where: { transactionId: first.transactionId } });
    const confirmedEvent = events.find((e) => e.type === 'rest.transaction.confirmed');
    expect(confirmedEvent?.data).toMatchObject({ transactionId: first.transactionId, hash: done.hash, intentKind: 'transfer' });
    expect(events.map((e) => e.type)).not.toContain('rest.transaction.failed');

    // A later transfer carries no authorization (the wallet is delegated already).
    const second = (await post(`/v1/wallets/${wallet.id}/transfer`, { ...body, value: (3n * USDC).toString() })).body as Record_;
    const secondDone = await settled(wallet.id, second.transactionId);
    expect(secondDone.status).toBe('confirmed');
    expect(await usdcOf(recipient)).toBe(10n * USDC);
    expect(await entryPointNonce(wallet.address)).toBe(2n);
    const secondReceipt = await client.getTransactionReceipt({ hash: secondDone.hash as `0x${string}` });
    expect(secondReceipt.type).toBe('eip1559');
    const secondPaid = secondReceipt.gasUsed * secondReceipt.effectiveGasPrice;
    expect(BigInt(secondDone.actualGasCost!) * 100n).toBeGreaterThanOrEqual(secondPaid * 95n);
    expect(BigInt(secondDone.actualGasCost!) * 100n).toBeLessThanOrEqual(secondPaid * 110n);
    // The list shows the execution mode; sponsored-only fields stay in the single lookup.
    const list = (await get(`/v1/wallets/${wallet.id}/transactions`)).body as { data: Record_[] };
    expect(list.data.map((r) => r.executionMode)).toEqual(['sponsored', 'sponsored']);
    expect(list.data[0]).not.toHaveProperty('userOperationHash');
  }, 90_000);

  it('refuses before any record: a transfer that would revert, the gas cap, the budget, a paused admission; native and overridden requests take the legacy path', async () => {
    await setSponsorship('enable');
    const wallet = await usdcWallet('5');
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const body = { to: recipient, value: USDC.toString(), chainId: CHAIN_ID, tokenAddress: usdc };
    const records = async () => ((await get(`/v1/wallets/${wallet.id}/transactions`)).body as { data: unknown[] }).data.length;
    const depositBefore = await deposit();

    const reverting = await post(`/v1/wallets/${wallet.id}/transfer`, { ...body, value: (50n * USDC).toString() });
    expect(reverting.status).toBe(400);
    expect(reverting.body).toMatchObject({ code: 'EXECUTION_FAILED' });

    await setSponsorship('limits', { gasCapWei: '1' });
    const capped = await post(`/v1/wallets/${wallet.id}/transfer`, body);
    expect(capped.status).toBe(422);
    expect(capped.body).toMatchObject({ code: 'SPONSORSHIP_GAS_CAP_EXCEEDED', gasCapWei: '1' });

    await setSponsorship('limits', { gasCapWei: '1000000000000000', dailyBudgetWei: '1' });
    const overBudget = await post(`/v1/wallets/${wallet.id}/transfer`, body);
    expect(overBudget.status).toBe(422);
    expect(overBudget.body).toMatchObject({ code: 'SPONSORSHIP_BUDGET_EXCEEDED', dailyBudgetWei: '1' });

    await setSponsorship('limits', { dailyBudgetWei: '50000000000000000' });
    await setSponsorship('pause');
    const paused = await post(`/v1/wallets/${wallet.id}/transfer`, body);
    expect(paused.status).toBe(409);
    expect(paused.body).toMatchObject({ code: 'SPONSORSHIP_PAUSED' });
    await setSponsorship('resume');

    expect(await records()).toBe(0);
    expect(await deposit()).toBe(depositBefore);

    // Native value, a gas override, and sponsorship switched off: the wallet's own transaction (it has no ETH, so the node refuses it).
    for (const legacy of [
      { to: recipient, value: '1', chainId: CHAIN_ID },
      { ...body, gasLimit: '100000' },
    ]) {
      const answer = await post(`/v1/wallets/${wallet.id}/transfer`, legacy);
      expect([200, 400]).toContain(answer.status);
      expect(answer.status === 200 ? answer.body : answer.body).not.toMatchObject({ executionMode: 'sponsored' });
    }
    const all = ((await get(`/v1/wallets/${wallet.id}/transactions`)).body as { data: Record_[] }).data;
    expect(all.every((r) => r.executionMode === 'legacy')).toBe(true);
    await setSponsorship('disable');
    const off = await post(`/v1/wallets/${wallet.id}/transfer`, body);
    expect(off.status).not.toBe(202);
    await setSponsorship('enable');
  }, 60_000);

  it('resume: 404 for a legacy record and for another partner; a record without a pending review answers unchanged', async () => {
    await setSponsorship('enable');
    const wallet = await usdcWallet('10');
    const sent = (await post(`/v1/wallets/${wallet.id}/transfer`, { to: privateKeyToAccount(generatePrivateKey()).address, value: USDC.toString(), chainId: CHAIN_ID, tokenAddress: usdc })).body as Record_;
    const done = await settled(wallet.id, sent.transactionId);
    expect(done.status).toBe('confirmed');
    const unchanged = await post(`/v1/wallets/${wallet.id}/transactions/${sent.transactionId}/resume`, { reviewId: 'none' });
    expect(unchanged.status).toBe(202);
    expect(unchanged.body).toEqual((await get(`/v1/wallets/${wallet.id}/transactions/${sent.transactionId}`)).body);

    // A legacy record (a native transfer from a wallet holding ETH) cannot be resumed.
    expect((await post('/v1/local/faucet', { walletId: wallet.id, amount: '0.01', token: 'native' })).status).toBe(200);
    const native = await post(`/v1/wallets/${wallet.id}/transfer`, { to: privateKeyToAccount(generatePrivateKey()).address, value: '1', chainId: CHAIN_ID });
    expect(native.status).toBe(200);
    const legacyId = (native.body as { transactionId: string }).transactionId;
    expect(((await get(`/v1/wallets/${wallet.id}/transactions/${legacyId}`)).body as Record_).executionMode).toBe('legacy');
    const legacyResume = await post(`/v1/wallets/${wallet.id}/transactions/${legacyId}/resume`, { reviewId: 'none' });
    expect(legacyResume.status).toBe(404);
    const missing = await post(`/v1/wallets/${wallet.id}/transactions/${crypto.randomUUID()}/resume`, { reviewId: 'none' });
    expect(missing.status).toBe(404);
    expect(legacyResume.body).toMatchObject({ code: 'NOT_FOUND', message: (missing.body as { message: string }).message });
    // Another partner: the wallet itself is a missing one.
    const other = await app.createKey();
    const foreign = await app.request('POST', `/v1/wallets/${wallet.id}/transactions/${sent.transactionId}/resume`, { key: other.apiKey, body: { reviewId: 'none' } });
    const noWallet = await app.request('POST', `/v1/wallets/${crypto.randomUUID()}/transactions/${sent.transactionId}/resume`, { key: other.apiKey, body: { reviewId: 'none' } });
    expect(foreign.status).toBe(404);
    expect(foreign.body).toMatchObject({ code: 'NOT_FOUND', message: (noWallet.body as { message: string }).message });
    expect((await app.request('GET', `/v1/wallets/${wallet.id}/transactions/${sent.transactionId}`, { key: other.apiKey })).status).toBe(404);
    expect((await post(`/v1/wallets/${wallet.id}/transactions/${sent.transactionId}/resume`, {})).status).toBe(400);
  }, 60_000);

  it('a policy review pauses the operation at requires_action; a finance user approves with the users CLI; resume confirms it', async () => {
    const reviewPolicy = tokenReviewPolicy((5n * USDC).toString());
    const p = await approvalsProject(app, { policy: reviewPolicy });
    const finance = await p.member(['finance']);
    await app.services.sponsorship.change(await app.services.policies.operatorScope(p.projectId, p.environment), 'enable');
    expect((await p.post('/v1/local/faucet', { walletId: p.wallet.id, amount: '20', token: 'usdc' })).status).toBe(200);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const accepted = await p.post(`/v1/wallets/${p.wallet.id}/transfer`, { to: recipient, value: (6n * USDC).toString(), chainId: CHAIN_ID, tokenAddress: usdc }, { 'Idempotency-Key': `review-${kind}` });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const id = (accepted.body as Record_).transactionId;
    const lookup = async () => (await p.get(`/v1/wallets/${p.wallet.id}/transactions/${id}`)).body as Record_;
    let paused = await lookup();
    for (let i = 0; i < 80 && paused.stage !== 'requires_action'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      paused = await lookup();
    }
    expect(paused).toMatchObject({ status: 'pending', stage: 'requires_action', reviewId: expect.any(String), userOperationHash: null });
    // The case shows the transfer's facts; nothing was sent meanwhile.
    const view = (await p.getCase(paused.reviewId!)).body;
    expect(view).toMatchObject({ status: 'pending', request: { action: 'wallet.sign.transfer', transfer: { value: (6n * USDC).toString() } } });
    expect(view.request.transfer.tokenAddress.toLowerCase()).toBe(usdc.toLowerCase());
    expect(await usdcOf(recipient)).toBe(0n);
    // A resume before the approval leaves it waiting for the same review; a wrong reviewId is a conflict.
    expect((await p.post(`/v1/wallets/${p.wallet.id}/transactions/${id}/resume`, { reviewId: 'another' })).status).toBe(409);
    // The replay of the transfer only reads: it answers the original 202 (the lookup shows the stage).
    const replay = await p.post(`/v1/wallets/${p.wallet.id}/transfer`, { to: recipient, value: (6n * USDC).toString(), chainId: CHAIN_ID, tokenAddress: usdc }, { 'Idempotency-Key': `review-${kind}` });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual(accepted.body);

    expect((await decide(app, 'approve', paused.reviewId!, finance)).body.status).toBe('completed');
    const resumed = await p.post(`/v1/wallets/${p.wallet.id}/transactions/${id}/resume`, { reviewId: paused.reviewId });
    expect(resumed.status).toBe(202);
    expect(resumed.body).toMatchObject({ transactionId: id, stage: 'accepted', reviewId: null });
    const done = await settled(p.wallet.id, id, (path) => p.get(path));
    expect(done).toMatchObject({ status: 'confirmed', stage: 'included' });
    expect(await usdcOf(recipient)).toBe(6n * USDC);
    expect((await p.getCase(paused.reviewId!)).body.status).toBe('consumed');
  }, 90_000);

  it("policies judge the wallet's signature as the ERC-20 transfer it executes: the amount counts once in the token spend meter, and a denial fails the record with nothing sent", async () => {
    const p = await policyProject(app);
    await p.apply(
      guardrail('usdc-daily', 'EVM', [{ id: 'daily', effect: 'deny', actions: ['transfer'], condition: { aggregate: { meter: 'spend.token', asset: usdc, window: '1d' }, op: 'gt', value: (8n * USDC).toString() } }], {
        chainId: [String(CHAIN_ID)],
      }),
    );
    await app.services.sponsorship.change(await app.services.policies.operatorScope(p.projectId, p.environment), 'enable');
    const wallet = (await p.post('/v1/wallets', { type: 'EVM', userIdentifier: `meter-${kind}@example.com`, userIdentifierType: 'EMAIL' })).body as { id: string; address: Address };
    expect((await p.post('/v1/local/faucet', { walletId: wallet.id, amount: '20', token: 'usdc' })).status).toBe(200);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    const send = async () => (await p.post(`/v1/wallets/${wallet.id}/transfer`, { to: recipient, value: (5n * USDC).toString(), chainId: CHAIN_ID, tokenAddress: usdc })).body as Record_;
    const usage = async () => (await p.get(`/v1/permissions-v2/wallets/${wallet.id}/policies/usdc-daily/usage?chainId=${CHAIN_ID}`)).body as { meters: { spent: string }[] };

    const first = await send();
    expect((await settled(wallet.id, first.transactionId, (path) => p.get(path))).status).toBe('confirmed');
    expect((await usage()).meters).toEqual([expect.objectContaining({ ruleId: 'daily', spent: (5n * USDC).toString() })]);
    const second = await send();
    expect(second.executionMode).toBe('sponsored');
    const denied = await settled(wallet.id, second.transactionId, (path) => p.get(path));
    expect(denied).toMatchObject({ status: 'failed', failureStage: 'mpc_sign', failureCode: 'POLICY_DENIED', userOperationHash: null, hash: null });
    expect((await usage()).meters).toEqual([expect.objectContaining({ spent: (5n * USDC).toString() })]);
    expect(await usdcOf(recipient)).toBe(5n * USDC);
    expect(await entryPointNonce(wallet.address)).toBe(1n);
  }, 90_000);

  it('50 parallel transfers reserve today\'s budget atomically: the accepted ones fit, the rest are refused', async () => {
    await worker?.stop();
    worker = undefined;
    const other = await app.createKey();
    const scope = await app.services.policies.operatorScope(other.projectId, 'development');
    // About four operations' maximum cost at the devnet's fees.
    await app.services.sponsorship.change(scope, 'enable', { dailyBudgetWei: '2000000000000000' });
    const created = await app.request('POST', '/v1/wallets', { key: other.apiKey, body: { type: 'EVM', userIdentifier: `budget-${kind}@example.com`, userIdentifierType: 'EMAIL' } });
    const walletId = (created.body as { id: string }).id;
    await app.request('POST', '/v1/local/faucet', { key: other.apiKey, body: { walletId, amount: '100', token: 'usdc' } });
    const body = { to: privateKeyToAccount(generatePrivateKey()).address, value: '1000', chainId: CHAIN_ID, tokenAddress: usdc };
    const answers = await Promise.all(Array.from({ length: 50 }, () => app.request('POST', `/v1/wallets/${walletId}/transfer`, { key: other.apiKey, body })));
    const accepted = answers.filter((a) => a.status === 202).length;
    const refused = answers.filter((a) => a.status === 422 && (a.body as { code: string }).code === 'SPONSORSHIP_BUDGET_EXCEEDED').length;
    expect(accepted + refused).toBe(50);
    expect(accepted).toBeGreaterThan(0);
    expect(refused).toBeGreaterThan(0);
    const today = await app.services.sponsorship.get({ projectId: other.projectId, environment: 'development' });
    expect(BigInt(today.budgetToday.usedWei)).toBeLessThanOrEqual(2_000_000_000_000_000n);
    const listed = (await app.request('GET', `/v1/wallets/${walletId}/transactions?limit=100`, { key: other.apiKey })).body as { data: unknown[] };
    expect(listed.data).toHaveLength(accepted);
  }, 60_000);
});
