/**
 * Threshold ECDSA (DKLs23) through a real signer process, beside the isolated path (the key joined in
 * the signer) in the same run: `npm run bench:threshold` (also the last section of `npm run bench`).
 * The benchmark process is the API's vault (`createApiKeyVault`: participant 1), the signer process
 * participant 2, over mTLS on its Unix socket. Every call is `vault.sign({ operation: 'message' })`.
 *
 * - wallet creation (DKG + OT setup, 5 exchanges), BENCH_THRESHOLD_CREATIONS (5) in a row;
 * - on demand, open loop at BENCH_THRESHOLD_RATE (5/s) for BENCH_THRESHOLD_SECONDS (10 s), both paths;
 * - sustained, closed loop with BENCH_THRESHOLD_CONCURRENCY (4) in flight for the same time;
 * - the CPU per signature of each party over exactly the measured windows.
 * Latency counts from the scheduled start. Not a test: compare the columns, not absolute numbers.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_KEK_ROLES, deriveAddress, fileKekProvider, formatPublicKey, resolveRecoveryPublicKey, type CustodyMode, type KeyVault } from '@wallet/domain';
import { createSignerClient, signerClientSettings } from '@wallet/signer/client';
import { createApiKeyVault } from '../src/custody/remote-vault.ts';
import { signer, spawnSigner, stopSigner, type BenchWallet } from './signer.ts';
import { closedLoopCalls, openLoopCalls, percentiles, processCpuMs, type CallLoadResult } from './signer-load.ts';

const num = (name: string, fallback: number) => Number(process.env[name] ?? fallback);

async function createEvmWallet(vault: KeyVault, custodyMode: CustodyMode): Promise<BenchWallet> {
  const id = randomUUID();
  const key = await vault.createWalletKey({ walletId: id, scheme: 'DKLS', clientHeldUserShare: false, custodyMode });
  return { wallet: { id, type: 'EVM', scheme: 'DKLS', address: deriveAddress('EVM', key.publicKey), publicKey: formatPublicKey('EVM', key.publicKey) }, shares: key.shares };
}

const ms = (value: number) => value.toFixed(1).padStart(7);
const cpu = (value: number | null) => (value === null ? '    n/a' : value.toFixed(2).padStart(7));
const errors = (r: CallLoadResult) => (Object.keys(r.errors).length > 0 ? `  ERRORS ${JSON.stringify(r.errors)}` : '');
const row = (name: string, r: CallLoadResult) =>
  `${name.padEnd(34)} ${r.perSecond.toFixed(1).padStart(6)}/s  p50 ${ms(r.p50)} ms  p99 ${ms(r.p99)} ms  max ${ms(r.max)} ms  CPU/sig: API ${cpu(r.cpuSelfMs)} ms, signer ${cpu(r.cpuOtherMs)} ms  (${r.ok})${errors(r)}`;

export async function thresholdBench(): Promise<void> {
  const rate = num('BENCH_THRESHOLD_RATE', 5);
  const seconds = num('BENCH_THRESHOLD_SECONDS', 10);
  const concurrency = num('BENCH_THRESHOLD_CONCURRENCY', 4);
  const creations = num('BENCH_THRESHOLD_CREATIONS', 5);
  const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-threshold-'));
  const child = await spawnSigner({ APP_ENV: 'local', DATA_DIR: dataDir, LOG_LEVEL: 'warn', SIGNER_MAX_SIGNATURES_PER_WALLET_PER_MINUTE: '100000000' });
  const client = createSignerClient(signerClientSettings({ APP_ENV: 'local' }, dataDir));
  try {
    const vault = createApiKeyVault(client, {
      keks: fileKekProvider(path.join(dataDir, 'api'), API_KEK_ROLES),
      recovery: () => resolveRecoveryPublicKey({ appEnv: 'local', file: undefined, localDir: path.join(dataDir, 'recovery') }),
    });
    console.log(`\n## Threshold ECDSA (DKLs23) through the signer process, beside the isolated path (signer pid ${child.pid})`);

    const times: number[] = [];
    const [selfBefore, signerBefore] = [process.cpuUsage(), processCpuMs(child.pid)];
    let threshold: BenchWallet | undefined;
    for (let i = 0; i < creations; i++) {
      const start = performance.now();
      threshold = await createEvmWallet(vault, 'threshold');
      times.push(performance.now() - start);
    }
    const self = process.cpuUsage(selfBefore);
    const signerCpu = (processCpuMs(child.pid) ?? 0) - (signerBefore ?? 0);
    const created = percentiles(times.sort((a, b) => a - b));
    console.log(
      `${'creation to ready (DKG + OT setup)'.padEnd(34)} p50 ${ms(created.p50)} ms  max ${ms(created.max)} ms  CPU/wallet: API ${cpu((self.user + self.system) / 1000 / creations)} ms, signer ${cpu(signerCpu / creations)} ms  (${creations}, one after another)`,
    );

    const isolated = signer(vault, await createEvmWallet(vault, 'isolated'));
    const thresholdCall = signer(vault, threshold!);
    // Warm both paths (JIT, the TLS session) before measuring.
    for (let i = 0; i < 5; i++) await Promise.all([isolated(), thresholdCall()]);
    console.log(row(`isolated, open loop ${rate}/s`, await openLoopCalls(isolated, rate, seconds, child.pid)));
    console.log(row(`threshold on demand, open ${rate}/s`, await openLoopCalls(thresholdCall, rate, seconds, child.pid)));
    console.log(row(`isolated, closed ${concurrency} in flight`, await closedLoopCalls(isolated, seconds, concurrency, child.pid)));
    console.log(row(`threshold, closed ${concurrency} in flight`, await closedLoopCalls(thresholdCall, seconds, concurrency, child.pid)));
    console.log(`${'threshold, presignature ready'.padEnd(34)} not measured: presignatures are made on demand (no pool yet)`);
  } finally {
    await client.close();
    await stopSigner(child);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await thresholdBench();
