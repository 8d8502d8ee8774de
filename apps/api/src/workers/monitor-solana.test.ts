import { randomBytes, randomUUID } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { type Hex } from 'viem';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';
import { describe, expect, it } from 'vitest';
import { EVM_CHAIN, RECIPIENT, MIN, monitorDevnets, testDatabaseKinds } from '../testing/monitor-fixtures.ts';

/** Solana finality and proven expiry, and the monitoring windows (last: it moves the clock far ahead). */
describe.each(testDatabaseKinds)('the transaction monitor on Solana and over time (local devnets) (%s)', (kind) => {
  const m = monitorDevnets(kind);
  const s = m.state;
  const { clock, post, wallet, fund, record, row, events, runDue, resolveAll, advanceSlots } = m;

  it('confirms a SOL transfer only at finalized, with the slot as block number', async () => {
    const w = await wallet('SOLANA');
    await fund(w.id, '1');
    const to = (await wallet('SOLANA')).address;
    await s.slots.pause();
    try {
      const sent = await post(`/v1/wallets/${w.id}/transfer`, { to, value: '1000000', network: 'SOLANA_DEVNET' });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const id = sent.body.transactionId as string;
      const [status] = await s.devnets.gateways.solana('SOLANA_DEVNET')!.getSignatureStatuses([sent.body.txHash]);
      expect(status?.confirmationStatus).toBe('processed');
      await runDue([id]);
      expect(await record(w.id, id)).toMatchObject({ status: 'submitted' });
      await advanceSlots(1); // confirmed
      await runDue([id]);
      expect(await record(w.id, id)).toMatchObject({ status: 'submitted' });
      await advanceSlots(1); // finalized
      await runDue([id]);
      expect(await record(w.id, id)).toMatchObject({ status: 'confirmed', blockNumber: status!.slot.toString(), blockHash: null });
      const confirmed = (await events(id)).filter((e) => e.type === 'rest.transaction.confirmed');
      expect(confirmed).toHaveLength(1);
      expect(confirmed[0]!.data).toMatchObject({ type: 'SOLANA', blockNumber: status!.slot.toString(), blockHash: null });
    } finally {
      s.slots.resume();
    }
  });


  it('proves Solana expiry before failing TRANSACTION_EXPIRED, and fails a nonce consumed by an unknown transaction', async () => {
    const store = s.app.services.stores.transactions;
    const solana = s.devnets.gateways.solana('SOLANA_DEVNET')!;
    const evm = s.devnets.gateways.evm(EVM_CHAIN)!;
    const { blockhash } = await solana.getLatestBlockhash();
    const finalized = await solana.getFinalizedBlockHeight();
    const signature = () => getBase58Decoder().decode(randomBytes(64));
    const base = transactionRecordFixture({ intentKind: 'sign_transaction', to: null, value: null });
    const sol = { ...base, walletType: 'SOLANA' as const, chainId: null, network: 'SOLANA_DEVNET', fromAddress: (await wallet('SOLANA')).address, nonce: null };
    // Signatures this chain never saw: past their last valid height; not yet; a partner transaction over a blockhash
    // the chain does not know (no height); a durable-nonce transaction whose account holds no nonce.
    const past = await store.create({ ...sol, id: randomUUID(), hash: signature(), recentBlockhash: blockhash, lastValidBlockHeight: finalized - 1n, nonceAccount: null }, []);
    const future = await store.create({ ...sol, id: randomUUID(), hash: signature(), recentBlockhash: blockhash, lastValidBlockHeight: finalized + 10_000n, nonceAccount: null }, []);
    const partner = await store.create(
      { ...sol, id: randomUUID(), hash: signature(), recentBlockhash: '4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM', lastValidBlockHeight: null, nonceAccount: null },
      [],
    );
    const durable = await store.create({ ...sol, id: randomUUID(), hash: signature(), recentBlockhash: blockhash, lastValidBlockHeight: null, nonceAccount: sol.fromAddress }, []);
    // An EVM record whose nonce the wallet's account already used (at a finalized block) for a transaction not recorded here.
    const spender = await wallet('EVM');
    await fund(spender.id, '1');
    const spent = await post(`/v1/wallets/${spender.id}/transfer`, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN });
    await expect.poll(async () => (await evm.getNonces([spender.address as Hex], 'finalized'))[0], { timeout: 10_000, interval: 100 }).toBe(1);
    const foreign = await store.create(
      {
        ...base,
        id: randomUUID(),
        walletType: 'EVM',
        chainId: String(EVM_CHAIN),
        network: null,
        fromAddress: spender.address,
        nonce: 0,
        hash: `0x${randomBytes(32).toString('hex')}`,
        recentBlockhash: null,
        lastValidBlockHeight: null,
        nonceAccount: null,
      },
      [],
    );
    const ids = [past.id, future.id, partner.id, durable.id, foreign.id];
    await runDue(ids);
    const status = async (id: string) => (await row(id)).status;
    expect(await status(past.id)).toBe('failed');
    expect(await status(durable.id)).toBe('failed');
    expect(await status(future.id)).toBe('submitted');
    // The partner transaction needs a second check that still finds no status.
    expect(await status(partner.id)).toBe('submitted');
    expect((await row(partner.id)).monitoring.expiredSince).toBeTruthy();
    await runDue([partner.id]);
    expect(await status(partner.id)).toBe('failed');
    for (const id of [past.id, partner.id, durable.id]) {
      const saved = (await store.findInWallet(base.projectId, base.walletId, id))!;
      expect(saved).toMatchObject({ failureStage: 'broadcast', failureCode: 'TRANSACTION_EXPIRED' });
      expect((await events(id)).filter((e) => e.type === 'rest.transaction.failed')).toHaveLength(1);
    }
    expect(await store.findInWallet(base.projectId, base.walletId, foreign.id)).toMatchObject({
      status: 'failed',
      failureStage: 'broadcast',
      failureCode: 'REPLACED',
      monitoring: { chainOutcome: 'nonce_consumed_elsewhere', winningHash: null },
    });
    // The transfer that really used the nonce is not disturbed by it.
    await resolveAll([spent.body.transactionId]);
    expect(await status(spent.body.transactionId)).toBe('confirmed');
  });

  // Last: moves the clock far ahead of every record of this suite.
  it('keeps an unresolvable record `submitted` past the 30-minute window with no failed event, then escalates', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    // A nonce far ahead: the node keeps it queued, it never executes and its nonce is never consumed.
    const stuck = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '6666', chainId: EVM_CHAIN, nonce: 50 });
    expect(stuck.status, JSON.stringify(stuck.body)).toBe(200);
    const id = stuck.body.transactionId as string;
    await runDue([id]);
    expect(await record(w.id, id)).toMatchObject({ status: 'submitted', monitoring: { state: 'active' } });
    clock.advance(31 * MIN);
    await runDue([id]);
    expect(await record(w.id, id)).toMatchObject({ status: 'submitted', monitoring: { state: 'extended' } });
    const extended = await row(id);
    // After the window, healthy checks continue at most five minutes apart.
    expect(extended.next_check_at!.getTime() - clock.now().getTime()).toBeLessThanOrEqual(5 * MIN);
    expect(extended.next_check_at!.getTime() - clock.now().getTime()).toBeGreaterThan(60_000);
    await runDue([id]);
    clock.advance(24 * 60 * MIN);
    await runDue([id]);
    const escalated = await row(id);
    expect(escalated.status).toBe('submitted');
    expect(escalated.monitoring.state).toBe('escalated');
    expect(escalated.next_check_at!.getTime() - clock.now().getTime()).toBeLessThanOrEqual(60 * MIN);
    const rows = await events(id);
    expect(rows.filter((e) => e.type.includes('failed'))).toHaveLength(0);
    expect((await events(stuck.body.txHash)).filter((e) => e.type.includes('failed'))).toHaveLength(0);
  });
});
