import { ENTRY_POINT_V08_ADDRESS } from '@wallet/chains/sponsorship';
import { testDatabaseKinds } from '@wallet/db';
import { createPublicClient, http, parseAbi, parseAbiItem, parseTransaction, type Address, type Hex, type PublicClient } from 'viem';
import { entryPoint08Abi } from 'viem/account-abstraction';
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { movableClock, rpc, ticker } from '../testing/monitor-fixtures.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { guardrail, policyProject } from '../testing/policy-fixtures.ts';

const CHAIN_ID = 84532;
const USDC = 1_000_000n;
const GAS_CAP_WEI = '10000000000000000';
const ERC20 = parseAbi(['function balanceOf(address) view returns (uint256)']);
const USER_OPERATION_EVENT = parseAbiItem(
  'event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)',
);

/** A stored operation's maximum cost: every gas limit × maxFeePerGas. */
function maxCostOf(userOperation: string): bigint {
  const op = JSON.parse(userOperation) as Record<string, string>;
  const gas = ['callGasLimit', 'verificationGasLimit', 'preVerificationGas', 'paymasterVerificationGasLimit', 'paymasterPostOpGasLimit'].reduce((sum, k) => sum + BigInt(op[k]!), 0n);
  return gas * BigInt(op.maxFeePerGas!);
}

interface Attempt {
  hash: string | null;
  userOperationHash?: string;
  maxFeePerGas?: string;
  maxPriorityFeePerGas?: string;
  sentAt: string;
  outcome: string;
}
interface Record_ {
  transactionId: string;
  status: string;
  stage?: string | null;
  userOperationHash?: string | null;
  actualGasCost?: string | null;
  hash: string | null;
  monitoring?: { winningHash: string | null };
  autoRetry: { enabled: boolean; maxFeePerGas: string | null; attempts: Attempt[]; reason?: string };
}

/**
 * Managed retry of sponsored operations (relayer submission) on anvil with blocks mined by hand and
 * the base fee raised by hand: a replacement user operation with the same EntryPoint nonce, and the
 * gas cap that stops it.
 */
describe.each(testDatabaseKinds)('managed retry of sponsored operations over the relayer (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let key: { apiKey: string; projectId: string };
  let usdc: Address;
  let client: PublicClient;
  let blocks: ReturnType<typeof ticker>;
  const clock = movableClock();

  const post = (path: string, body: unknown) => app.request('POST', path, { key: key.apiKey, body });
  const record = async (walletId: string, id: string) => (await app.request('GET', `/v1/wallets/${walletId}/transactions/${id}`, { key: key.apiKey })).body as Record_;
  const usdcOf = (who: Address) => client.readContract({ address: usdc, abi: ERC20, functionName: 'balanceOf', args: [who] });
  const entryPointNonce = (who: Address) => client.readContract({ address: ENTRY_POINT_V08_ADDRESS, abi: entryPoint08Abi, functionName: 'getNonce', args: [who, 0n] });
  const mine = async (n = 1) => {
    for (let i = 0; i < n; i++) await rpc(devnets.evmRpcUrl, 'evm_mine');
  };
  const setSponsorship = async (verb: 'enable' | 'limits', limits: Record<string, string> = {}) =>
    app.services.sponsorship.change(await app.services.policies.operatorScope(key.projectId, 'development'), verb, limits);

  /** Moves the clock to when the record is due, then runs one pass of the sponsored worker. */
  async function runDue(id: string) {
    const [row] = await app.database.query<{ next_check_at: Date | null }>('SELECT next_check_at FROM transaction_records WHERE id = $1', [id]);
    if (row?.next_check_at) clock.advanceTo(new Date(row.next_check_at.getTime() + 1));
    await app.services.sponsoredRunner.runOnce();
  }

  async function resolved(walletId: string, id: string): Promise<Record_> {
    for (let i = 0; i < 120; i++) {
      const r = await record(walletId, id);
      if (['confirmed', 'reverted', 'failed'].includes(r.status)) return r;
      await mine();
      await runDue(id);
    }
    throw new Error(`record ${id} did not resolve`);
  }

  /** A sponsored transfer from a new wallet, signed and submitted while the chain stands still (blocks paused). */
  async function stuckTransfer(amount: bigint) {
    const created = await post('/v1/wallets', { type: 'EVM', userIdentifier: `retry-${Math.random()}@example.com`, userIdentifierType: 'EMAIL' });
    const wallet = created.body as { id: string; address: Address };
    expect((await post('/v1/local/faucet', { walletId: wallet.id, amount: '100', token: 'usdc' })).status).toBe(200);
    const recipient = privateKeyToAccount(generatePrivateKey()).address;
    await blocks.pause();
    const accepted = await post(`/v1/wallets/${wallet.id}/transfer`, { to: recipient, value: amount.toString(), chainId: CHAIN_ID, tokenAddress: usdc });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    const id = (accepted.body as Record_).transactionId;
    await runDue(id);
    const submitted = await record(wallet.id, id);
    expect(submitted).toMatchObject({ status: 'submitted', stage: 'submitted' });
    expect(submitted.autoRetry.attempts).toHaveLength(1);
    const [first] = submitted.autoRetry.attempts;
    expect(first).toMatchObject({ hash: submitted.hash, userOperationHash: submitted.userOperationHash, outcome: 'pending' });
    const [op] = await app.database.query<{ user_operation: string }>('SELECT user_operation FROM transaction_records WHERE id = $1', [id]);
    const operation = JSON.parse(op!.user_operation) as Record<string, string>;
    // The next blocks' base fee three times what the bundle transaction and the operation offer: it cannot be included.
    const offered = BigInt(first!.maxFeePerGas!) > BigInt(operation.maxFeePerGas!) ? BigInt(first!.maxFeePerGas!) : BigInt(operation.maxFeePerGas!);
    const priceOut = async () => {
      await rpc(devnets.evmRpcUrl, 'anvil_setNextBlockBaseFeePerGas', [`0x${(offered * 3n).toString(16)}`]);
      await mine(3);
    };
    return { wallet, recipient, id, submitted, maxCostWei: maxCostOf(op!.user_operation), priceOut };
  }

  beforeAll(async () => {
    devnets = await startLocalDevnets({ sponsorship: true });
    app = await startTestApp(kind, { chains: devnets, clock });
    key = await policyProject(app);
    client = createPublicClient({ transport: http(devnets.evmRpcUrl) });
    usdc = devnets.directory.list().find((c) => c.type === 'EVM')!.usdc!.address as Address;
    // Blocks from a ticker the tests pause, to step the chain by hand.
    await rpc(devnets.evmRpcUrl, 'evm_setIntervalMining', [0]);
    blocks = ticker(150, () => rpc(devnets.evmRpcUrl, 'evm_mine'));
    // A gas cap that holds a replacement at three times today's fees (the second test lowers it).
    await setSponsorship('enable', { gasCapWei: GAS_CAP_WEI });
    // A replacement charged to the spend meter again would be denied (7 + 7 > 10 USDC).
    await app.services.policies.apply(
      await app.services.policies.operatorScope(key.projectId, 'development'),
      guardrail('usdc-daily', 'EVM', [{ id: 'daily', effect: 'deny', actions: ['transfer'], condition: { aggregate: { meter: 'spend.token', asset: usdc, window: '1d' }, op: 'gt', value: (10n * USDC).toString() } }], {
        chainId: [String(CHAIN_ID)],
      }),
    );
  }, 90_000);
  afterAll(async () => {
    blocks?.stop();
    await app?.close();
    await devnets?.stop();
  });

  it('replaces an operation stuck under the base fee with one of the same EntryPoint nonce; the replacement lands, once', async () => {
    const t = await stuckTransfer(7n * USDC);
    const first = t.submitted.autoRetry.attempts[0]!;
    let waiting: Record_;
    try {
      await t.priceOut();
      await runDue(t.id);
      waiting = await record(t.wallet.id, t.id);
      // As after a crash between storing the replacement and sending it: the node never got it. The
      // next look sends the stored bytes (the same transaction), never a third operation.
      const stored = waiting.autoRetry.attempts[1]!.hash as Hex;
      await rpc(devnets.evmRpcUrl, 'anvil_dropTransaction', [stored]);
      expect(await devnets.gateways.evm(CHAIN_ID)!.getTransactionsKnown([stored])).toEqual([false]);
      await runDue(t.id);
      expect(await devnets.gateways.evm(CHAIN_ID)!.getTransactionsKnown([stored])).toEqual([true]);
      const resent = await record(t.wallet.id, t.id);
      expect(resent.autoRetry.attempts.map((a) => [a.hash, a.userOperationHash])).toEqual(waiting.autoRetry.attempts.map((a) => [a.hash, a.userOperationHash]));
    } finally {
      blocks.resume();
    }
    expect(waiting).toMatchObject({ status: 'submitted', stage: 'submitted', hash: t.submitted.hash });
    expect(waiting.autoRetry.reason).toMatch(/^replacement operation 2: operation 1 offered maxFeePerGas \d+, below the base fee \d+, for \d+ blocks$/);
    const [, second] = waiting.autoRetry.attempts;
    expect(waiting.autoRetry.attempts).toHaveLength(2);
    expect(second).toMatchObject({ outcome: 'pending', userOperationHash: waiting.userOperationHash });
    expect(second!.userOperationHash).not.toBe(first.userOperationHash);
    expect(BigInt(second!.maxFeePerGas!)).toBeGreaterThanOrEqual((BigInt(first.maxFeePerGas!) * 110n) / 100n);
    expect(BigInt(second!.maxPriorityFeePerGas!)).toBeGreaterThanOrEqual((BigInt(first.maxPriorityFeePerGas!) * 110n) / 100n);
    // The replacement bundle transaction takes the stuck one's relayer nonce: only one of the two can be mined.
    const [stored] = await app.database.query<{ signed_transaction: Hex }>('SELECT signed_transaction FROM transaction_records WHERE id = $1', [t.id]);
    const replacementTx = await client.getTransaction({ hash: second!.hash as Hex });
    expect(replacementTx.hash).toBe(second!.hash);
    expect(parseTransaction(stored!.signed_transaction).nonce).toBe(replacementTx.nonce);
    // The budget reservation was raised to the replacement's maximum cost before it was sent.
    const [replacement] = await app.database.query<{ user_operation: string }>('SELECT user_operation FROM transaction_records WHERE id = $1', [t.id]);
    const [raised] = await app.database.query<{ amount: string }>('SELECT amount::text AS amount FROM sponsorship_budget_reservations WHERE operation_id = $1', [t.id]);
    expect(BigInt(raised!.amount)).toBe(maxCostOf(replacement!.user_operation));
    expect(BigInt(raised!.amount)).toBeGreaterThan(t.maxCostWei);
    const firstTx = await client.getTransaction({ hash: first.hash as Hex }).catch(() => null);
    expect(firstTx === null || firstTx.nonce === replacementTx.nonce).toBe(true);

    const done = await resolved(t.wallet.id, t.id);
    expect(done).toMatchObject({ status: 'confirmed', stage: 'included', hash: first.hash, userOperationHash: second!.userOperationHash, monitoring: { winningHash: second!.hash } });
    expect(done.autoRetry.attempts.map((a) => [a.hash, a.userOperationHash, a.outcome])).toEqual([
      [first.hash, first.userOperationHash, 'lost'],
      [second!.hash, second!.userOperationHash, 'included'],
    ]);
    // The chain: one UserOperationEvent for the wallet (the replacement's), the EntryPoint nonce moved by one, the recipient paid once.
    const logs = await client.getLogs({ address: ENTRY_POINT_V08_ADDRESS, event: USER_OPERATION_EVENT, args: { sender: t.wallet.address }, fromBlock: 0n });
    expect(logs.map((l) => l.args.userOpHash)).toEqual([second!.userOperationHash]);
    expect(await entryPointNonce(t.wallet.address)).toBe(1n);
    expect(await usdcOf(t.recipient)).toBe(7n * USDC);
    // The budget is settled with the winner's actualGasCost.
    expect(done.actualGasCost).toBe(logs[0]!.args.actualGasCost!.toString());
    const [reservation] = await app.database.query<{ status: string; amount: string }>(
      'SELECT status, amount::text AS amount FROM sponsorship_budget_reservations WHERE operation_id = $1',
      [t.id],
    );
    expect(reservation).toEqual({ status: 'settled', amount: done.actualGasCost });
    // The wallet signed both operations through the pipeline (audited), and the spend meter counted the transfer once.
    const signatures = await app.database.query<{ n: string }>(`SELECT count(*)::text AS n FROM audit_log WHERE wallet_id = $1 AND action = 'wallet.sign.transfer'`, [t.wallet.id]);
    expect(signatures[0]!.n).toBe('2');
    const usage = (await app.request('GET', `/v1/permissions-v2/wallets/${t.wallet.id}/policies/usdc-daily/usage?chainId=${CHAIN_ID}`, { key: key.apiKey })).body as { meters: { spent: string }[] };
    expect(usage.meters).toEqual([expect.objectContaining({ spent: (7n * USDC).toString() })]);
    const terminal = await app.database.query<{ type: string }>(`SELECT type FROM events WHERE data->>'transactionId' = $1 AND type LIKE 'rest.transaction.%'`, [t.id]);
    expect(terminal.map((e) => e.type)).toEqual(['rest.transaction.confirmed']);
  }, 120_000);

  it('the gas cap stops a replacement: the record stays submitted with the reason, and the operation lands once fees fall', async () => {
    const t = await stuckTransfer(2n * USDC);
    try {
      // Exactly the first operation's maximum cost: a replacement with higher fees would pass it.
      await setSponsorship('limits', { gasCapWei: t.maxCostWei.toString() });
      await t.priceOut();
      await runDue(t.id);
      const waiting = await record(t.wallet.id, t.id);
      expect(waiting).toMatchObject({ status: 'submitted', stage: 'submitted', hash: t.submitted.hash, userOperationHash: t.submitted.userOperationHash });
      expect(waiting.autoRetry.attempts).toHaveLength(1);
      expect(waiting.autoRetry.reason).toMatch(new RegExp(`^gas cap reached: .* above the gas cap of ${t.maxCostWei} wei`));
    } finally {
      blocks.resume();
    }
    // The base fee falls over the next blocks; the first operation is included after all.
    const done = await resolved(t.wallet.id, t.id);
    await setSponsorship('limits', { gasCapWei: GAS_CAP_WEI });
    expect(done).toMatchObject({ status: 'confirmed', hash: t.submitted.hash, userOperationHash: t.submitted.userOperationHash, monitoring: { winningHash: t.submitted.hash } });
    expect(await entryPointNonce(t.wallet.address)).toBe(1n);
    expect(await usdcOf(t.recipient)).toBe(2n * USDC);
  }, 120_000);
});
