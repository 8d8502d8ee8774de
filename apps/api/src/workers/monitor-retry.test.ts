import { parseTransaction, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { EVM_CHAIN, RECIPIENT, monitorDevnets, rpc, testDatabaseKinds } from '../testing/monitor-fixtures.ts';
import { guardrail, policyProject } from '../testing/policy-fixtures.ts';
import { TEST_CA_FILE, startReceiver, verifyWebhook } from '../webhooks/testing/receiver.ts';

/**
 * Managed automatic retry of EVM transfers (fee replacement), on anvil with blocks mined by hand
 * and the base fee raised by hand, over real HTTP; webhooks delivered to a real HTTPS receiver.
 */
describe.each(testDatabaseKinds)('managed automatic retry of EVM transfers (local devnet) (%s)', (kind) => {
  const m = monitorDevnets(kind, { env: { WEBHOOK_CA_FILE: TEST_CA_FILE, WEBHOOK_TIMEOUT_MS: '5000' } });
  const s = m.state;
  const { post, wallet, fund, record, events, runDue, resolveAll, mine } = m;
  const hex = (n: bigint) => `0x${n.toString(16)}`;

  /** A transfer sent while the chain stands still, checked once (its wait starts at this block). */
  async function sentTransfer(walletId: string, extra: Record<string, unknown> = {}, send = post) {
    const sent = await send(`/v1/wallets/${walletId}/transfer`, { to: RECIPIENT, value: '1000', chainId: EVM_CHAIN, ...extra });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const id = sent.body.transactionId as string;
    await runDue([id]);
    return { id, hash: sent.body.txHash as string, tx: parseTransaction(sent.body.signedTransaction as Hex), answer: sent.body };
  }

  /** The next blocks' base fee three times what `maxFeePerGas` offers; `blocks` empty blocks mined. */
  async function priceOut(maxFeePerGas: bigint, blocks = 3) {
    await rpc(s.devnets.evmRpcUrl, 'anvil_setNextBlockBaseFeePerGas', [hex(maxFeePerGas * 3n)]);
    await mine(blocks);
  }

  /** A transfer priced out for three blocks while the chain stands still, then replaced by one check: it and its two attempts. */
  async function replacedTransfer(walletId: string) {
    const t = await sentTransfer(walletId);
    await priceOut(t.tx.maxFeePerGas!);
    await runDue([t.id]);
    const attempts = (await record(walletId, t.id)).autoRetry.attempts;
    expect(attempts).toHaveLength(2);
    return { t, attempts };
  }

  it('replaces a transfer priced under the new base fee; the replacement confirms the record, which keeps its hash; one terminal webhook', async () => {
    const receiver = await startReceiver();
    const { secret } = await s.app.services.webhooks.set(s.scope, { url: receiver.url, eventTypes: ['rest.transaction.confirmed', 'rest.transaction.failed', 'send.broadcasted', 'send.confirmed', 'send.failed'] });
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    let t: Awaited<ReturnType<typeof sentTransfer>>;
    try {
      t = await sentTransfer(w.id);
      await priceOut(t.tx.maxFeePerGas!, 2);
      await runDue([t.id]); // two blocks: not yet
      expect((await record(w.id, t.id)).autoRetry.attempts).toHaveLength(1);
      await mine();
      await runDue([t.id]);
    } finally {
      s.blocks.resume();
    }
    // The 200 answer already says retry is on, with its ceiling and the first attempt.
    expect(t.answer.autoRetry).toEqual({
      enabled: true,
      maxFeePerGas: (t.tx.maxFeePerGas! * 10n).toString(),
      attempts: [{ hash: t.hash, maxFeePerGas: t.tx.maxFeePerGas!.toString(), maxPriorityFeePerGas: t.tx.maxPriorityFeePerGas!.toString(), sentAt: expect.any(String), outcome: 'pending' }],
    });
    const waiting = await record(w.id, t.id);
    expect(waiting.autoRetry.attempts[0].sentAt).toBe(t.answer.autoRetry.attempts[0].sentAt);
    expect(waiting).toMatchObject({ status: 'submitted', hash: t.hash, autoRetry: { enabled: true, maxFeePerGas: (t.tx.maxFeePerGas! * 10n).toString() } });
    const [first, second] = waiting.autoRetry.attempts;
    expect(first).toMatchObject({ hash: t.hash, maxFeePerGas: t.tx.maxFeePerGas!.toString(), maxPriorityFeePerGas: t.tx.maxPriorityFeePerGas!.toString() });
    expect(second.outcome).toBe('pending');
    expect(BigInt(second.maxFeePerGas)).toBeGreaterThanOrEqual((t.tx.maxFeePerGas! * 110n) / 100n);
    expect(BigInt(second.maxFeePerGas)).toBeGreaterThan(t.tx.maxFeePerGas! * 2n); // reaches the base fee
    expect(BigInt(second.maxPriorityFeePerGas)).toBeGreaterThanOrEqual((t.tx.maxPriorityFeePerGas! * 110n) / 100n);
    expect(waiting.autoRetry.reason).toMatch(/^fee replacement 2: /);
    const replacement = parseTransaction((await s.app.database.query<{ signed_transaction: Hex }>('SELECT signed_transaction FROM transaction_attempts WHERE hash = $1', [second.hash]))[0]!.signed_transaction);
    expect({ nonce: replacement.nonce, to: replacement.to, value: replacement.value, gas: replacement.gas }).toEqual({ nonce: t.tx.nonce, to: t.tx.to, value: t.tx.value, gas: t.tx.gas });

    await resolveAll([t.id]);
    const done = await record(w.id, t.id);
    expect(done).toMatchObject({ status: 'confirmed', hash: t.hash, monitoring: { winningHash: second.hash, winningStatus: 'confirmed' } });
    expect(done.autoRetry.attempts.map((a: { hash: string; outcome: string }) => [a.hash, a.outcome])).toEqual([
      [t.hash, 'lost'],
      [second.hash, 'included'],
    ]);
    const receipt = (await s.devnets.gateways.evm(EVM_CHAIN)!.getReceipts([second.hash as Hex]))[0]!;
    expect(done.blockNumber).toBe(receipt.blockNumber.toString());
    const confirmed = (await events(t.id)).filter((e) => e.type === 'rest.transaction.confirmed');
    expect(confirmed).toHaveLength(1);
    expect((await events(t.id)).some((e) => e.type === 'rest.transaction.failed')).toBe(false);

    // Delivered: one terminal REST event for the record; the send.* events name each attempt.
    const ours = () => receiver.requests.filter((r) => r.body.data.transactionId === t.id || r.body.data.walletId === w.id);
    try {
      for (let i = 0; i < 100 && !ours().some((r) => r.body.type === 'send.confirmed'); i++) {
        await s.app.services.webhookDelivery.runOnce();
        await new Promise((r) => setTimeout(r, 50));
      }
      const delivered = ours();
      for (const request of delivered) expect(verifyWebhook([secret!], request.headers, request.rawBody)).toEqual([secret]);
      const ofType = (type: string) => delivered.filter((r) => r.body.type === type).map((r) => r.body.data);
      expect(ofType('rest.transaction.confirmed')).toEqual([expect.objectContaining({ transactionId: t.id, hash: t.hash, blockNumber: done.blockNumber })]);
      expect(ofType('rest.transaction.failed')).toEqual([]);
      expect(ofType('send.broadcasted').map((d) => d.txHash)).toEqual([t.hash, second.hash]);
      expect(ofType('send.confirmed').map((d) => d.txHash)).toEqual([second.hash]);
    } finally {
      await s.app.services.webhooks.disable(s.scope);
      await receiver.close();
    }
  });

  it('sends a stored replacement the node never got (as after a crash between storing and sending) with its stored bytes, not a new one', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    let t: Awaited<ReturnType<typeof sentTransfer>>;
    let stored: string;
    try {
      t = await sentTransfer(w.id);
      await priceOut(t.tx.maxFeePerGas!);
      await runDue([t.id]);
      stored = (await record(w.id, t.id)).autoRetry.attempts[1].hash;
      // The process "died" after storing it: the node never saw it, its outcome was never saved.
      await rpc(s.devnets.evmRpcUrl, 'anvil_dropTransaction', [stored]);
      await s.app.database.query(`UPDATE transaction_attempts SET outcome = 'unknown' WHERE hash = $1`, [stored]);
      await s.app.database.query(`DELETE FROM events WHERE type = 'send.broadcasted' AND data->>'txHash' = $1`, [stored]);
      expect((await record(w.id, t.id)).autoRetry.attempts[1].outcome).toBe('unknown');
      expect(await s.devnets.gateways.evm(EVM_CHAIN)!.getTransactionsKnown([stored as Hex])).toEqual([false]);
      m.clock.advance(10_000); // old enough for the durable re-send
      await mine(3);
      await runDue([t.id]);
      expect(await s.devnets.gateways.evm(EVM_CHAIN)!.getTransactionsKnown([stored as Hex])).toEqual([true]);
      // Its send.broadcasted is written once, when the node took it.
      expect((await events(stored)).filter((e) => e.type === 'send.broadcasted')).toHaveLength(1);
      const waiting = await record(w.id, t.id);
      expect(waiting.autoRetry.attempts.map((a: { hash: string; outcome: string }) => [a.hash, a.outcome])).toEqual([
        [t.hash, 'pending'],
        [stored, 'pending'],
      ]);
    } finally {
      s.blocks.resume();
    }
    await resolveAll([t.id]);
    expect(await record(w.id, t.id)).toMatchObject({ status: 'confirmed', hash: t.hash, monitoring: { winningHash: stored } });
    expect(await s.app.database.query('SELECT 1 FROM transaction_attempts WHERE record_id = $1', [t.id])).toHaveLength(1);
  });

  it('stops at the ceiling: no replacement, the record stays submitted and says why', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    try {
      const suggested = await s.devnets.gateways.evm(EVM_CHAIN)!.getFeeSuggestion();
      const t = await sentTransfer(w.id, { autoRetry: { enabled: true, maxFeePerGas: (suggested.maxFeePerGas + 1n).toString() } });
      await priceOut(t.tx.maxFeePerGas!);
      await runDue([t.id]);
      const waiting = await record(w.id, t.id);
      expect(waiting).toMatchObject({ status: 'submitted', hash: t.hash, autoRetry: { enabled: true, maxFeePerGas: (suggested.maxFeePerGas + 1n).toString() } });
      expect(waiting.autoRetry.attempts).toHaveLength(1);
      expect(waiting.autoRetry.reason).toMatch(/^ceiling reached/);
      expect(await s.app.database.query('SELECT 1 FROM transaction_attempts WHERE record_id = $1', [t.id])).toHaveLength(0);
    } finally {
      s.blocks.resume();
    }
  });

  it('resolves the record with the original when the original is mined after a replacement was sent', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    let t: Awaited<ReturnType<typeof sentTransfer>>;
    let replacementHash: string;
    try {
      const replaced = await replacedTransfer(w.id);
      t = replaced.t;
      const attempts = replaced.attempts;
      replacementHash = attempts[1].hash;
      // Another node's pool still holds the original, and fees fall: the original is mined.
      await rpc(s.devnets.evmRpcUrl, 'anvil_dropTransaction', [replacementHash]);
      await rpc(s.devnets.evmRpcUrl, 'anvil_setNextBlockBaseFeePerGas', [hex(t.tx.maxFeePerGas! / 2n)]);
      const signed = (await s.app.database.query<{ signed_transaction: string }>('SELECT signed_transaction FROM transaction_records WHERE id = $1', [t.id]))[0]!;
      await rpc(s.devnets.evmRpcUrl, 'eth_sendRawTransaction', [signed.signed_transaction]);
      await mine();
      expect((await s.devnets.gateways.evm(EVM_CHAIN)!.getReceipts([t.hash as Hex]))[0]).not.toBeNull();
    } finally {
      s.blocks.resume();
    }
    await resolveAll([t.id]);
    const done = await record(w.id, t.id);
    expect(done).toMatchObject({ status: 'confirmed', hash: t.hash, monitoring: { winningHash: t.hash, winningStatus: 'confirmed' } });
    expect(done.autoRetry.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['included', 'lost']);
    expect((await events(t.id)).filter((e) => e.type === 'rest.transaction.confirmed')).toHaveLength(1);
  });

  it('still fails the record CANCELLED when an unrelated same-nonce transaction (a cancellation) wins over its attempts', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    let t: Awaited<ReturnType<typeof sentTransfer>>;
    let cancel: { status: number; body: any };
    try {
      ({ t } = await replacedTransfer(w.id));
      cancel = await post(`/v1/wallets/${w.id}/transactions/${t.id}/cancel`, {});
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    } finally {
      s.blocks.resume();
    }
    await resolveAll([t.id, cancel.body.transactionId]);
    const done = await record(w.id, t.id);
    expect(done).toMatchObject({
      status: 'failed',
      hash: t.hash,
      failureCode: 'CANCELLED',
      monitoring: { chainOutcome: 'cancelled', winningHash: cancel.body.txHash },
    });
    expect(done.autoRetry.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['lost', 'lost']);
    expect((await events(t.id)).filter((e) => e.type === 'rest.transaction.failed')).toHaveLength(1);
  });

  it('still fails the record REPLACED when a transaction this service did not send takes the nonce over its attempts', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    let t: Awaited<ReturnType<typeof sentTransfer>>;
    let foreign: Hex;
    try {
      const replaced = await replacedTransfer(w.id);
      t = replaced.t;
      const attempts = replaced.attempts;
      // The partner signs another call at the same nonce (sign-only) and sends it elsewhere, priced over both attempts.
      const fee = BigInt(attempts[1].maxFeePerGas) * 2n;
      const signed = await post(`/v1/wallets/${w.id}/sign-transaction`, {
        transaction: { to: w.address, value: '0', chainId: EVM_CHAIN, type: 2, nonce: t.tx.nonce, gasLimit: '21000', maxFeePerGas: fee.toString(), maxPriorityFeePerGas: fee.toString() },
      });
      expect(signed.status, JSON.stringify(signed.body)).toBe(200);
      foreign = (await rpc(s.devnets.evmRpcUrl, 'eth_sendRawTransaction', [signed.body.signedTransaction])) as Hex;
      await mine();
    } finally {
      s.blocks.resume();
    }
    await resolveAll([t.id]);
    const done = await record(w.id, t.id);
    expect(done).toMatchObject({ status: 'failed', hash: t.hash, failureCode: 'REPLACED', monitoring: { chainOutcome: 'nonce_consumed_elsewhere' } });
    expect((await s.devnets.gateways.evm(EVM_CHAIN)!.getReceipts([foreign]))[0]).not.toBeNull();
    expect(done.autoRetry.attempts.map((a: { outcome: string }) => a.outcome)).toEqual(['lost', 'lost']);
    expect((await events(t.id)).filter((e) => e.type === 'rest.transaction.failed')).toHaveLength(1);
    expect((await events(t.id)).some((e) => e.type === 'rest.transaction.confirmed')).toBe(false);
  });

  it('never retries a transfer that pins its fees or turns retry off; enabled with a pin is refused naming the field', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const refused = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '1000', chainId: EVM_CHAIN, maxFeePerGas: '5000000000', autoRetry: { enabled: true } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('maxFeePerGas');
    const zero = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '1000', chainId: EVM_CHAIN, autoRetry: { enabled: true, maxFeePerGas: '0' } });
    expect(zero.status).toBe(400);
    const unknownField = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '1000', chainId: EVM_CHAIN, autoRetry: { enabled: true, other: 1 } });
    expect(unknownField.status).toBe(400);
    await s.blocks.pause();
    try {
      const suggested = await s.devnets.gateways.evm(EVM_CHAIN)!.getFeeSuggestion();
      const pinned = await sentTransfer(w.id, { maxFeePerGas: suggested.maxFeePerGas.toString(), maxPriorityFeePerGas: suggested.maxPriorityFeePerGas.toString() });
      const off = await sentTransfer(w.id, { autoRetry: { enabled: false } });
      await priceOut(pinned.tx.maxFeePerGas! > off.tx.maxFeePerGas! ? pinned.tx.maxFeePerGas! : off.tx.maxFeePerGas!, 4);
      await runDue([pinned.id, off.id]);
      await mine(2);
      await runDue([pinned.id, off.id]);
      for (const t of [pinned, off]) {
        const waiting = await record(w.id, t.id);
        expect(waiting).toMatchObject({ status: 'submitted', autoRetry: { enabled: false, maxFeePerGas: null } });
        expect(waiting.autoRetry.attempts).toHaveLength(1);
        expect(waiting.autoRetry.reason).toBeUndefined();
      }
    } finally {
      s.blocks.resume();
    }
  });

  it('charges the spend meters once across attempts, and a policy that now denies stops the replacement (the record keeps waiting)', async () => {
    const p = await policyProject(s.app);
    const limit = (value: string) => [
      { id: 'native-daily', effect: 'deny', actions: ['transfer'], condition: { aggregate: { meter: 'spend.native', window: '1d' }, op: 'gt', value } },
    ];
    // 1000 is spent by the first attempt; a second charge of it would pass 1500.
    await p.apply(guardrail('retry-meter', 'EVM', limit('1500')));
    const w = await p.wallet('EVM');
    const faucet = await p.post('/v1/local/faucet', { walletId: w.id, amount: '1', token: 'native' });
    expect(faucet.status, JSON.stringify(faucet.body)).toBe(200);
    const usage = async () => (await p.get(`/v1/permissions-v2/wallets/${w.id}/policies/retry-meter/usage?chainId=${EVM_CHAIN}`)).body.meters[0];
    const view = async (id: string) => (await p.get(`/v1/wallets/${w.id}/transactions/${id}`)).body;
    await s.blocks.pause();
    try {
      // A ceiling high enough for two replacements: only the policy stops the second.
      const ceiling = (await s.devnets.gateways.evm(EVM_CHAIN)!.getFeeSuggestion()).maxFeePerGas * 1000n;
      const t = await sentTransfer(w.id, { autoRetry: { enabled: true, maxFeePerGas: ceiling.toString() } }, p.post);
      expect(await usage()).toMatchObject({ spent: '1000', reserved: '0' });
      await priceOut(t.tx.maxFeePerGas!);
      await runDue([t.id]);
      const replaced = await view(t.id);
      expect(replaced.autoRetry.attempts, JSON.stringify(replaced.autoRetry)).toHaveLength(2);
      expect(await usage()).toMatchObject({ spent: '1000', reserved: '0' });
      const signed = await s.app.database.query<{ action: string }>(`SELECT action FROM audit_log WHERE wallet_id = $1 AND action = 'wallet.sign.transfer'`, [w.id]);
      expect(signed).toHaveLength(2);

      // The policy now allows at most 500: the replacement is refused, nothing else changes.
      await p.apply(guardrail('retry-meter', 'EVM', limit('500'), {}, { version: '2' }));
      await priceOut(BigInt(replaced.autoRetry.attempts[1].maxFeePerGas));
      await runDue([t.id]);
      const refused = await view(t.id);
      expect(refused).toMatchObject({ status: 'submitted', hash: t.hash });
      expect(refused.autoRetry.attempts).toHaveLength(2);
      expect(refused.autoRetry.reason).toMatch(/^replacement not signed \(POLICY_DENIED\)/);
      expect(await usage()).toMatchObject({ spent: '1000', reserved: '0' });
    } finally {
      s.blocks.resume();
    }
  });

  it('makes at most five attempts in all, each priced over the last, then says why it stops', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    const before = await s.devnets.gateways.evm(EVM_CHAIN)!.getFeeSuggestion();
    try {
      const ceiling = (await s.devnets.gateways.evm(EVM_CHAIN)!.getFeeSuggestion()).maxFeePerGas * 100_000n;
      const t = await sentTransfer(w.id, { autoRetry: { enabled: true, maxFeePerGas: ceiling.toString() } });
      let last = t.tx.maxFeePerGas!;
      for (let attempts = 2; attempts <= 5; attempts++) {
        await priceOut(last);
        await runDue([t.id]);
        const view = (await record(w.id, t.id)).autoRetry;
        expect(view.attempts).toHaveLength(attempts);
        const fee = BigInt(view.attempts[attempts - 1].maxFeePerGas);
        expect(fee).toBeGreaterThanOrEqual((last * 110n) / 100n);
        last = fee;
      }
      await priceOut(last);
      await runDue([t.id]);
      const stopped = await record(w.id, t.id);
      expect(stopped).toMatchObject({ status: 'submitted', hash: t.hash });
      expect(stopped.autoRetry.attempts).toHaveLength(5);
      expect(stopped.autoRetry.reason).toMatch(/^at most 5 attempts/);
      expect(new Set(stopped.autoRetry.attempts.map((a: { hash: string }) => a.hash)).size).toBe(5);
    } finally {
      // Fees back to where they were, so later transfers of the suite stay affordable.
      await rpc(s.devnets.evmRpcUrl, 'anvil_setNextBlockBaseFeePerGas', [hex(before.baseFeePerGas)]);
      await mine();
      s.blocks.resume();
    }
  });
});
