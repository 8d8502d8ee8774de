import { deploySponsorshipContracts } from '@wallet/chains/devnets';
import { parseTransaction, type Hex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVM_CHAIN, RECIPIENT, monitorDevnets, rpc, testDatabaseKinds } from '../testing/monitor-fixtures.ts';

/**
 * Managed automatic retry of a batch of calls, on anvil with blocks mined by hand and the base fee
 * raised by hand: the first batch of a wallet carries its delegation, and its fee replacement
 * carries the same one (same nonce, same authorization), so whichever lands delegates the wallet.
 */
describe.each(testDatabaseKinds)('managed automatic retry of a batch of calls (%s)', (kind) => {
  const m = monitorDevnets(kind);
  const s = m.state;
  const { post, wallet, fund, record, runDue, resolveAll, mine } = m;
  const hex = (n: bigint) => `0x${n.toString(16)}`;

  beforeAll(async () => {
    // Simple7702Account (with the rest of the sponsorship stack) at its canonical address.
    await deploySponsorshipContracts(s.devnets.evmRpcUrl, { sponsorAddress: RECIPIENT, depositWei: 0n });
  });

  it('replaces a batch priced under the new base fee with one carrying the same delegation; the replacement confirms it', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await s.blocks.pause();
    let id: string;
    let hash: string;
    let original: ReturnType<typeof parseTransaction>;
    try {
      const sent = await post(`/v1/wallets/${w.id}/calls`, { chainId: EVM_CHAIN, calls: [{ to: RECIPIENT, value: '1000' }, { to: RECIPIENT, value: '2000' }] });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      expect(sent.body.autoRetry).toMatchObject({ enabled: true });
      id = sent.body.transactionId as string;
      hash = sent.body.txHash as string;
      original = parseTransaction(sent.body.signedTransaction as Hex);
      expect(original.type).toBe('eip7702');
      await runDue([id]);
      await rpc(s.devnets.evmRpcUrl, 'anvil_setNextBlockBaseFeePerGas', [hex(original.maxFeePerGas! * 3n)]);
      await mine(3);
      await runDue([id]);
    } finally {
      s.blocks.resume();
    }
    const [first, second] = (await record(w.id, id)).autoRetry.attempts;
    expect(first.hash).toBe(hash!);
    const stored = (await s.app.database.query<{ signed_transaction: Hex }>('SELECT signed_transaction FROM transaction_attempts WHERE hash = $1', [second.hash]))[0]!.signed_transaction;
    const replacement = parseTransaction(stored);
    expect(replacement).toMatchObject({ type: 'eip7702', nonce: original.nonce, to: original.to, data: original.data, gas: original.gas });
    expect(replacement.authorizationList).toEqual(original.authorizationList);
    expect(replacement.maxFeePerGas!).toBeGreaterThan(original.maxFeePerGas!);

    await resolveAll([id]);
    expect(await record(w.id, id)).toMatchObject({ status: 'confirmed', intentKind: 'calls', monitoring: { winningHash: second.hash } });
    expect(await rpc(s.devnets.evmRpcUrl, 'eth_getCode', [w.address, 'latest'])).toMatch(/^0xef0100/);
    expect(BigInt(await rpc(s.devnets.evmRpcUrl, 'eth_getTransactionCount', [w.address, 'latest']))).toBe(2n);
  });
});

