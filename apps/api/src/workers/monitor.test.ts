import { randomBytes, randomUUID } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { createChainRegistry } from '@wallet/chains';
import { startRpcFaultProxy, type RpcFaultMode, type RpcFaultProxy } from '@wallet/chains/testing';
import { testDatabaseKinds } from '@wallet/db';
import { createTransactionMonitor, type Clock, type MonitorRunResult } from '@wallet/domain';
import { parseTransaction, type Hex } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalDevnets, type LocalDevnets } from '../local/devnets.ts';
import { startTestApp, type TestApp } from '../testing/harness.ts';
import { startMonitorWorker } from './monitor-worker.ts';

const EVM_CHAIN = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const MIN = 60_000;

async function rpc(url: string, method: string, params: unknown[] = []): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const body = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (body.error) throw new Error(`${method}: ${body.error.message}`);
  return body.result;
}

/** A clock the test moves forward (the service and the monitor read time only through it). */
function movableClock() {
  let offset = 0;
  const clock: Clock & { advanceTo(at: Date): void; advance(ms: number): void } = {
    now: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms;
    },
    advanceTo(at) {
      const gap = at.getTime() - clock.now().getTime();
      if (gap > 0) offset += gap;
    },
  };
  return clock;
}

/** Produces blocks / slots on a timer that a test can pause to step the chain by hand. */
function ticker(periodMs: number, tick: () => Promise<unknown>) {
  let paused = false;
  let inFlight: Promise<unknown> = Promise.resolve();
  const timer = setInterval(() => {
    if (!paused) inFlight = tick().catch(() => undefined);
  }, periodMs);
  return {
    async pause() {
      paused = true;
      await inFlight;
    },
    resume() {
      paused = false;
    },
    stop() {
      clearInterval(timer);
    },
  };
}

interface Harness {
  app: TestApp;
  clock: ReturnType<typeof movableClock>;
  key: string;
}

function helpers(h: () => Harness) {
  const post = (path: string, body: unknown) => h().app.request('POST', path, { key: h().key, body });
  const wallet = async (type: 'EVM' | 'SOLANA') =>
    (await h().app.request('POST', '/v1/wallets', { key: h().key, body: { type, userIdentifier: `mon-${type}-${Math.random()}`, userIdentifierType: 'CUSTOM_ID' } })).body as {
      id: string;
      address: string;
    };
  const fund = async (walletId: string, amount: string, token = 'native') => {
    const response = await post('/v1/local/faucet', { walletId, amount, token });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  };
  const record = async (walletId: string, transactionId: string) => (await h().app.request('GET', `/v1/wallets/${walletId}/transactions/${transactionId}`, { key: h().key })).body;
  const row = async (id: string) =>
    (await h().app.database.query<{ status: string; consecutive_errors: number; next_check_at: Date | null; monitoring: any; check_count: number }>(
      'SELECT status, consecutive_errors, next_check_at, monitoring, check_count FROM transaction_records WHERE id = $1',
      [id],
    ))[0]!;
  const events = async (transactionOrHash: string) =>
    (await h().app.database.query<{ type: string; data: any }>(
      `SELECT type, data FROM events WHERE data->>'transactionId' = $1 OR data->>'txHash' = $1 ORDER BY created_at, id`,
      [transactionOrHash],
    ));
  /** Moves the clock to when every given record is due, then runs one monitor pass. */
  const runDue = async (ids: string[], monitor: { runOnce(): Promise<MonitorRunResult> } = h().app.services.monitor) => {
    for (const id of ids) {
      const next = (await row(id)).next_check_at;
      if (next) h().clock.advanceTo(new Date(next.getTime() + 1));
    }
    return monitor.runOnce();
  };
  /** Runs the monitor until the records are no longer pending/submitted (or gives up). */
  const resolveAll = async (ids: string[], maxRuns = 80) => {
    for (let i = 0; i < maxRuns; i++) {
      const open = [];
      for (const id of ids) if (['pending', 'submitted'].includes((await row(id)).status)) open.push(id);
      if (open.length === 0) return;
      await runDue(open);
      await new Promise((r) => setTimeout(r, 100));
    }
  };
  return { post, wallet, fund, record, row, events, runDue, resolveAll };
}

describe.each(testDatabaseKinds)('the transaction monitor on the local devnets (%s)', (kind) => {
  let devnets: LocalDevnets;
  let app: TestApp;
  let key: string;
  let usdc: string;
  const clock = movableClock();
  let blocks: ReturnType<typeof ticker>;
  let slots: ReturnType<typeof ticker>;
  const { post, wallet, fund, record, row, events, runDue, resolveAll } = helpers(() => ({ app, clock, key }));
  const mine = async (n = 1) => {
    for (let i = 0; i < n; i++) await rpc(devnets.evmRpcUrl, 'evm_mine');
  };
  const advanceSlots = (n = 1) => rpc(devnets.solanaRpcUrl, 'devnet_advanceSlots', [n]);

  beforeAll(async () => {
    // The chains move only when this test says so: blocks and slots come from tickers it can pause.
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 3_600_000 });
    await rpc(devnets.evmRpcUrl, 'evm_setIntervalMining', [0]);
    blocks = ticker(150, () => rpc(devnets.evmRpcUrl, 'evm_mine'));
    slots = ticker(50, () => rpc(devnets.solanaRpcUrl, 'devnet_advanceSlots', [1]));
    app = await startTestApp(kind, { chains: devnets, clock });
    key = (await app.createKey()).apiKey;
    usdc = (await app.request('GET', '/v1/chains', { key })).body.chains[0].usdc.address;
  });
  afterAll(async () => {
    blocks?.stop();
    slots?.stop();
    await app?.close();
    await devnets?.stop();
  });

  it('confirms a native EVM transfer only once the finalized head passed its block, with one confirmed event', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await blocks.pause();
    try {
      const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '1000', chainId: EVM_CHAIN });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const id = sent.body.transactionId as string;
      await runDue([id]); // in the mempool only
      expect(await record(w.id, id)).toMatchObject({ status: 'submitted', blockNumber: null });
      await mine(); // included: one confirmation, finalized head two blocks behind
      const included = await devnets.gateways.evm(EVM_CHAIN)!.getReceipts([sent.body.txHash]);
      expect(included[0]).not.toBeNull();
      await runDue([id]);
      expect(await record(w.id, id)).toMatchObject({ status: 'submitted' });
      await mine(); // two confirmations, still above the finalized head
      expect((await devnets.gateways.evm(EVM_CHAIN)!.getHeads()).finalized).toBeLessThan(included[0]!.blockNumber);
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
      blocks.resume();
    }
  });

  it('checks a record as soon as finality covers its evidence, not at its next scheduled check, and never earlier', async () => {
    const evmWallet = await wallet('EVM');
    const solWallet = await wallet('SOLANA');
    await fund(evmWallet.id, '1');
    await fund(solWallet.id, '1');
    // Reads the heads on every run, as the worker's runs would every tick.
    const eager = createTransactionMonitor({
      store: app.services.stores.transactions,
      gateways: app.services.gateways,
      clock,
      isDevnet: app.services.transactions.isDevnet,
      owner: 'evidence-monitor',
      headsMaxAgeMs: 0,
    });
    const evidence = async (id: string) =>
      (await app.database.query<{ evidence_block: string | null; check_count: number; next_check_at: Date | null; status: string }>(
        'SELECT evidence_block::text, check_count, next_check_at, status FROM transaction_records WHERE id = $1',
        [id],
      ))[0]!;
    await blocks.pause();
    await slots.pause();
    try {
      const evmSent = await post(`/v1/wallets/${evmWallet.id}/transfer`, { to: RECIPIENT, value: '4321', chainId: EVM_CHAIN });
      const solSent = await post(`/v1/wallets/${solWallet.id}/transfer`, { to: (await wallet('SOLANA')).address, value: '1000000', network: 'SOLANA_DEVNET' });
      expect(evmSent.status, JSON.stringify(evmSent.body)).toBe(200);
      expect(solSent.status, JSON.stringify(solSent.body)).toBe(200);
      const evmId = evmSent.body.transactionId as string;
      const solId = solSent.body.transactionId as string;
      await mine(); // included, one confirmation; the Solana transfer is `processed`
      const [receipt] = await devnets.gateways.evm(EVM_CHAIN)!.getReceipts([evmSent.body.txHash]);
      const [status] = await devnets.gateways.solana('SOLANA_DEVNET')!.getSignatureStatuses([solSent.body.txHash]);
      await runDue([evmId, solId], eager);
      const seen = [await evidence(evmId), await evidence(solId)];
      expect(seen.map((r) => r.evidence_block)).toEqual([receipt!.blockNumber.toString(), status!.slot.toString()]);
      expect(seen.map((r) => r.status)).toEqual(['submitted', 'submitted']);
      const scheduled = Math.min(...seen.map((r) => r.next_check_at!.getTime()));

      // Two confirmations / `confirmed`, but not final: not leased (not due), not resolved.
      await mine();
      await advanceSlots(1);
      expect((await devnets.gateways.evm(EVM_CHAIN)!.getHeads()).finalized).toBeLessThan(receipt!.blockNumber);
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
      blocks.resume();
      slots.resume();
    }
  });

  it('never resolves on a receipt whose block was reorganised away', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    const gateway = devnets.gateways.evm(EVM_CHAIN)!;
    await blocks.pause();
    try {
      const snapshot = await rpc(devnets.evmRpcUrl, 'evm_snapshot');
      const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '777', chainId: EVM_CHAIN });
      const id = sent.body.transactionId as string;
      await mine();
      const [seen] = await gateway.getReceipts([sent.body.txHash]);
      expect(seen).not.toBeNull();
      await runDue([id]); // sees the receipt (block not final) and keeps it
      expect((await row(id)).monitoring.receipt).toMatchObject({ blockNumber: seen!.blockNumber.toString(), blockHash: seen!.blockHash });
      // The block is replaced: the chain goes back before it and grows past it again.
      await rpc(devnets.evmRpcUrl, 'evm_revert', [snapshot]);
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
      blocks.resume();
    }
  });

  it('marks an on-chain ERC-20 revert `reverted` with its block and no failureStage', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    // An explicit gas limit skips estimation, so the transfer of tokens the wallet lacks reaches the chain.
    const sent = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '5000000', chainId: EVM_CHAIN, tokenAddress: usdc, gasLimit: '100000' });
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const id = sent.body.transactionId as string;
    await resolveAll([id]);
    const receipt = (await devnets.gateways.evm(EVM_CHAIN)!.getReceipts([sent.body.txHash]))[0]!;
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

  it('confirms a SOL transfer only at finalized, with the slot as block number', async () => {
    const w = await wallet('SOLANA');
    await fund(w.id, '1');
    const to = (await wallet('SOLANA')).address;
    await slots.pause();
    try {
      const sent = await post(`/v1/wallets/${w.id}/transfer`, { to, value: '1000000', network: 'SOLANA_DEVNET' });
      expect(sent.status, JSON.stringify(sent.body)).toBe(200);
      const id = sent.body.transactionId as string;
      const [status] = await devnets.gateways.solana('SOLANA_DEVNET')!.getSignatureStatuses([sent.body.txHash]);
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
      slots.resume();
    }
  });

  it('detects a same-nonce replacement: the original is failed REPLACED with the winning hash', async () => {
    const w = await wallet('EVM');
    await fund(w.id, '1');
    await blocks.pause();
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
      blocks.resume();
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
    await blocks.pause();
    let original: { body: any };
    let cancel: { body: any; status: number };
    try {
      original = await post(`/v1/wallets/${w.id}/transfer`, { to: RECIPIENT, value: '3333', chainId: EVM_CHAIN });
      cancel = await post(`/v1/wallets/${w.id}/transactions/${original.body.transactionId}/cancel`, {});
      expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    } finally {
      blocks.resume();
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
    await app.database.query(`UPDATE transaction_records SET status = 'pending', submitted_at = NULL WHERE id = $1`, [id]);
    await app.database.query(`DELETE FROM events WHERE type = 'send.broadcasted' AND data->>'txHash' = $1`, [sent.body.txHash]);
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
    const gateway = devnets.gateways.evm(EVM_CHAIN)!;
    await expect
      .poll(async () => {
        const [receipts, heads] = await Promise.all([gateway.getReceipts(sent.map((s) => s.txHash as Hex)), gateway.getHeads()]);
        return receipts.every((r) => r !== null && r.blockNumber <= heads.finalized);
      }, { timeout: 15_000, interval: 100 })
      .toBe(true);
    const other = createTransactionMonitor({
      store: app.services.stores.transactions,
      gateways: app.services.gateways,
      clock,
      isDevnet: app.services.transactions.isDevnet,
      owner: 'second-monitor',
      batchSize: 3,
    });
    let resolved = 0;
    for (let i = 0; i < 20; i++) {
      for (const id of ids) {
        const next = (await row(id)).next_check_at;
        if (next) clock.advanceTo(new Date(next.getTime() + 1));
      }
      const results = await Promise.all([app.services.monitor.runOnce(), other.runOnce(), app.services.monitor.runOnce()]);
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
      monitor: app.services.monitor,
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

  it('proves Solana expiry before failing TRANSACTION_EXPIRED, and fails a nonce consumed by an unknown transaction', async () => {
    const store = app.services.stores.transactions;
    const solana = devnets.gateways.solana('SOLANA_DEVNET')!;
    const evm = devnets.gateways.evm(EVM_CHAIN)!;
    const { blockhash } = await solana.getLatestBlockhash();
    const finalized = await solana.getFinalizedBlockHeight();
    const signature = () => getBase58Decoder().decode(randomBytes(64));
    const base = {
      projectId: randomUUID(),
      partnerId: randomUUID(),
      walletId: randomUUID(),
      intentKind: 'sign_transaction' as const,
      status: 'submitted' as const,
      to: null,
      value: null,
      tokenAddress: null,
      failureStage: null,
      failureCode: null,
      failureMessage: null,
      monitoring: null,
      cancellationOf: null,
      requestId: null,
      apiKeyId: null,
      submittedAt: new Date(),
      nextCheckAt: new Date(0),
    };
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

describe('the transaction monitor when the RPC fails', () => {
  let devnets: LocalDevnets;
  let evmProxy: RpcFaultProxy;
  let solanaProxy: RpcFaultProxy;
  let app: TestApp;
  let key: string;
  const clock = movableClock();
  const { post, wallet, fund, record, row, runDue } = helpers(() => ({ app, clock, key }));

  beforeAll(async () => {
    devnets = await startLocalDevnets({ blockTimeSeconds: 0.25, slotMs: 100 });
    evmProxy = await startRpcFaultProxy(devnets.evmRpcUrl);
    solanaProxy = await startRpcFaultProxy(devnets.solanaRpcUrl);
    const registry = createChainRegistry(
      [
        { type: 'EVM', chainId: EVM_CHAIN, rpcUrl: evmProxy.url, isDevnet: true },
        { type: 'SOLANA', network: 'SOLANA_DEVNET', rpcUrl: solanaProxy.url, isDevnet: true },
      ],
      { timeoutMs: 1_000 },
    );
    app = await startTestApp(testDatabaseKinds[0]!, { chains: { ...registry, faucet: devnets.faucet }, clock });
    key = (await app.createKey()).apiKey;
  });
  afterAll(async () => {
    await app?.close();
    await evmProxy?.stop();
    await solanaProxy?.stop();
    await devnets?.stop();
  });

  it('resolves nothing without the evidence (drop, 500, time-out, finality unavailable), backs off, and resolves once the RPC is back', async () => {
    const e = await wallet('EVM');
    const s = await wallet('SOLANA');
    await fund(e.id, '1');
    await fund(s.id, '1');
    const evmSent = await post(`/v1/wallets/${e.id}/transfer`, { to: RECIPIENT, value: '1', chainId: EVM_CHAIN });
    const solSent = await post(`/v1/wallets/${s.id}/transfer`, { to: (await wallet('SOLANA')).address, value: '1000000', network: 'SOLANA_DEVNET' });
    expect(evmSent.status, JSON.stringify(evmSent.body)).toBe(200);
    expect(solSent.status, JSON.stringify(solSent.body)).toBe(200);
    const ids = [evmSent.body.transactionId as string, solSent.body.transactionId as string];
    // Both are final on the chains (read directly, not through the proxies): only the RPC stands in the way.
    await expect
      .poll(async () => {
        const evm = devnets.gateways.evm(EVM_CHAIN)!;
        const [[receipt], heads, [status]] = await Promise.all([
          evm.getReceipts([evmSent.body.txHash]),
          evm.getHeads(),
          devnets.gateways.solana('SOLANA_DEVNET')!.getSignatureStatuses([solSent.body.txHash]),
        ]);
        return receipt !== null && receipt!.blockNumber + 1n <= heads.finalized && status?.confirmationStatus === 'finalized';
      }, { timeout: 15_000, interval: 100 })
      .toBe(true);

    const modes: [RpcFaultMode, RpcFaultMode][] = [
      ['drop', 'drop'],
      ['http500', 'http500'],
      [{ delayMs: 1_500 }, { delayMs: 1_500 }],
      [{ failMethods: ['eth_getBlockByNumber'] }, { failMethods: ['getSignatureStatuses'] }],
    ];
    let errors = 0;
    for (const [evmMode, solanaMode] of modes) {
      evmProxy.setMode(evmMode);
      solanaProxy.setMode(solanaMode);
      const result = await runDue(ids);
      expect(result.resolved, JSON.stringify(evmMode)).toBe(0);
      errors++;
      for (const id of ids) {
        const r = await row(id);
        expect(r.status, JSON.stringify(evmMode)).toBe('submitted');
        expect(r.consecutive_errors, JSON.stringify(evmMode)).toBe(errors);
        expect(r.monitoring.lastError, JSON.stringify(evmMode)).toBeTruthy();
      }
    }
    // The backoff doubles with each consecutive error.
    const backoff = (await row(ids[0]!)).next_check_at!.getTime() - clock.now().getTime();
    expect(backoff).toBeGreaterThan(30_000);
    expect(backoff).toBeLessThanOrEqual(40_000);
    expect(await record(e.id, ids[0]!)).toMatchObject({ status: 'submitted', blockNumber: null });

    evmProxy.setMode('pass');
    solanaProxy.setMode('pass');
    const before = evmProxy.requests + solanaProxy.requests;
    const result = await runDue(ids);
    expect(result.resolved).toBeGreaterThanOrEqual(2);
    expect(await record(e.id, ids[0]!)).toMatchObject({ status: 'confirmed' });
    expect(await record(s.id, ids[1]!)).toMatchObject({ status: 'confirmed' });
    expect((await row(ids[0]!)).consecutive_errors).toBe(0);
    // Batched: a handful of HTTP requests for the whole pass.
    expect(evmProxy.requests + solanaProxy.requests - before).toBeLessThanOrEqual(result.rpcCalls);
  });
});
