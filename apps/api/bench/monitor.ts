/**
 * npm run bench:monitor — the transaction monitor against the local devnets (not a test).
 *
 * Per database (embedded PGlite in its worker thread as `npm start` uses it, plus PostgreSQL when
 * BENCH_DATABASE_URL is set):
 * 1. Starts anvil and the Solana devnet with block / slot production under the bench's control.
 * 2. Sends real transactions: BENCH_EVM_TXS EIP-1559 transfers from anvil dev accounts, mined into
 *    blocks that are not final yet, and BENCH_SOL_TXS airdrops left at `processed`.
 * 3. Inserts BENCH_RECORDS `submitted` records (80 % EVM, 20 % Solana) carrying those hashes
 *    (reused round-robin), all due now.
 * Phase "check": one monitor (batch 500) checks every record once while nothing is final:
 *    record-checks per second, RPC calls (HTTP requests) per record-check.
 * Phase "idle": runs of a monitor whose clock is 10 minutes behind (so nothing is due by time)
 *    while all records wait for finality: the cost of a worker tick that finds nothing to do.
 * Phase "resolve": the chains finalize the blocks / slots; the monitor worker loop (as in the
 *    service) runs until every record is `confirmed`: time from the moment each transaction's block
 *    reached the finalized head (with its second confirmation) to the record's `resolvedAt`, and
 *    how many records were resolved before their next scheduled check was due.
 * `npm run bench:monitor` then runs bench/monitor-retry.ts (the monitor with managed automatic retry).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { getBase58Decoder } from '@solana/kit';
import { createScratchDatabase, createStores, openDatabase, type Database } from '@wallet/db';
import { createTransactionMonitor, DEFAULT_MONITOR_CADENCE, systemClock, type MonitorRunResult } from '@wallet/domain';
import { mnemonicToAccount } from 'viem/accounts';
import { startLocalDevnets, type LocalDevnets } from '../src/local/devnets.ts';
import { createLogger } from '../src/logger.ts';
import { startMonitorWorker } from '../src/workers/monitor-worker.ts';

const RECORDS = Number(process.env.BENCH_RECORDS ?? 10_000);
const EVM_TXS = Number(process.env.BENCH_EVM_TXS ?? 2_000);
const SOL_TXS = Number(process.env.BENCH_SOL_TXS ?? 200);
const BATCH = Number(process.env.BENCH_MONITOR_BATCH ?? 500);
/** Monitor runs in flight at once, as the worker runs them (its default is 2). */
const CONCURRENCY = Number(process.env.BENCH_MONITOR_CONCURRENCY ?? 2);
const CHAIN_ID = 84532;
const ANVIL_MNEMONIC = 'test test test test test test test test test test test junk';
const SENDERS = 9; // anvil dev accounts #1..#9 (#0 deploys and funds)

async function rpc(url: string, body: unknown): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return response.json();
}
const call = async (url: string, method: string, params: unknown[] = []) => {
  const out = await rpc(url, { jsonrpc: '2.0', id: 1, method, params });
  if (out.error) throw new Error(`${method}: ${out.error.message}`);
  return out.result;
};

async function benchDatabase(kind: 'pglite' | 'postgres'): Promise<{ database: Database; cleanup: () => Promise<void> }> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-monitor-'));
    const database = await openDatabase({ dataDir: dir });
    return { database, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const scratch = await createScratchDatabase(process.env.BENCH_DATABASE_URL!, 'bench_monitor');
  const database = await openDatabase({ databaseUrl: scratch.url });
  return { database, cleanup: scratch.drop };
}

interface SentEvm {
  hash: string;
  from: string;
  nonce: number;
}

/** EVM_TXS transfers into anvil's pool (mining is off), sent in JSON-RPC batches. */
async function sendEvmTransfers(devnets: LocalDevnets): Promise<SentEvm[]> {
  const accounts = Array.from({ length: SENDERS }, (_, i) => mnemonicToAccount(ANVIL_MNEMONIC, { addressIndex: i + 1 }));
  const fees = await devnets.gateways.evm(CHAIN_ID)!.getFeeSuggestion();
  const nonces = await devnets.gateways.evm(CHAIN_ID)!.getNonces(accounts.map((a) => a.address), 'latest');
  const sent: SentEvm[] = [];
  const raw: string[] = [];
  for (let i = 0; i < EVM_TXS; i++) {
    const account = accounts[i % SENDERS]!;
    const nonce = nonces[i % SENDERS]! + Math.floor(i / SENDERS);
    const serialized = await account.signTransaction({
      chainId: CHAIN_ID,
      type: 'eip1559',
      to: '0x000000000000000000000000000000000000dEaD',
      value: BigInt(i + 1),
      nonce,
      gas: 21_000n,
      maxFeePerGas: fees.maxFeePerGas * 4n + 1_000_000_000n,
      maxPriorityFeePerGas: 1_000_000_000n,
    });
    raw.push(serialized);
    sent.push({ hash: '', from: account.address, nonce });
  }
  for (let i = 0; i < raw.length; i += 200) {
    const answers = (await rpc(
      devnets.evmRpcUrl,
      raw.slice(i, i + 200).map((tx, j) => ({ jsonrpc: '2.0', id: i + j, method: 'eth_sendRawTransaction', params: [tx] })),
    )) as { id: number; result?: string; error?: { message: string } }[];
    for (const a of answers) {
      if (!a.result) throw new Error(`eth_sendRawTransaction: ${a.error?.message}`);
      sent[a.id]!.hash = a.result;
    }
  }
  return sent;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function scenario(kind: 'pglite' | 'postgres') {
  const devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 3_600_000 });
  const { database, cleanup } = await benchDatabase(kind);
  try {
    // Blocks and slots only when the bench says so.
    await call(devnets.evmRpcUrl, 'evm_setIntervalMining', [0]);
    const evmSent = await sendEvmTransfers(devnets);
    // Mine until the pool is empty: every transfer has a receipt, none is at the finalized head yet.
    const blocksWithTxs = new Set<bigint>();
    for (let i = 0; i < 20; i++) {
      await call(devnets.evmRpcUrl, 'evm_mine');
      const pending = (await call(devnets.evmRpcUrl, 'txpool_status')) as { pending: string };
      if (BigInt(pending.pending) === 0n) break;
    }
    const receipts = await devnets.gateways.evm(CHAIN_ID)!.getReceipts(evmSent.map((s) => s.hash as `0x${string}`));
    for (const r of receipts) {
      if (!r) throw new Error('a benchmark transfer was not mined');
      blocksWithTxs.add(r.blockNumber);
    }
    const heads = await devnets.gateways.evm(CHAIN_ID)!.getHeads();
    const lastBlock = [...blocksWithTxs].reduce((a, b) => (a > b ? a : b));
    const firstBlock = [...blocksWithTxs].reduce((a, b) => (a < b ? a : b));
    if (heads.finalized >= firstBlock) throw new Error('benchmark transfers are already final');
    const b58 = getBase58Decoder();
    const airdrops: string[] = [];
    for (let i = 0; i < SOL_TXS; i++) {
      const to = b58.decode(crypto.getRandomValues(new Uint8Array(32)));
      airdrops.push(await call(devnets.solanaRpcUrl, 'requestAirdrop', [to, 1_000_000 + i]));
    }

    // The records: real hashes, reused round-robin; all due now.
    const now = new Date();
    const evmRecords = Math.round(RECORDS * 0.8);
    const projectId = randomUUID();
    const partnerId = randomUUID();
    const rows = Array.from({ length: RECORDS }, (_, i) => {
      const isEvm = i < evmRecords;
      const tx = evmSent[i % evmSent.length]!;
      return {
        id: randomUUID(),
        projectId,
        partnerId,
        walletId: randomUUID(),
        walletType: isEvm ? 'EVM' : 'SOLANA',
        intentKind: 'transfer',
        status: 'submitted',
        chainId: isEvm ? String(CHAIN_ID) : null,
        network: isEvm ? null : 'SOLANA_DEVNET',
        fromAddress: isEvm ? tx.from : 'So11111111111111111111111111111111111111112',
        nonce: isEvm ? tx.nonce : null,
        hash: isEvm ? tx.hash : airdrops[i % airdrops.length]!,
        lastValidBlockHeight: isEvm ? null : 1_000_000_000n,
        recentBlockhash: isEvm ? null : '11111111111111111111111111111111',
        submittedAt: now,
        nextCheckAt: new Date(now.getTime() - 1000),
        createdAt: now,
      };
    });
    for (let i = 0; i < rows.length; i += 1000) await database.prisma.transactionRecord.createMany({ data: rows.slice(i, i + 1000) });

    const stores = createStores(database);
    const isDevnet = () => true;
    const monitor = createTransactionMonitor({ store: stores.transactions, gateways: devnets.gateways, clock: systemClock, isDevnet, owner: `bench-${kind}`, batchSize: BATCH });

    // Phase "check": every record checked once, nothing final.
    const totals: MonitorRunResult = { leased: 0, resolved: 0, rescheduled: 0, rpcCalls: 0 };
    const runs: number[] = [];
    const split = { finality: 0, lease: 0, chain: 0, save: 0 };
    const checkStart = performance.now();
    const checkLoop = async () => {
      while (totals.leased < RECORDS) {
        const t = performance.now();
        const r = await monitor.runOnce();
        runs.push(performance.now() - t);
        if (r.leased === 0) break;
        totals.leased += r.leased;
        totals.resolved += r.resolved;
        totals.rescheduled += r.rescheduled;
        totals.rpcCalls += r.rpcCalls;
        for (const k of ['finality', 'lease', 'chain', 'save'] as const) split[k] += r.ms?.[k] ?? 0;
      }
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, checkLoop));
    const checkSeconds = (performance.now() - checkStart) / 1000;
    if (totals.resolved > 0) throw new Error(`${totals.resolved} records resolved before finality`);

    // Phase "idle": every record waits for finality (evidence stored), none is due by time.
    const behind = { now: () => new Date(Date.now() - 600_000) };
    const idleMonitor = createTransactionMonitor({ store: stores.transactions, gateways: devnets.gateways, clock: behind, isDevnet, owner: `bench-idle-${kind}`, batchSize: BATCH });
    const idleRuns: number[] = [];
    let idleRpc = 0;
    const idleStart = Date.now();
    for (let i = 0; i < 8; i++) {
      const t = performance.now();
      const r = await idleMonitor.runOnce();
      idleRuns.push(performance.now() - t);
      idleRpc += r.rpcCalls;
      if (r.leased > 0) throw new Error('an idle run leased records');
      await new Promise((resolve) => setTimeout(resolve, 260)); // past the monitor's head-reading reuse window
    }
    idleRuns.sort((a, b) => a - b);
    // The idle phase must not eat into the schedules the check phase left: push them back by its length.
    await database.query(`UPDATE transaction_records SET next_check_at = next_check_at + $1::int * interval '1 millisecond'`, [Date.now() - idleStart]);

    // When each record's next check was due after phase "check".
    const scheduled = new Map(
      (await database.query<{ id: string; next_check_at: Date }>('SELECT id, next_check_at FROM transaction_records')).map((r) => [r.id, r.next_check_at.getTime()]),
    );

    // Phase "resolve": finalize, then the worker loop runs until everything is confirmed.
    const resolveRuns: MonitorRunResult[] = [];
    const observed = {
      batchSize: monitor.batchSize,
      runOnce: async () => {
        const r = await monitor.runOnce();
        if (r.leased > 0) resolveRuns.push(r);
        return r;
      },
    };
    const worker = startMonitorWorker({ monitor: observed, idleMs: 250, concurrency: CONCURRENCY, logger: createLogger('warn') });
    const finalAt = new Map<bigint, number>();
    for (let b = firstBlock; b <= lastBlock; b++) {
      await call(devnets.evmRpcUrl, 'evm_mine');
      // The finalized head is two blocks behind: this block now has its second confirmation at the finalized head.
      const h = await devnets.gateways.evm(CHAIN_ID)!.getHeads();
      for (let x = firstBlock; x <= h.finalized; x++) if (!finalAt.has(x)) finalAt.set(x, Date.now());
    }
    while ((await devnets.gateways.evm(CHAIN_ID)!.getHeads()).finalized < lastBlock) {
      await call(devnets.evmRpcUrl, 'evm_mine');
      const h = await devnets.gateways.evm(CHAIN_ID)!.getHeads();
      for (let x = firstBlock; x <= h.finalized; x++) if (!finalAt.has(x)) finalAt.set(x, Date.now());
    }
    await call(devnets.solanaRpcUrl, 'devnet_advanceSlots', [2]);
    const solanaFinalAt = Date.now();
    const resolveStart = performance.now();
    let open = RECORDS;
    while (open > 0 && performance.now() - resolveStart < 120_000) {
      await new Promise((r) => setTimeout(r, 200));
      open = Number((await database.query<{ n: string }>(`SELECT count(*) AS n FROM transaction_records WHERE status <> 'confirmed'`))[0]!.n);
    }
    const resolveSeconds = (performance.now() - resolveStart) / 1000;
    await worker.stop();
    const resolved = await database.query<{ id: string; wallet_type: string; resolved_at: Date | null; block_number: string | null }>(
      'SELECT id, wallet_type, resolved_at, block_number FROM transaction_records',
    );
    const done = resolved.filter((r) => r.resolved_at);
    const finalOf = (r: (typeof done)[number]) => (r.wallet_type === 'EVM' ? finalAt.get(BigInt(r.block_number!))! : solanaFinalAt);
    const latencies = done.map((r) => r.resolved_at!.getTime() - finalOf(r)).sort((a, b) => a - b);
    const early = done.filter((r) => r.resolved_at!.getTime() < scheduled.get(r.id)!).length;
    runs.sort((a, b) => a - b);
    return {
      database: kind,
      records: RECORDS,
      distinctTransactions: { evm: EVM_TXS, solana: SOL_TXS },
      batchSize: BATCH,
      concurrentRuns: CONCURRENCY,
      check: {
        recordChecks: totals.leased,
        seconds: +checkSeconds.toFixed(2),
        recordChecksPerSecond: Math.round(totals.leased / checkSeconds),
        rpcCalls: totals.rpcCalls,
        rpcCallsPerRecordCheck: +(totals.rpcCalls / totals.leased).toFixed(4),
        runMs: { p50: Math.round(percentile(runs, 50)), max: Math.round(runs.at(-1)!) },
        totalMs: split,
      },
      idle: {
        waitingRecords: RECORDS,
        runMs: { p50: Math.round(percentile(idleRuns, 50)), max: Math.round(idleRuns.at(-1)!) },
        rpcCallsPerRun: +(idleRpc / idleRuns.length).toFixed(2),
      },
      resolve: {
        confirmed: latencies.length,
        unresolved: open,
        seconds: +resolveSeconds.toFixed(2),
        recordsPerSecond: Math.round(latencies.length / resolveSeconds),
        finalToConfirmedMs: { p50: percentile(latencies, 50), p99: percentile(latencies, 99), max: latencies.at(-1) },
        resolvedBeforeScheduledCheck: early,
        checkIntervalMs: DEFAULT_MONITOR_CADENCE.activeIntervalMs,
        runs: resolveRuns.length,
        rpcCallsPerRecordCheck: +(resolveRuns.reduce((n, r) => n + r.rpcCalls, 0) / resolveRuns.reduce((n, r) => n + r.leased, 0)).toFixed(4),
        totalMs: Object.fromEntries((['finality', 'lease', 'chain', 'save'] as const).map((k) => [k, resolveRuns.reduce((n, r) => n + (r.ms?.[k] ?? 0), 0)])),
      },
    };
  } finally {
    await database.close();
    await cleanup();
    await devnets.stop();
  }
}

const kinds: ('pglite' | 'postgres')[] = process.env.BENCH_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
for (const kind of kinds) console.log(JSON.stringify(await scenario(kind), null, 2));
process.exit(0);
