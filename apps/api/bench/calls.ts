/**
 * npm run bench:calls — a two-call batch (USDC approve + transfer), self-paid and sponsored, next to
 * a plain USDC transfer in the same run, end to end on the local devnet (not a test).
 *
 * Anvil with the sponsorship contracts mining a block every second, the service in this process as
 * `npm start` wires it (createServices + createApp on a loopback port, the monitor and sponsored
 * workers). Three projects of one partner, one per path, BENCH_CALLS_WALLETS wallets each (default
 * 20): plain and self-paid wallets hold ETH and USDC, sponsored ones USDC only. Before the clock
 * every wallet sends one warm-up (a batch wallet's carries its delegation) and waits for it. The
 * clock: one request per wallet, the three paths interleaved over BENCH_CALLS_SPREAD_SECONDS
 * (default 20), over real HTTP; per request, its answer (200, or 202 sponsored) → the poll of the
 * lookup that saw `confirmed`, in seconds and 1-second blocks (p50 / p99 / max); beside it, where the
 * time went: answer → the relayer's transaction sent (a sponsored record's first attempt), the
 * inclusion block − the head at the answer, and answer → the record's resolvedAt.
 * Target: each batch path's p99 within 0 blocks of the plain transfer's. Exit 1 when any did not confirm.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { openDatabase } from '@wallet/db';
import { startSupervisedSigner } from '@wallet/signer/client';
import { encodeFunctionData, erc20Abi, type Hex } from 'viem';
import { createApp } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';
import { startLocalDevnets } from '../src/local/devnets.ts';
import { createLogger } from '../src/logger.ts';
import { createServices } from '../src/services.ts';
import { startMonitorWorker } from '../src/workers/monitor-worker.ts';
import { startSponsoredWorker } from '../src/workers/sponsored-worker.ts';

const WALLETS = Number(process.env.BENCH_CALLS_WALLETS ?? 20);
const SPREAD_MS = Number(process.env.BENCH_CALLS_SPREAD_SECONDS ?? 20) * 1000;
const POLL_MS = 200;
const TIMEOUT_MS = 120_000;
const CHAIN_ID = 84532;
const PATHS = ['plain', 'batch', 'sponsored batch'] as const;
type Path = (typeof PATHS)[number];
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;

const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-calls-'));
const devnets = await startLocalDevnets({ blockTimeSeconds: 1, slotMs: 3_600_000, sponsorship: true });
const database = await openDatabase({ dataDir: path.join(dataDir, 'db') });
const config = loadConfig({ ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, DATABASE_URL: '', LOG_LEVEL: 'warn' });
const logger = createLogger('warn');
// The signer that holds every key, beside the service as `npm start` runs it.
const signer = await startSupervisedSigner({ env: { ...process.env, APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'warn', SIGNER_EXIT_WITH_PARENT: '1' }, logger });
const services = await createServices(config, { database, chains: devnets, logger });
const server = createApp({ services, logger }).listen(0, '127.0.0.1');
await new Promise<void>((resolve) => server.once('listening', () => resolve()));
const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const workers = [startMonitorWorker({ monitor: services.monitor, logger }), startSponsoredWorker({ runner: services.sponsoredRunner, logger })];

async function api(apiKey: string, method: string, urlPath: string, body?: unknown) {
  const response = await fetch(`${baseUrl}${urlPath}`, { method, headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, any> };
}

const usdc = devnets.directory.list().find((c) => c.type === 'EVM')!.usdc!.address as Hex;
const keys = Object.fromEntries(
  await Promise.all(PATHS.map(async (p) => [p, await services.apiKeys.create({ partner: 'bench-calls', project: p, plan: 'scale', rateLimitPerMinute: 0 })] as const)),
) as unknown as Record<Path, { apiKey: string; projectId: string }>;
await services.sponsorship.change(await services.policies.operatorScope(keys['sponsored batch'].projectId, 'development'), 'enable', { dailyBudgetWei: (10n ** 19n).toString() });

const recipient = () => `0x${[...crypto.getRandomValues(new Uint8Array(20))].map((b) => b.toString(16).padStart(2, '0')).join('')}` as Hex;
function body(p: Path) {
  const to = recipient();
  if (p === 'plain') return { chainId: CHAIN_ID, to, value: '1000000', tokenAddress: usdc };
  const calls = [
    { to: usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: 'approve', args: [to, 1_000_000n] }) },
    { to: usdc, data: encodeFunctionData({ abi: erc20Abi, functionName: 'transfer', args: [to, 1_000_000n] }) },
  ];
  return { chainId: CHAIN_ID, calls, ...(p === 'sponsored batch' ? { sponsored: true } : {}) };
}
const route = (p: Path, walletId: string) => `/v1/wallets/${walletId}/${p === 'plain' ? 'transfer' : 'calls'}`;

const evmRpc = devnets.endpoints.evm[0]!.rpcUrl;
async function head(): Promise<number> {
  const response = await fetch(evmRpc, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: [] }) });
  return Number(((await response.json()) as { result: string }).result);
}

/** One measured request: answer → confirmed poll; answer → first submission (the record's first attempt, or its signature for a self-paid one); inclusion block − head at the answer. */
interface Measure {
  ms: number;
  submitMs: number;
  includedBlocks: number;
  /** answer → the record's resolvedAt (the worker's confirmation, without the bench's poll). */
  resolveMs: number;
}

/** Sends, then polls the record until confirmed (null: not confirmed). */
async function sendAndFollow(p: Path, walletId: string): Promise<Measure | null> {
  const sent = await api(keys[p].apiKey, 'POST', route(p, walletId), body(p));
  const answeredAt = Date.now();
  const headAtAnswer = await head();
  if (sent.status !== 200 && sent.status !== 202) throw new Error(`${p}: ${sent.status} ${JSON.stringify(sent.body)}`);
  const id = sent.body.transactionId as string;
  while (Date.now() - answeredAt < TIMEOUT_MS) {
    const record = (await api(keys[p].apiKey, 'GET', `/v1/wallets/${walletId}/transactions/${id}`)).body;
    if (record.status === 'confirmed') {
      const ms = Date.now() - answeredAt;
      const sentAt = record.autoRetry?.attempts?.[0]?.sentAt as string | undefined;
      const submitMs = p === 'sponsored batch' && sentAt ? Date.parse(sentAt) - answeredAt : 0;
      return { ms, submitMs, includedBlocks: Number(record.blockNumber) - headAtAnswer, resolveMs: Date.parse(record.resolvedAt as string) - answeredAt };
    }
    if (record.status === 'failed' || record.status === 'reverted') return null;
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  return null;
}

let ok = true;
try {
  const wallets: { p: Path; id: string }[] = [];
  for (const p of PATHS) {
    for (let i = 0; i < WALLETS; i++) {
      const id = (await api(keys[p].apiKey, 'POST', '/v1/wallets', { type: 'EVM', userIdentifier: `bench-calls-${p}-${i}`, userIdentifierType: 'CUSTOM_ID' })).body.id as string;
      for (const [token, amount] of p === 'sponsored batch' ? [['usdc', '100']] : [['native', '1'], ['usdc', '100']]) await api(keys[p].apiKey, 'POST', '/v1/local/faucet', { walletId: id, amount, token });
      wallets.push({ p, id });
    }
  }
  // Warm-ups: every wallet once (a batch wallet's first batch carries its delegation), not measured.
  const warm = await Promise.all(wallets.map((w) => sendAndFollow(w.p, w.id)));
  if (warm.some((ms) => ms === null)) throw new Error('a warm-up did not confirm');
  const started = Date.now();
  const interleaved = Array.from({ length: WALLETS }, (_, i) => PATHS.map((p) => wallets.filter((w) => w.p === p)[i]!)).flat();
  const results = await Promise.all(
    interleaved.map(async (w, k) => {
      await new Promise((resolve) => setTimeout(resolve, started + (k * SPREAD_MS) / interleaved.length - Date.now()));
      return { p: w.p, m: await sendAndFollow(w.p, w.id) };
    }),
  );
  const rows = PATHS.map((p) => {
    const measures = results.filter((r) => r.p === p).map((r) => r.m);
    const confirmed = measures.filter((m): m is Measure => m !== null);
    if (confirmed.length < measures.length) ok = false;
    const done = confirmed.map((m) => m.ms).sort((a, b) => a - b);
    const submit = confirmed.map((m) => m.submitMs).sort((a, b) => a - b);
    const included = confirmed.map((m) => m.includedBlocks).sort((a, b) => a - b);
    const resolved = confirmed.map((m) => m.resolveMs).sort((a, b) => a - b);
    const blocks = (ms: number) => Math.ceil(ms / 1000);
    return {
      path: p,
      confirmed: `${done.length}/${measures.length}`,
      p50s: (percentile(done, 50) / 1000).toFixed(2),
      p99s: (percentile(done, 99) / 1000).toFixed(2),
      maxs: (done.at(-1)! / 1000).toFixed(2),
      p50Blocks: blocks(percentile(done, 50)),
      p99Blocks: blocks(percentile(done, 99)),
      submitP50ms: submit.length ? percentile(submit, 50) : 0,
      submitP99ms: submit.length ? percentile(submit, 99) : 0,
      includedP50: percentile(included, 50),
      includedP99: percentile(included, 99),
      resolveP50ms: percentile(resolved, 50),
      resolveP99ms: percentile(resolved, 99),
    };
  });
  console.table(rows);
  const plain = rows[0]!.p99Blocks;
  for (const row of rows.slice(1)) console.log(`${row.path}: p99 ${row.p99Blocks} blocks, ${row.p99Blocks - plain >= 0 ? '+' : ''}${row.p99Blocks - plain} over the plain transfer (target +0)`);
} catch (error) {
  ok = false;
  console.error(error);
} finally {
  await Promise.all(workers.map((w) => w.stop()));
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await services.close();
  await database.close();
  await signer.stop();
  await devnets.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(ok ? 0 : 1);
