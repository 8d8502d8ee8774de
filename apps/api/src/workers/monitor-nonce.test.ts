import { createTransactionMonitor } from '@wallet/domain';
import { parseTransaction, type Hex } from 'viem';
import { describe, expect, it } from 'vitest';
import { EVM_CHAIN, RECIPIENT, monitorDevnets, testDatabaseKinds } from '../testing/monitor-fixtures.ts';
import { startMonitorWorker } from './monitor-worker.ts';

/** Same-nonce replacement and cancellation, records left pending, two monitors, the worker loop. */
describe.each(testDatabaseKinds)('the transaction monitor: nonces, pending records, concurrency (local devnets) (%s)', (kind) => {
  const m = monitorDevnets(kind);
  const s = m.state;
  const { clock, post, wallet, fund, record, row, events, resolveAll } = m;

  it('detects a same-nonce replacement: the original is failed REPLACED with the winning hash', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    let original: { body: any };
    let replacement: { body: any; status: number };
    try {
      original = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '1111', chainId: EVM_CHAIN });
      expect(original.body.transactionId).toBeTruthy();
      const tx = parseTransaction(original.body.signedTransaction as Hex);
      // The partner signs and broadcasts another transaction with the same nonce at a higher fee.
      replacement = await post(`/v1/wallets/${w.id}/sign-transaction`, {
        transaction: {
          to: RECIPIENT,
          value: '2222',
          chainId: EVM_CHAIN,
          nonce: tx.nonce,
          gasLimit: '21000',
          maxFeePerGas: (tx.maxFeePerGas! * 3n + 2_000_000_000n).toString(),
          maxPriorityFeePerGas: (tx.maxPriorityFeePerGas! * 3n + 1_000_000_000n).toString(),
        },
        broadcast: true,
      });
      expect(replacement.status, JSON.stringify(replacement.body)).toBe(200);
    } finally {
      s.blocks.resume();
    }
    await resolveAll([original.body.transactionId, replacement.body.transactionId]);
    expect(await record(w.id, replacement.body.transactionId)).toMatchObject({ status: 'confirmed', hash: replacement.body.txHash });
    const lost = await record(w.id, original.body.transactionId);
    expect(lost).toMatchObject({
      status: 'failed',
      hash: original.body.txHash,
      failureStage: 'broadcast',
      failureCode: 'REPLACED',
      monitoring: { chainOutcome: 'replaced_by_same_nonce', winningHash: replacement.body.txHash, winningStatus: 'confirmed' },
    });
    const failed = (await events(original.body.transactionId)).filter((e) => e.type === 'rest.transaction.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data).toMatchObject({
      status: 'failed',
      failureStage: 'broadcast',
      failureCode: 'REPLACED',
      chainOutcome: 'replaced_by_same_nonce',
      winningHash: replacement.body.txHash,
      winningStatus: 'confirmed',
    });
  });

  it('marks a transaction CANCELLED when its cancellation wins the nonce', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    let original: { body: any };
    let cancel: { body: any; status: number };
    try {
      original = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '3333', chainId: EVM_CHAIN });
      cancel = await post(`/v1/wallets/${w.id}/transactions/${original.body.transactionId}/cancel`, {});
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    } finally {
      s.blocks.resume();
    }
    await resolveAll([original.body.transactionId, cancel.body.transactionId]);
    expect(await record(w.id, cancel.body.transactionId)).toMatchObject({ status: 'confirmed', cancellationOf: original.body.transactionId });
    expect(await record(w.id, original.body.transactionId)).toMatchObject({
      status: 'failed',
      failureStage: 'broadcast',
      failureCode: 'CANCELLED',
      monitoring: { chainOutcome: 'cancelled', winningHash: cancel.body.txHash, winningStatus: 'confirmed' },
    });
  });

  it('resolves a record left `pending` (its broadcast outcome never saved) and records it as broadcast', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '4444', chainId: EVM_CHAIN });
    const id = sent.body.transactionId as string;
    // As if the process died between sending and saving the outcome.
    await s.app.database.query(`UPDATE transaction_records SET status = 'pending', submitted_at = NULL WHERE id = $1`, [id]);
    await s.app.database.query(`DELETE FROM events WHERE type = 'send.broadcasted' AND data->>'txHash' = $1`, [sent.body.txHash]);
    await resolveAll([id]);
    const done = await record(w.id, id);
    expect(done).toMatchObject({ status: 'confirmed' });
    expect(done.submittedAt).toBeTruthy();
    expect((await events(sent.body.txHash)).map((e) => e.type).sort()).toEqual(['send.broadcasted', 'send.confirmed']);
  });

  it('never lets two monitors complete the same record', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const sent: { transactionId: string; txHash: string }[] = [];
    for (let i = 0; i < 8; i++) sent.push((await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: String(100 + i), chainId: EVM_CHAIN })).body);
    const ids = sent.map((s) => s.transactionId as string);
    // Wait until every transfer is final on the chain, so both monitors could resolve all of them.
    const gateway = s.devnets.gateways.evm(EVM_CHAIN)!;
    await expect
      .poll(async () => {
        const [receipts, heads] = await Promise.all([gateway.getReceipts(sent.map((s) => s.txHash as Hex)), gateway.getHeads()]);
        return receipts.every((r) => r !== null && r.blockNumber <= heads.finalized);
      }, { timeout: 15_000, interval: 100 })
      .toBe(true);
    const other = createTransactionMonitor({
      store: s.app.services.stores.transactions,
      gateways: s.app.services.gateways,
      clock,
      isDevnet: s.app.services.transactions.isDevnet,
      owner: 'second-monitor',
      batchSize: 3,
    });
    let resolved = 0;
    for (let i = 0; i < 20; i++) {
      for (const id of ids) {
        const next = (await row(id)).next_check_at;
        if (next) clock.advanceTo(new Date(next.getTime() + 1));
      }
      const results = await Promise.all([s.app.services.monitor.runOnce(), other.runOnce(), s.app.services.monitor.runOnce()]);
      resolved += results.reduce((n, r) => n + r.resolved, 0);
      const open = (await Promise.all(ids.map(row))).filter((r) => r.status === 'submitted');
      if (open.length === 0) break;
    }
    for (const id of ids) {
      expect((await row(id)).status).toBe('confirmed');
      expect((await events(id)).filter((e) => e.type === 'rest.transaction.confirmed')).toHaveLength(1);
    }
    expect(resolved).toBeGreaterThanOrEqual(ids.length);
  });

  it('runs as a worker loop that resolves records by itself and stops cleanly', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '5555', chainId: EVM_CHAIN });
    const id = sent.body.transactionId as string;
    const logs: string[] = [];
    const log = (line: string) => () => void logs.push(line);
    // Keeps the clock ahead of every schedule so the worker finds the record due on each pass.
    const mover = setInterval(() => clock.advance(6_000), 20);
    const worker = startMonitorWorker({
      monitor: s.app.services.monitor,
      idleMs: 20,
      logger: { info: log('info'), warn: log('warn'), error: log('error'), debug: log('debug') },
    });
    try {
      await expect.poll(async () => (await row(id)).status, { timeout: 20_000, interval: 100 }).toBe('confirmed');
    } finally {
      await worker.stop();
      clearInterval(mover);
    }
    await worker.stop(); // idempotent
    expect(logs).not.toContain('error');
  });

});
