/**
 * The transaction monitor with managed automatic retry (fee replacement), run by `npm run
 * bench:monitor` after bench/monitor.ts (not a test).
 *
 * Per database (embedded PGlite, plus PostgreSQL when BENCH_DATABASE_URL is set): anvil with blocks
 * under the bench's control and the service in this process as `npm start` wires it (createServices
 * + createApp on a loopback port). BENCH_RETRY_WALLETS wallets (default 100) per phase send
 * BENCH_RETRY_PER_WALLET transfers each (default 10) through the HTTP API, so every record is a
 * real signed transaction of a wallet the service holds. Two phases in the same run:
 * - "retry off": 1,000 transfers with `autoRetry: {enabled: false}` (the path without managed
 *   retry), all mined before the clock starts;
 * - "retry on, 10 % replaced": each wallet's first 9 transfers mined, its last one sent and then
 *   priced out: every later block's base fee is held at 3 × that transfer's maxFeePerGas, so only
 *   a fee replacement (signed through the signing pipeline by the monitor's run) can land.
 * Then, with one block a second, the monitor worker (as the service runs it: two runs in flight,
 * 250 ms idle tick) runs until every record of the phase is resolved: time to resolve all, the
 * monitor's CPU (process.cpuUsage while any run is in flight: PGlite's thread included) per record
 * and per record-check, and RPC requests (HTTP) per record-check.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { createScratchDatabase, openDatabase, type Database } from '@wallet/db';
import type { MonitorRunResult } from '@wallet/domain';
import { parseTransaction, type Hex } from 'viem';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { startLocalDevnets, type LocalDevnets } from '../src/local/devnets.ts';
import { createLogger } from '../src/logger.ts';
import { createServices } from '../src/services.ts';
import { startMonitorWorker } from '../src/workers/monitor-worker.ts';

const WALLETS = Number(process.env.BENCH_RETRY_WALLETS ?? 100);
const PER_WALLET = Number(process.env.BENCH_RETRY_PER_WALLET ?? 10);
/** Wallets sending at once while the records are made. */
const SENDERS = Number(process.env.BENCH_RETRY_SENDERS ?? 8);
const TIMEOUT_MS = Number(process.env.BENCH_TIMEOUT_MS ?? 120_000);
const CHAIN_ID = 84532;
const RECIPIENT = '0x000000000000000000000000000000000000dEaD';
const BLOCK_MS = 1_000;

async function call(url: string, method: string, params: unknown[] = []): Promise<any> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) });
  const out = (await response.json()) as { result?: unknown; error?: { message: string } };
  if (out.error) throw new Error(`${method}: ${out.error.message}`);
  return out.result;
}
const hex = (n: bigint) => `0x${n.toString(16)}`;

interface PhaseResult {
  phase: string;
  records: number;
  replaced: number;
  resolved: number;
  unresolved: number;
  secondsToResolveAll: number;
  runs: number;
  recordChecks: number;
  monitorCpuMs: number;
  monitorCpuMsPerRecord: number;
  monitorCpuMsPerRecordCheck: number;
  rpcRequests: number;
  rpcRequestsPerRecordCheck: number;
  blocks: number;
}

async function scenario(kind: 'pglite' | 'postgres') {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-monitor-retry-'));
  const stops: (() => Promise<unknown>)[] = [];
  let database: Database | undefined;
  let devnets: LocalDevnets | undefined;
  try {
    devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 3_600_000 });
    const chain = devnets;
    if (kind === 'pglite') database = await openDatabase({ dataDir: path.join(dataDir, 'db') });
    else {
      const scratch = await createScratchDatabase(process.env.BENCH_DATABASE_URL!, 'bench_monitor_retry');
      stops.push(scratch.drop);
      database = await openDatabase({ databaseUrl: scratch.url });
    }
    const db = database;
    await call(chain.evmRpcUrl, 'evm_setIntervalMining', [0]); // blocks only when the bench mines them
    const config = loadConfig({ ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' });
    const services = await createServices(config, { database: db, chains: chain });
    const server = createApp({ services, logger: createLogger('warn') }).listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    stops.unshift(() => services.close());
    stops.unshift(async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    });
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { apiKey } = await services.apiKeys.create({ partner: 'bench-monitor-retry', plan: 'scale', rateLimitPerMinute: 0 });
    const api = async (urlPath: string, body: unknown) => {
      const response = await fetch(`${baseUrl}${urlPath}`, { method: 'POST', headers: { 'x-api-key': apiKey, 'content-type': 'application/json' }, body: JSON.stringify(body) });
      return { status: response.status, body: (await response.json()) as Record<string, any> };
    };

    /** Wallets with 1 ETH each (set on the chain, no funding transaction). */
    async function wallets(label: string): Promise<{ id: string; address: string }[]> {
      const made = await Promise.all(
        Array.from({ length: WALLETS }, async (_, i) => {
          const w = await api('/v1/wallets', { type: 'EVM', userIdentifier: `${label}-${i}`, userIdentifierType: 'CUSTOM_ID' });
          if (w.status !== 201 && w.status !== 200) throw new Error(`wallet creation: ${w.status} ${JSON.stringify(w.body)}`);
          await call(chain.evmRpcUrl, 'anvil_setBalance', [w.body.address, hex(10n ** 18n)]);
          return { id: w.body.id as string, address: w.body.address as string };
        }),
      );
      return made;
    }
    /** `count` transfers per wallet, each wallet's in order, SENDERS wallets at once; answers their records and signed transactions. */
    async function transfers(list: { id: string }[], count: number, autoRetry: boolean): Promise<{ id: string; signed: Hex }[]> {
      const made: { id: string; signed: Hex }[] = [];
      let next = 0;
      const sender = async () => {
        for (let w = next++; w < list.length; w = next++) {
          for (let i = 0; i < count; i++) {
            const sent = await api(`/v1/wallets/${list[w]!.id}/transfer`, { to: RECIPIENT, value: String(1000 + i), chainId: CHAIN_ID, autoRetry: { enabled: autoRetry } });
            if (sent.status !== 200) throw new Error(`transfer: ${sent.status} ${JSON.stringify(sent.body)}`);
            made.push({ id: sent.body.transactionId as string, signed: sent.body.signedTransaction as Hex });
          }
        }
      };
      await Promise.all(Array.from({ length: SENDERS }, sender));
      return made;
    }
    async function mineUntilPoolHolds(pending: number) {
      for (let i = 0; i < 50; i++) {
        await call(chain.evmRpcUrl, 'evm_mine');
        if (BigInt(((await call(chain.evmRpcUrl, 'txpool_status')) as { pending: string }).pending) <= BigInt(pending)) return;
      }
      throw new Error('the pool did not empty');
    }

    /** The worker runs until every record of the phase is resolved; blocks every BLOCK_MS, the base fee held at `holdBaseFee`. */
    async function measure(phase: string, ids: string[], replaced: number, holdBaseFee: bigint | null): Promise<PhaseResult> {
      const cpu = { inFlight: 0, since: process.cpuUsage(), us: 0 };
      const runs: MonitorRunResult[] = [];
      const observed = {
        batchSize: services.monitor.batchSize,
        async runOnce() {
          if (cpu.inFlight++ === 0) cpu.since = process.cpuUsage();
          try {
            const r = await services.monitor.runOnce();
            runs.push(r);
            return r;
          } finally {
            if (--cpu.inFlight === 0) {
              const d = process.cpuUsage(cpu.since);
              cpu.us += d.user + d.system;
            }
          }
        },
      };
      let blocks = 0;
      let mining = true;
      const producer = (async () => {
        while (mining) {
          if (holdBaseFee !== null) await call(chain.evmRpcUrl, 'anvil_setNextBlockBaseFeePerGas', [hex(holdBaseFee)]);
          await call(chain.evmRpcUrl, 'evm_mine');
          blocks++;
          await new Promise((resolve) => setTimeout(resolve, BLOCK_MS));
        }
      })();
      const start = performance.now();
      const worker = startMonitorWorker({ monitor: observed, logger: createLogger('warn') });
      let open = ids.length;
      while (open > 0 && performance.now() - start < TIMEOUT_MS) {
        await new Promise((resolve) => setTimeout(resolve, 250));
        open = Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM transaction_records WHERE id = ANY($1::uuid[]) AND resolved_at IS NULL`, [ids]))[0]!.n);
      }
      const seconds = (performance.now() - start) / 1000;
      await worker.stop();
      mining = false;
      await producer;
      const confirmed = Number((await db.query<{ n: string }>(`SELECT count(*) AS n FROM transaction_records WHERE id = ANY($1::uuid[]) AND status = 'confirmed'`, [ids]))[0]!.n);
      const recordChecks = runs.reduce((n, r) => n + r.leased, 0);
      const rpcRequests = runs.reduce((n, r) => n + r.rpcCalls, 0);
      const cpuMs = cpu.us / 1000;
      return {
        phase,
        records: ids.length,
        replaced,
        resolved: confirmed,
        unresolved: open,
        secondsToResolveAll: +seconds.toFixed(2),
        runs: runs.length,
        recordChecks,
        monitorCpuMs: Math.round(cpuMs),
        monitorCpuMsPerRecord: +(cpuMs / ids.length).toFixed(3),
        monitorCpuMsPerRecordCheck: +(cpuMs / Math.max(1, recordChecks)).toFixed(3),
        rpcRequests,
        rpcRequestsPerRecordCheck: +(rpcRequests / Math.max(1, recordChecks)).toFixed(4),
        blocks,
      };
    }
    // Phase "retry off": every transfer mined before the clock starts.
    const plainWallets = await wallets('bench-retry-off');
    const plain = await transfers(plainWallets, PER_WALLET, false);
    await mineUntilPoolHolds(0);
    const off = await measure('retry off', plain.map((t) => t.id), 0, null);

    // Phase "retry on": the first PER_WALLET - 1 transfers of each wallet mined, the last one priced out.
    const managedWallets = await wallets('bench-retry-on');
    const landing = await transfers(managedWallets, PER_WALLET - 1, true);
    await mineUntilPoolHolds(0);
    const stuck = await transfers(managedWallets, 1, true);
    const highest = stuck.map((t) => parseTransaction(t.signed).maxFeePerGas!).reduce((a, b) => (a > b ? a : b));
    const on = await measure('retry on, 10 % replaced', [...landing, ...stuck].map((t) => t.id), stuck.length, highest * 3n);
    const replacements = Number((await db.query<{ n: string }>(`SELECT count(DISTINCT record_id) AS n FROM transaction_attempts`))[0]!.n);
    const wonByReplacement = Number(
      (await db.query<{ n: string }>(`SELECT count(*) AS n FROM transaction_records WHERE monitoring->>'winningHash' IS NOT NULL AND monitoring->>'winningHash' <> hash`))[0]!.n,
    );
    return { database: kind, phases: [off, on], replacedRecords: replacements, confirmedByAReplacement: wonByReplacement };
  } finally {
    for (const stop of stops) await stop().catch((error: unknown) => console.error('clean-up:', error));
    await database?.close().catch(() => undefined);
    await devnets?.stop().catch(() => undefined);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const loadBefore = loadavg()[0]!;
const kinds: ('pglite' | 'postgres')[] = process.env.BENCH_DATABASE_URL ? ['pglite', 'postgres'] : ['pglite'];
const results = [];
for (const kind of kinds) results.push(await scenario(kind));
console.log(JSON.stringify(results, null, 2));
const out = [
  `\nmonitor with managed retry — node ${process.version}, ${WALLETS} wallets × ${PER_WALLET} transfers per phase, ${BLOCK_MS / 1000} s blocks, load average ${loadBefore.toFixed(2)} before, ${loadavg()[0]!.toFixed(2)} after`,
  '',
  `${'database / phase'.padEnd(36)}${'records'.padStart(8)}${'replaced'.padStart(9)}${'confirmed'.padStart(10)}${'resolve all'.padStart(13)}${'record-checks'.padStart(15)}${'CPU/record'.padStart(12)}${'CPU/check'.padStart(11)}${'RPC/check'.padStart(11)}`,
];
let ok = true;
for (const r of results) {
  for (const p of r.phases) {
    ok &&= p.unresolved === 0 && p.resolved === p.records;
    out.push(
      `${`${r.database} / ${p.phase}`.padEnd(36)}${String(p.records).padStart(8)}${String(p.replaced).padStart(9)}${String(p.resolved).padStart(10)}${`${p.secondsToResolveAll} s`.padStart(13)}` +
        `${String(p.recordChecks).padStart(15)}${`${p.monitorCpuMsPerRecord} ms`.padStart(12)}${`${p.monitorCpuMsPerRecordCheck} ms`.padStart(11)}${String(p.rpcRequestsPerRecordCheck).padStart(11)}`,
    );
  }
  ok &&= r.confirmedByAReplacement === r.phases[1]!.replaced;
  out.push(`${''.padEnd(36)}${r.replacedRecords} records got a replacement; ${r.confirmedByAReplacement} confirmed by it (monitoring.winningHash ≠ hash)`);
}
console.log(out.join('\n'));
process.exit(ok ? 0 : 1);
