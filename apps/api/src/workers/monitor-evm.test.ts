import { createTransactionMonitor } from '@wallet/domain';
import { describe, expect, it } from 'vitest';
import { EVM_CHAIN, RECIPIENT, monitorDevnets, rpc, testDatabaseKinds } from '../testing/monitor-fixtures.ts';

/** The monitor on the EVM devnet: finality, evidence-driven pickup, reorganisations, reverts. */
describe.each(testDatabaseKinds)('the transaction monitor on EVM (local devnet) (%s)', (kind) => {
  const m = monitorDevnets(kind);
  const s = m.state;
  const { clock, post, wallet, fund, record, row, events, runDue, resolveAll, mine, advanceSlots } = m;

  it('confirms a native EVM transfer only once the finalized head passed its block, with one confirmed event', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    try {
      const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '1000', chainId: EVM_CHAIN });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const id = sent.body.transactionId as string;
      await runDue([id]); // in the mempool only
      expect(await record(w.id, id)).toMatchObject({ status: 'submitted', blockNumber: null });
      await mine(); // included: one confirmation, finalized head two blocks behind
      const included = await s.devnets.gateways.evm(EVM_CHAIN)!.getReceipts([sent.body.txHash]);
      expect(included[0]).not.toBeNull();
      await runDue([id]);
      expect(await record(w.id, id)).toMatchObject({ status: 'submitted' });
      await mine(); // two confirmations, still above the finalized head
      expect((await s.devnets.gateways.evm(EVM_CHAIN)!.getHeads()).finalized).toBeLessThan(included[0]!.blockNumber);
      await runDue([id]);
      expect(await record(w.id, id)).toMatchObject({ status: 'submitted', monitoring: { state: 'active' } });
      expect((await row(id)).consecutive_errors).toBe(0);
      await mine(); // the finalized head reaches the block
      const result = await runDue([id]);
      expect(result.resolved).toBeGreaterThanOrEqual(1);
      const done = await record(w.id, id);
      expect(done).toMatchObject({
        status: 'confirmed',
        hash: sent.body.txHash,
        blockNumber: included[0]!.blockNumber.toString(),
        blockHash: included[0]!.blockHash,
        failureStage: null,
      });
      expect(done.resolvedAt).toBeTruthy();
      const rows = await events(id);
      const confirmed = rows.filter((e) => e.type === 'rest.transaction.confirmed');
      expect(confirmed).toHaveLength(1);
      expect(Object.keys(confirmed[0]!.data).sort()).toEqual(
        ['transactionId', 'walletId', 'partnerId', 'intentKind', 'type', 'hash', 'blockNumber', 'blockHash', 'resolvedAt'].sort(),
      );
      expect(confirmed[0]!.data).toMatchObject({
        transactionId: id,
        walletId: w.id,
        intentKind: 'transfer',
        type: 'EVM',
        hash: sent.body.txHash,
        blockNumber: included[0]!.blockNumber.toString(),
        blockHash: included[0]!.blockHash,
      });
      expect(rows.some((e) => e.type === 'rest.transaction.failed')).toBe(false);
      const send = await events(sent.body.txHash);
      expect(send.map((e) => e.type).sort()).toEqual(['send.broadcasted', 'send.confirmed']);
      // Resolved records are never checked again.
      expect((await row(id)).next_check_at).toBeNull();
      const checks = (await row(id)).check_count;
      await runDue([]);
      expect((await row(id)).check_count).toBe(checks);
    } finally {
      s.blocks.resume();
    }
  });

  it('checks a record as soon as finality covers its evidence, not at its next scheduled check, and never earlier', async () => {
    const evmWallet = await wallet('EVM');
    const solWallet = await wallet('SOLANA');
    await fund(evmWallet.id, '1');
    await fund(solWallet.id, '1');
    // Reads the heads on every run, as the worker's runs would every tick.
    const eager = createTransactionMonitor({
      store: s.app.services.stores.transactions,
      gateways: s.app.services.gateways,
      clock,
      isDevnet: s.app.services.transactions.isDevnet,
      owner: 'evidence-monitor',
      headsMaxAgeMs: 0,
    });
    const evidence = async (id: string) =>
      (await s.app.database.query<{ evidence_block: string | null; check_count: number; next_check_at: Date | null; status: string }>(
        'SELECT evidence_block::text, check_count, next_check_at, status FROM transaction_records WHERE id = $1',
        [id],
      ))[0]!;
    await s.blocks.pause();
    await s.slots.pause();
    try {
      const evmSent = await post(`/v1/wallets/${evmWallet.id}/transfer`, { to: RECIPIENT, value: '4321', chainId: EVM_CHAIN });
      const solSent = await post(`/v1/wallets/${solWallet.id}/transfer`, { to: (await wallet('SOLANA')).address, value: '1000000', network: 'SOLANA_DEVNET' });
      expect(evmSent.status, JSON.stringify(evmSent.body)).toBe(200);
      expect(solSent.status, JSON.stringify(solSent.body)).toBe(200);
      const evmId = evmSent.body.transactionId as string;
      const solId = solSent.body.transactionId as string;
      await mine(); // included, one confirmation; the Solana transfer is `processed`
      const [receipt] = await s.devnets.gateways.evm(EVM_CHAIN)!.getReceipts([evmSent.body.txHash]);
      const [status] = await s.devnets.gateways.solana('SOLANA_DEVNET')!.getSignatureStatuses([solSent.body.txHash]);
      await runDue([evmId, solId], eager);
      const seen = [await evidence(evmId), await evidence(solId)];
      expect(seen.map((r) => r.evidence_block)).toEqual([receipt!.blockNumber.toString(), status!.slot.toString()]);
      expect(seen.map((r) => r.status)).toEqual(['submitted', 'submitted']);
      const scheduled = Math.min(...seen.map((r) => r.next_check_at!.getTime()));

      // Two confirmations / `confirmed`, but not final: not leased (not due), not resolved.
      await mine();
      await advanceSlots(1);
      expect((await s.devnets.gateways.evm(EVM_CHAIN)!.getHeads()).finalized).toBeLessThan(receipt!.blockNumber);
      await eager.runOnce();
      for (const [id, before] of [[evmId, seen[0]!], [solId, seen[1]!]] as const) {
        const now = await evidence(id);
        expect(now.status).toBe('submitted');
        expect(now.check_count).toBe(before.check_count);
      }

      // Final: both resolve on the next run, well before their next scheduled check.
      await mine();
      await advanceSlots(1);
      const result = await eager.runOnce();
      expect(clock.now().getTime()).toBeLessThan(scheduled);
      expect(result.resolved).toBeGreaterThanOrEqual(2);
      expect(await record(evmWallet.id, evmId)).toMatchObject({ status: 'confirmed', blockNumber: receipt!.blockNumber.toString(), blockHash: receipt!.blockHash });
      expect(await record(solWallet.id, solId)).toMatchObject({ status: 'confirmed', blockNumber: status!.slot.toString() });
      expect((await evidence(evmId)).evidence_block).toBeNull();
      expect((await events(evmId)).filter((e) => e.type === 'rest.transaction.confirmed')).toHaveLength(1);
      expect((await events(solId)).filter((e) => e.type === 'rest.transaction.confirmed')).toHaveLength(1);
    } finally {
      s.blocks.resume();
      s.slots.resume();
    }
  });

  it('never resolves on a receipt whose block was reorganised away', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const gateway = s.devnets.gateways.evm(EVM_CHAIN)!;
    await s.blocks.pause();
    try {
      const snapshot = await rpc(s.devnets.evmRpcUrl, 'evm_snapshot');
      const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '777', chainId: EVM_CHAIN });
      const id = sent.body.transactionId as string;
      await mine();
      const [seen] = await gateway.getReceipts([sent.body.txHash]);
      expect(seen).not.toBeNull();
      await runDue([id]); // sees the receipt (block not final) and keeps it
      expect((await row(id)).monitoring.receipt).toMatchObject({ blockNumber: seen!.blockNumber.toString(), blockHash: seen!.blockHash });
      // The block is replaced: the chain goes back before it and grows past it again.
      await rpc(s.devnets.evmRpcUrl, 'evm_revert', [snapshot]);
      await mine(4);
      expect((await gateway.getHeads()).finalized).toBeGreaterThanOrEqual(seen!.blockNumber);
      const [canonicalHash] = await gateway.getBlockHashes([seen!.blockNumber]);
      expect(canonicalHash).not.toBe(seen!.blockHash);
      const result = await runDue([id]);
      expect(result.resolved).toBe(0);
      expect(await record(w.id, id)).toMatchObject({ status: 'submitted', blockNumber: null });
      expect((await row(id)).monitoring.receipt).toBeUndefined(); // looked up afresh next time
      await mine(3);
      await runDue([id]);
      await mine(3);
      await runDue([id]);
      const after = await record(w.id, id);
      const [current] = await gateway.getReceipts([sent.body.txHash]);
      if (!current) expect(after.status).toBe('submitted');
      else expect(after).toMatchObject({ status: 'confirmed', blockHash: current.blockHash });
      expect(after.blockHash).not.toBe(seen!.blockHash);
    } finally {
      s.blocks.resume();
    }
  });

  it('marks an on-chain ERC-20 revert `reverted` with its block and no failureStage', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    // An explicit gas limit skips estimation, so the transfer of tokens the wallet lacks reaches the chain.
    const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '5000000', chainId: EVM_CHAIN, tokenAddress: s.usdc, gasLimit: '100000' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const id = sent.body.transactionId as string;
    await resolveAll([id]);
    const receipt = (await s.devnets.gateways.evm(EVM_CHAIN)!.getReceipts([sent.body.txHash]))[0]!;
    expect(receipt.status).toBe('reverted');
    const done = await record(w.id, id);
    expect(done).toMatchObject({ status: 'reverted', blockNumber: receipt.blockNumber.toString(), blockHash: receipt.blockHash, failureMessage: 'execution reverted' });
    expect(done.failureStage ?? null).toBeNull();
    const failed = (await events(id)).filter((e) => e.type === 'rest.transaction.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]!.data).toMatchObject({ transactionId: id, status: 'reverted', hash: sent.body.txHash, failureMessage: 'execution reverted' });
    expect(failed[0]!.data).not.toHaveProperty('failureStage');
    expect((await events(sent.body.txHash)).map((e) => e.type)).toContain('send.failed');
  });

});
