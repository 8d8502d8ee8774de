import { getBase58Decoder, getTransactionDecoder, type Address } from '@solana/kit';
import { keccak256, type Hex } from 'viem';
import { REBROADCAST_AFTER_MS } from '@wallet/domain/transactions/monitor-rebroadcast.ts';
import { transactionRecordFixture } from '@wallet/domain/transactions/testing.ts';
import { describe, expect, it } from 'vitest';
import { EVM_CHAIN, RECIPIENT, monitorDevnets, rpc, testDatabaseKinds } from '../testing/monitor-fixtures.ts';

/**
 * Durable broadcast: the monitor sends the stored bytes again when the node does not know a
 * record's transaction (dropped from the pool, or never sent because the process died after the
 * record's commit), and the record resolves with its original hash.
 */
describe.each(testDatabaseKinds)('the monitor re-sends what the node does not know (local devnets) (%s)', (kind) => {
  const m = monitorDevnets(kind);
  const s = m.state;
  const { clock, post, wallet, fund, record, row, events, runDue, resolveAll, mine, advanceSlots } = m;
  const evmRpc = () => s.devnets.evmRpcUrl;

  /** A `pending` record of `walletId` holding signed bytes that never reached the node (its process died before the send). */
  async function unsentRecord(walletId: string, fields: Parameters<typeof transactionRecordFixture>[0]) {
    const [owner] = await s.app.database.query<{ project_id: string; partner_id: string; address: string }>(
      'SELECT w.project_id, p.partner_id, w.address FROM wallets w JOIN projects p ON p.id = w.project_id WHERE w.id = $1',
      [walletId],
    );
    const now = clock.now();
    return s.app.services.stores.transactions.create(
      transactionRecordFixture({
        projectId: owner!.project_id,
        partnerId: owner!.partner_id,
        walletId,
        fromAddress: owner!.address,
        status: 'pending',
        submittedAt: null,
        createdAt: now,
        nextCheckAt: now,
        ...fields,
      }),
      [],
    );
  }

  it('sends the stored bytes again when the pool dropped a submitted transaction, and confirms it under its original hash', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    try {
      const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '777', chainId: EVM_CHAIN });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const id = sent.body.transactionId as string;
      await runDue([id]);
      expect((await row(id)).monitoring.rebroadcasts).toBeUndefined(); // in the pool: nothing to send
      await rpc(evmRpc(), 'anvil_dropTransaction', [sent.body.txHash]);
      expect(await rpc(evmRpc(), 'eth_getTransactionByHash', [sent.body.txHash])).toBeNull();
      await runDue([id]);
      expect((await row(id)).monitoring.rebroadcasts).toBeUndefined(); // younger than REBROADCAST_AFTER_MS: not looked at yet
      clock.advance(REBROADCAST_AFTER_MS);
      await runDue([id]);
      expect((await row(id)).monitoring).toMatchObject({ rebroadcasts: 1, lastError: null });
      expect(await rpc(evmRpc(), 'eth_getTransactionByHash', [sent.body.txHash])).toMatchObject({ hash: sent.body.txHash });
      await mine(3);
      await resolveAll([id]);
      expect(await record(w.id, id)).toMatchObject({ status: 'confirmed', hash: sent.body.txHash });
      expect((await events(id)).filter((e) => e.type === 'rest.transaction.confirmed')).toHaveLength(1);
      expect(Number(await rpc(evmRpc(), 'eth_getTransactionCount', [w.address, 'latest']))).toBe(1);
    } finally {
      s.blocks.resume();
    }
  });

  it('sends a pending record that was never sent once it is past the grace, making it submitted, then confirmed', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const fees = { maxFeePerGas: '20000000000', maxPriorityFeePerGas: '1000000000', gasLimit: '21000' };
    const signed = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: { to: RECIPIENT, value: '55', chainId: EVM_CHAIN, nonce: 0, ...fees } });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const bytes = signed.body.signedTransaction as Hex;
    const hash = keccak256(bytes);
    await s.blocks.pause();
    const created = await unsentRecord(w.id, { chainId: String(EVM_CHAIN), nonce: 0, hash, signedTransaction: bytes, to: RECIPIENT, value: '55' });
    try {
      await runDue([created.id]);
      // Too young: the request that wrote it may be sending it right now.
      expect((await row(created.id)).status).toBe('pending');
      expect(await rpc(evmRpc(), 'eth_getTransactionByHash', [hash])).toBeNull();
      clock.advance(REBROADCAST_AFTER_MS);
      await runDue([created.id]);
      expect((await row(created.id)).status).toBe('submitted');
      expect((await events(hash)).map((e) => e.type)).toEqual(['send.broadcasted']);
      await mine(3);
    } finally {
      s.blocks.resume();
    }
    await resolveAll([created.id]);
    expect(await record(w.id, created.id)).toMatchObject({ status: 'confirmed', hash });
  });

  it('fails a pending record the node refuses when it is sent again, and gives its nonce back', async () => {
    const w = await wallet('EVM'); // never funded: the node refuses what it cannot pay for
    const store = s.app.services.stores.transactions;
    const reserved = await store.allocateNonce(w.id, String(EVM_CHAIN), 0, 60_000);
    const fees = { maxFeePerGas: '20000000000', maxPriorityFeePerGas: '1000000000', gasLimit: '21000' };
    const signed = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: { to: RECIPIENT, value: '66', chainId: EVM_CHAIN, nonce: reserved.nonce, ...fees } });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const bytes = signed.body.signedTransaction as Hex;
    const [owner] = await s.app.database.query<{ project_id: string; partner_id: string }>(
      'SELECT w.project_id, p.partner_id FROM wallets w JOIN projects p ON p.id = w.project_id WHERE w.id = $1',
      [w.id],
    );
    const now = clock.now();
    const created = await store.create(
      transactionRecordFixture({
        projectId: owner!.project_id,
        partnerId: owner!.partner_id,
        walletId: w.id,
        fromAddress: w.address,
        status: 'pending',
        submittedAt: null,
        createdAt: now,
        nextCheckAt: now,
        nonce: reserved.nonce,
        hash: keccak256(bytes),
        signedTransaction: bytes,
      }),
      [],
      reserved.reservationId,
    );
    clock.advance(REBROADCAST_AFTER_MS);
    await runDue([created.id]);
    expect(await record(w.id, created.id)).toMatchObject({ status: 'failed', failureStage: 'broadcast', failureCode: 'INSUFFICIENT_NATIVE_BALANCE' });
    expect((await events(created.id)).map((e) => e.type)).toEqual(['rest.transaction.failed']);
    expect((await row(created.id)).next_check_at).toBeNull();
    // Its nonce holds nothing up: the next transfer of the wallet takes it.
    expect((await store.allocateNonce(w.id, String(EVM_CHAIN), 0, 60_000)).nonce).toBe(reserved.nonce);
  });

  it('sends a Solana transaction that never reached the cluster while its blockhash is valid', async () => {
    const w = await wallet('SOLANA');
    await fund(w.id, '1');
    const gateway = s.devnets.gateways.solana('SOLANA_DEVNET')!;
    const { blockhash, lastValidBlockHeight } = await gateway.getLatestBlockhash();
    const built = await gateway.buildTransfer({ from: w.address, to: (await wallet('SOLANA')).address, amount: 1_000_000n, recentBlockhash: blockhash });
    const signed = await post(`/v1/wallets/${w.id}/sign-transaction`, { transaction: built.transaction, network: 'SOLANA_DEVNET' });
    expect(signed.status, JSON.stringify(signed.body)).toBe(200);
    const bytes = signed.body.signedTransaction as string;
    const decoded = getTransactionDecoder().decode(Buffer.from(bytes, 'base64'));
    const signature = getBase58Decoder().decode(decoded.signatures[w.address as Address]!);
    await s.slots.pause();
    try {
      const created = await unsentRecord(w.id, {
        walletType: 'SOLANA',
        chainId: null,
        network: 'SOLANA_DEVNET',
        nonce: null,
        hash: signature,
        signedTransaction: bytes,
        recentBlockhash: blockhash,
        lastValidBlockHeight,
      });
      expect((await gateway.getSignatureStatuses([signature]))[0]).toBeNull();
      clock.advance(REBROADCAST_AFTER_MS);
      await runDue([created.id]);
      expect((await row(created.id)).status).toBe('submitted');
      expect((await gateway.getSignatureStatuses([signature]))[0]).not.toBeNull();
      await advanceSlots(2);
      await runDue([created.id]);
      expect(await record(w.id, created.id)).toMatchObject({ status: 'confirmed', hash: signature });
    } finally {
      s.slots.resume();
    }
  });
});
