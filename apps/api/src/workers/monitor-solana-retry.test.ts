import { describe, expect, it } from 'vitest';
import { consolePartner, graphql } from '../testing/console-fixtures.ts';
import { helpers, MIN, monitorDevnets, rpc, testDatabaseKinds } from '../testing/monitor-fixtures.ts';
import { guardrail, policyProject } from '../testing/policy-fixtures.ts';

/**
 * Managed automatic retry of Solana transfers (rebuilds), on the local Solana devnet over real
 * HTTP. The app's link to the devnet loses the sends a test names (the node never sees them), so a
 * first attempt expires without landing; expiry is reached by advancing the devnet's slots.
 */
describe.each(testDatabaseKinds)('managed automatic retry of Solana transfers (local devnet) (%s)', (kind) => {
  const m = monitorDevnets(kind, { lossySolana: true });
  const s = m.state;
  const { clock, post, wallet, fund, record, events, runDue, resolveAll, advanceSlots } = m;
  const VALUE = 1_000_000n;
  const devnet = () => s.devnets.gateways.solana('SOLANA_DEVNET')!;
  const balance = async (address: string) => BigInt((await rpc(s.devnets.solanaRpcUrl, 'getBalance', [address, { commitment: 'finalized' }])).value);
  const attemptRows = (id: string) => s.app.database.query<{ hash: string; signed_transaction: string }>('SELECT hash, signed_transaction FROM transaction_attempts WHERE record_id = $1 ORDER BY number', [id]);
  /** Past the blockhash's last valid height, and that height finalized. */
  const expireBlockhashes = () => advanceSlots(155);

  /** A funded wallet's transfer whose send the link loses: the record is `submitted`, the node never saw it. */
  async function lostTransfer(extra: Record<string, unknown> = {}, lose = 1, { wallet, fund, post }: Pick<ReturnType<typeof helpers>, 'wallet' | 'fund' | 'post'> = m) {
    const w = await wallet('SOLANA');
    await fund(w.id, '1');
    const to = (await wallet('SOLANA')).address;
    const before = await balance(w.address);
    s.solanaLink.lose(lose);
    const sent = await post(`/v1/wallets/${w.id}/transfer`, { to, value: VALUE.toString(), network: 'SOLANA_DEVNET', ...extra });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const id = sent.body.transactionId as string;
    expect(s.solanaLink.lost.at(-1)).toBe(sent.body.txHash);
    expect((await devnet().getSignatureStatuses([sent.body.txHash]))[0]).toBeNull();
    return { w, to, before, id, hash: sent.body.txHash as string, signed: sent.body.signedTransaction as string };
  }

  it('rebuilds an expired transfer on a fresh blockhash; the rebuild confirms the same record, and the late original is refused', async () => {
    // A console partner's key, so the record can be read through tRPC and GraphQL too.
    const partner = await consolePartner(s.app, [], ['support']);
    const viaPartner = helpers(() => ({ app: s.app, clock, key: partner.key.apiKey }));
    const t = await lostTransfer({}, 1, viaPartner);
    await runDue([t.id]);
    expect(await viaPartner.record(t.w.id, t.id)).toMatchObject({ status: 'submitted', autoRetry: { enabled: true, maxFeePerGas: null } });
    await expireBlockhashes();
    await runDue([t.id]);
    const waiting = await viaPartner.record(t.w.id, t.id);
    expect(waiting).toMatchObject({ status: 'submitted', hash: t.hash });
    const [first, second] = waiting.autoRetry.attempts;
    expect(waiting.autoRetry.attempts).toHaveLength(2);
    expect(first).toMatchObject({ hash: t.hash, recentBlockhash: expect.any(String) });
    expect(second).toMatchObject({ outcome: 'pending', recentBlockhash: expect.any(String) });
    expect(second.recentBlockhash).not.toBe(first.recentBlockhash);
    expect(second.hash).not.toBe(t.hash);
    expect(waiting.autoRetry.reason).toMatch(/^rebuild 2: attempt 1 expired without landing/);

    await resolveAll([t.id]);
    const done = await viaPartner.record(t.w.id, t.id);
    expect(done).toMatchObject({ status: 'confirmed', hash: t.hash, monitoring: { winningHash: second.hash, winningStatus: 'confirmed' } });
    expect(done.autoRetry.attempts.map((a: { hash: string; outcome: string }) => [a.hash, a.outcome])).toEqual([
      [t.hash, 'lost'],
      [second.hash, 'included'],
    ]);
    const [status] = await devnet().getSignatureStatuses([second.hash]);
    expect(status).toMatchObject({ confirmationStatus: 'finalized', err: null });
    expect(done.blockNumber).toBe(status!.slot.toString());
    const types = (await events(t.id)).map((e) => e.type);
    expect(types.filter((type) => type === 'rest.transaction.confirmed')).toHaveLength(1);
    expect(types).not.toContain('rest.transaction.failed');
    // Each attempt the node took has its send.broadcasted; send.confirmed names the one that landed.
    const sendsOf = async (hash: string) => (await events(hash)).filter((e) => e.type.startsWith('send.')).map((e) => e.type);
    expect(await sendsOf(t.hash)).toEqual(['send.broadcasted']);
    expect(await sendsOf(second.hash)).toEqual(['send.broadcasted', 'send.confirmed']);
    // The same attempts through tRPC and GraphQL (which answers null where REST leaves a field out).
    const { webhookDeliveries: _deliveries, ...trpc } = await partner.support.transactions.get.query({ transactionId: t.id });
    expect(trpc.autoRetry).toEqual(done.autoRetry);
    const gql = await graphql(s.app, partner.cookies.support, `query($t: ID!) { transaction(id: $t) { autoRetry { enabled maxFeePerGas reason attempts { hash maxFeePerGas maxPriorityFeePerGas recentBlockhash sentAt outcome } } } }`, { t: t.id });
    expect(gql.body.errors).toBeUndefined();
    const asGraphql = (a: object) => ({ maxFeePerGas: null, maxPriorityFeePerGas: null, ...a });
    expect(gql.body.data.transaction.autoRetry).toEqual({ ...done.autoRetry, attempts: done.autoRetry.attempts.map(asGraphql) });

    // The original's bytes reach the node after all, late: refused, its blockhash is gone.
    await expect(devnet().sendTransaction(t.signed)).rejects.toMatchObject({ code: 'BLOCKHASH_NOT_FOUND' });
    await advanceSlots(3);
    expect((await devnet().getSignatureStatuses([t.hash]))[0]).toBeNull();
    // Paid once: the recipient got one payment, the sender paid it and one fee.
    expect(await balance(t.to)).toBe(VALUE);
    expect(await balance(t.w.address)).toBe(t.before - VALUE - 5000n);
  });

  it('sends a stored rebuild the node never got (as after a crash between storing and sending) with its stored bytes, not a new one', async () => {
    const t = await lostTransfer({}, 2);
    await s.slots.pause();
    try {
      await expireBlockhashes();
      await runDue([t.id]); // rebuilt, stored, and its send lost
      const [stored] = await attemptRows(t.id);
      expect(s.solanaLink.lost).toContain(stored!.hash);
      // The process "died" after storing it: its outcome was never saved.
      await s.app.database.query(`UPDATE transaction_attempts SET outcome = 'unknown' WHERE hash = $1`, [stored!.hash]);
      clock.advance(10_000); // old enough for the durable re-send
      await runDue([t.id]);
      expect((await devnet().getSignatureStatuses([stored!.hash]))[0]).not.toBeNull();
      expect((await attemptRows(t.id)).map((a) => a.hash)).toEqual([stored!.hash]);
      expect((await record(t.w.id, t.id)).autoRetry.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['pending', 'pending']);
    } finally {
      s.slots.resume();
    }
    await resolveAll([t.id]);
    const [stored] = await attemptRows(t.id);
    expect(await record(t.w.id, t.id)).toMatchObject({ status: 'confirmed', hash: t.hash, monitoring: { winningHash: stored!.hash } });
    expect(await balance(t.to)).toBe(VALUE);
  });

  it('charges the spend meters once across attempts; a policy that now denies the rebuild fails the record, saying why', async () => {
    const p = await policyProject(s.app);
    const limit = (value: bigint) => [{ id: 'native-daily', effect: 'deny', actions: ['transfer'], condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value: value.toString() } }];
    // VALUE is spent by the first attempt; a second charge of it would pass 1.5 × VALUE.
    await p.apply(guardrail('retry-meter', 'SOLANA', limit((VALUE * 3n) / 2n)));
    const t = await lostTransfer({}, 2, { wallet: p.wallet, post: p.post, fund: async (walletId, amount) => void expect((await p.post('/v1/local/faucet', { walletId, amount, token: 'native' })).status).toBe(200) });
    const usage = async () => (await p.get(`/v1/permissions-v2/wallets/${t.w.id}/policies/retry-meter/usage?chainId=solana:devnet`)).body.meters[0];
    const view = async () => (await p.get(`/v1/wallets/${t.w.id}/transactions/${t.id}`)).body;
    expect(await usage()).toMatchObject({ spent: VALUE.toString(), reserved: '0' });
    await expireBlockhashes();
    await runDue([t.id]);
    expect((await view()).autoRetry.attempts).toHaveLength(2);
    expect(await usage()).toMatchObject({ spent: VALUE.toString(), reserved: '0' });
    expect(await s.app.database.query(`SELECT 1 FROM audit_log WHERE wallet_id = $1 AND action = 'wallet.sign.transfer'`, [t.w.id])).toHaveLength(2);

    // The policy now allows at most VALUE / 2: the next rebuild is refused and the record fails.
    await p.apply(guardrail('retry-meter', 'SOLANA', limit(VALUE / 2n), {}, { version: '2' }));
    await expireBlockhashes();
    await runDue([t.id]);
    const failed = await view();
    expect(failed).toMatchObject({ status: 'failed', failureCode: 'TRANSACTION_EXPIRED', hash: t.hash });
    expect(failed.failureMessage).toMatch(/rebuild not signed \(POLICY_DENIED\)/);
    expect(failed.autoRetry.reason).toMatch(/^rebuild not signed \(POLICY_DENIED\)/);
    expect(failed.autoRetry.attempts).toHaveLength(2);
    expect(await usage()).toMatchObject({ spent: VALUE.toString(), reserved: '0' });
    expect(await balance(t.to)).toBe(0n);
  });

  it('fails TRANSACTION_EXPIRED once every one of the five attempts expired, saying so', async () => {
    const t = await lostTransfer({}, 5);
    for (let rebuilt = 1; rebuilt <= 4; rebuilt++) {
      await expireBlockhashes();
      await runDue([t.id]);
      expect((await attemptRows(t.id)).length).toBe(rebuilt);
    }
    await expireBlockhashes();
    await runDue([t.id]);
    const failed = await record(t.w.id, t.id);
    expect(failed).toMatchObject({ status: 'failed', failureStage: 'broadcast', failureCode: 'TRANSACTION_EXPIRED', monitoring: { chainOutcome: 'expired' } });
    expect(failed.failureMessage).toMatch(/all 5 attempts expired without landing/);
    expect(failed.autoRetry.reason).toMatch(/all 5 attempts expired without landing/);
    expect(failed.autoRetry.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['lost', 'lost', 'lost', 'lost', 'lost']);
    expect((await events(t.id)).filter((e) => e.type === 'rest.transaction.failed')).toHaveLength(1);
    expect(await balance(t.to)).toBe(0n);
  });

  it('never rebuilds a partner-signed broadcast or a transfer with autoRetry off: they fail TRANSACTION_EXPIRED as before', async () => {
    const off = await lostTransfer({ autoRetry: { enabled: false } });
    const w = await wallet('SOLANA');
    await fund(w.id, '1');
    const { blockhash } = await devnet().getLatestBlockhash();
    const built = await devnet().buildTransfer({ from: w.address, to: off.to, amount: VALUE, recentBlockhash: blockhash });
    s.solanaLink.lose(1);
    const partner = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: built.transaction, network: 'SOLANA_DEVNET', broadcast: true });
    expect(partner.status, JSON.stringify(partner.body)).toBe(200);
    const partnerId = partner.body.transactionId as string;
    await expireBlockhashes();
    // The partner's transaction has no last valid height: its expiry takes two checks.
    await runDue([off.id, partnerId]);
    await runDue([off.id, partnerId]);
    for (const [walletId, id] of [
      [off.w.id, off.id],
      [w.id, partnerId],
    ] as const) {
      expect(await record(walletId, id)).toMatchObject({ status: 'failed', failureCode: 'TRANSACTION_EXPIRED' });
      expect(await attemptRows(id)).toHaveLength(0);
    }
    expect((await record(off.w.id, off.id)).autoRetry).toEqual({ enabled: false, maxFeePerGas: null, attempts: [expect.objectContaining({ hash: off.hash, outcome: 'lost' })] });
    expect((await record(w.id, partnerId)).autoRetry).toBeUndefined();
    expect(await balance(off.to)).toBe(0n);
  });

  it('refuses a fee ceiling on a Solana transfer, naming the field, with nothing recorded', async () => {
    const w = await wallet('SOLANA');
    const to = (await wallet('SOLANA')).address;
    const refused = await post(`/v1/wallets/${w.id}/transfer`, { to, value: '1', network: 'SOLANA_DEVNET', autoRetry: { enabled: true, maxFeePerGas: '100' } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toMatch(/autoRetry\.maxFeePerGas/);
    const list = await s.app.request('GET', `/v1/wallets/${w.id}/transactions`, { key: s.key });
    expect(list.body.data).toHaveLength(0);
    clock.advance(MIN);
  });
});
