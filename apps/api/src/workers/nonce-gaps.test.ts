import { describe, expect, it } from 'vitest';
import { EVM_CHAIN, RECIPIENT, monitorDevnets, rpc, testDatabaseKinds } from '../testing/monitor-fixtures.ts';
import { createMetrics } from '../http/metrics.ts';
import { guardrail, policyProject, traces } from '../testing/policy-fixtures.ts';
import { startNonceGapWorker } from './nonce-gap-worker.ts';

/**
 * Stranded wallets: a nonce skipped by hand in the database leaves the wallet's transfers queued
 * behind it on the node; the repair finds the wallet, fills the nonce with a zero-value
 * self-transfer (past a policy that denies every transfer, without spend) and the queue confirms.
 */
describe.each(testDatabaseKinds)('stranded wallets and their gap fillers (local devnets) (%s)', (kind) => {
  const m = monitorDevnets(kind);
  const s = m.state;
  const { clock, resolveAll } = m;
  const chainNonce = async (address: string) => Number(await rpc(s.devnets.evmRpcUrl, 'eth_getTransactionCount', [address, 'latest']));

  async function strandedWallet() {
    const project = await policyProject(s.app);
    const wallet = await project.wallet('EVM');
    await s.devnets.faucet.fund({ type: 'EVM', address: wallet.address }, 'native', 10n ** 18n);
    // The gap, made by hand: the counter skips nonce 0, as an orphaned allocation of an older version did.
    await s.app.database.query(`INSERT INTO nonce_counters (wallet_id, chain_id, next_nonce) VALUES ($1::uuid, $2, 1)`, [wallet.id, String(EVM_CHAIN)]);
    const queued: string[] = [];
    for (const value of ['11', '12']) {
      const sent = await project.post(`/v1/wallets/${wallet.id}/transfer`, { to: RECIPIENT, value, chainId: EVM_CHAIN });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      queued.push(sent.body.transactionId as string);
    }
    return { project, wallet, queued };
  }

  it('finds a wallet stranded behind a skipped nonce, fills it outside policies and spend, and its queued transfers confirm', async () => {
    const { project, wallet, queued } = await strandedWallet();
    await project.apply(guardrail('freeze', 'EVM', [{ id: 'no-transfers', effect: 'deny', actions: ['transfer', 'sign_transaction'] }]));
    const denied = await project.post(`/v1/wallets/${wallet.id}/transfer`, { to: RECIPIENT, value: '13', chainId: EVM_CHAIN });
    expect(denied.status).toBe(403);
    const repair = s.app.services.nonceGaps;
    // Too young to judge: the queued transfers may be waiting for a reservation that is about to be reused.
    expect((await repair.findStranded()).filter((w) => w.walletId === wallet.id)).toEqual([]);
    clock.advance(61_000);
    const before = await traces(s.app, wallet.id);
    const run = await repair.runOnce();
    expect(run.stranded.filter((w) => w.walletId === wallet.id)).toEqual([
      expect.objectContaining({ walletId: wallet.id, chainId: String(EVM_CHAIN), chainNonce: 0, lowestUnresolved: 1, waiting: 2, missing: [0] }),
    ]);
    const fills = run.filled.filter((f) => f.walletId === wallet.id);
    expect(fills).toHaveLength(1);
    const filler = (await project.get(`/v1/wallets/${wallet.id}/transactions/${fills[0]!.transactionId}`)).body;
    expect(filler).toMatchObject({ intentKind: 'transfer', serviceInitiated: 'nonce_gap_filler', nonce: 0, value: '0', hash: fills[0]!.hash });
    expect(filler.to.toLowerCase()).toBe(wallet.address.toLowerCase());
    const after = await traces(s.app, wallet.id);
    expect(after.signatures).toBe(before.signatures + 1);
    expect(after.reservations).toBe(before.reservations); // no spend held or charged
    const audit = await s.app.database.query<{ action: string; api_key_id: string | null }>(
      `SELECT action, api_key_id FROM audit_log WHERE wallet_id = $1 ORDER BY id DESC LIMIT 1`,
      [wallet.id],
    );
    expect(audit[0]).toEqual({ action: 'wallet.sign.nonce-gap-fill', api_key_id: project.apiKeyId });
    const [event] = await s.app.database.query<{ data: Record<string, unknown> }>(`SELECT data FROM events WHERE type = 'wallet.nonce_gap_filled' AND transaction_id = $1`, [fills[0]!.transactionId]);
    expect(event!.data).toMatchObject({ walletId: wallet.id, chainId: String(EVM_CHAIN), nonce: 0, transactionId: fills[0]!.transactionId, txHash: fills[0]!.hash, waitingTransactions: 2 });

    await resolveAll([fills[0]!.transactionId, ...queued]);
    for (const id of [fills[0]!.transactionId, ...queued]) expect((await project.get(`/v1/wallets/${wallet.id}/transactions/${id}`)).body.status).toBe('confirmed');
    expect(await chainNonce(wallet.address)).toBe(3);
    expect((await repair.runOnce()).stranded.filter((w) => w.walletId === wallet.id)).toEqual([]);
  });

  it('leaves a nonce that a live reservation holds, and fills nothing twice', async () => {
    const { wallet, queued } = await strandedWallet();
    const repair = s.app.services.nonceGaps;
    const store = s.app.services.stores.transactions;
    // A request in another process is signing with nonce 0 right now: nothing to fill.
    const inFlight = await s.app.database.query(
      `INSERT INTO nonce_reservations (wallet_id, chain_id, nonce, reservation_id, expires_at) VALUES ($1::uuid, $2, 0, gen_random_uuid(), now() + interval '1 hour') RETURNING 1`,
      [wallet.id, String(EVM_CHAIN)],
    );
    expect(inFlight).toHaveLength(1);
    clock.advance(61_000);
    expect((await repair.runOnce()).stranded.filter((w) => w.walletId === wallet.id)).toEqual([]);
    // Its process died: the reservation lapses, the repair fills the nonce, once.
    await s.app.database.query(`UPDATE nonce_reservations SET expires_at = now() - interval '1 second' WHERE wallet_id = $1::uuid`, [wallet.id]);
    const [first, second] = await Promise.all([repair.repairWallet(wallet.id), repair.repairWallet(wallet.id)]);
    expect([...first.filled, ...second.filled]).toHaveLength(1);
    await resolveAll([...first.filled, ...second.filled].map((f) => f.transactionId).concat(queued));
    expect(await chainNonce(wallet.address)).toBe(3);
    // The next transfer continues after the queue.
    expect((await store.allocateNonce(wallet.id, String(EVM_CHAIN), 3, 1_000)).nonce).toBe(3);
  });

  it('runs as a worker: logs the stranded wallet, counts the filler in the metrics, and the queue lands', async () => {
    const { wallet } = await strandedWallet();
    const warnings: Record<string, unknown>[] = [];
    const logger = { warn: (fields: Record<string, unknown>) => void warnings.push(fields), error: () => undefined, debug: () => undefined, info: () => undefined };
    const metrics = createMetrics();
    clock.advance(61_000);
    const worker = startNonceGapWorker({ repair: s.app.services.nonceGaps, leases: s.app.services.stores.workerLeases, owner: 'gap-test', intervalMs: 100, metrics, logger: logger as never });
    try {
      await expect.poll(() => chainNonce(wallet.address), { timeout: 20_000 }).toBe(3);
    } finally {
      await worker.stop();
    }
    expect(warnings.find((w) => w.walletId === wallet.id)).toMatchObject({ chainId: String(EVM_CHAIN), chainNonce: 0, missingNonces: [0], waitingTransactions: 2 });
    const text = await metrics.registry.metrics();
    expect(text).toMatch(/^wallet_nonce_gap_fills_total [1-9]/m);
    expect(text).toMatch(/^wallet_stranded_wallets \d+/m);
  });

  it('answers a malformed wallet id of the operator repair with a field error', async () => {
    await expect(s.app.services.nonceGaps.repairWallet('not-a-uuid')).rejects.toMatchObject({ status: 400 });
  });
});
