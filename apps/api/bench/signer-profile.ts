/**
 * Where the CPU of a signature through the signer goes: `node --import tsx apps/api/bench/signer-profile.ts evm|solana`
 * (or `evm-open|solana-open`: the open loop at BENCH_SIGNER_EVM_RATE / BENCH_SIGNER_SOLANA_RATE)
 * runs a closed loop (BENCH_CONCURRENCY, 4, in flight, BENCH_SIGNER_PROFILE_SECONDS, 8 s) of
 * sign-message through a signer process, with both this process and the signer under the V8 CPU
 * profiler, and prints each side's self time by function (top 25) and the CPU per signature.
 * The .cpuprofile files stay in BENCH_PROFILE_DIR (default a temporary directory) for DevTools.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { API_KEK_ROLES, fileKekProvider, resolveRecoveryPublicKey } from '@wallet/domain';
import { createSignerClient, signerClientSettings } from '@wallet/signer/client';
import { createApiKeyVault } from '../src/custody/remote-vault.ts';
import { createWallet, signer, spawnSigner, stopSigner } from './signer.ts';
import { closedLoopCalls, openLoopCalls } from './signer-load.ts';

/** utime, stime (ms) and voluntary + involuntary context switches of all a process's threads. */
function processCounters(pid: number): { userMs: number; systemMs: number; switches: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  let switches = 0;
  for (const task of readdirSync(`/proc/${pid}/task`)) {
    try {
      const status = readFileSync(`/proc/${pid}/task/${task}/status`, 'utf8');
      for (const m of status.matchAll(/ctxt_switches:\s+(\d+)/g)) switches += Number(m[1]);
    } catch {
      /* the thread ended */
    }
  }
  return { userMs: Number(fields[11]) * 10, systemMs: Number(fields[12]) * 10, switches };
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples?: number[];
  timeDeltas?: number[];
}

/** Self time by function (name, file, line), in ms, with the profile's total. */
export function selfTimes(profile: Profile): { totalMs: number; rows: { name: string; ms: number }[] } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  const samples = profile.samples ?? [];
  const deltas = profile.timeDeltas ?? [];
  for (let i = 0; i < samples.length; i++) self.set(samples[i]!, (self.get(samples[i]!) ?? 0) + (deltas[i + 1] ?? deltas[i] ?? 0));
  const totals = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const file = url ? url.replace(/^.*\/(node_modules|apps|packages)\//, '$1/').replace(/^file:\/\//, '') : '';
    const key = `${functionName || '(anonymous)'} ${file}${file ? `:${lineNumber + 1}` : ''}`;
    totals.set(key, (totals.get(key) ?? 0) + us);
  }
  const rows = [...totals].map(([name, us]) => ({ name, ms: us / 1000 })).sort((a, b) => b.ms - a.ms);
  return { totalMs: (profile.endTime - profile.startTime) / 1000, rows };
}

function print(title: string, profile: Profile, signatures: number, top = 25): void {
  const { rows } = selfTimes(profile);
  const busy = rows.filter((r) => !/^\((idle|program|garbage collector)\)/.test(r.name)).reduce((s, r) => s + r.ms, 0);
  console.log(`\n${title}: ${(busy / signatures).toFixed(3)} ms of JS per signature sampled (${signatures} signatures)`);
  for (const r of rows.slice(0, top)) console.log(`${((r.ms * 1000) / signatures).toFixed(1).padStart(8)} µs/sig  ${r.name}`);
}

const mode = process.argv[2] ?? 'evm';
const chain = mode.startsWith('solana') ? 'SOLANA' : 'EVM';
const rate = mode.endsWith('-open') ? Number(process.env[chain === 'EVM' ? 'BENCH_SIGNER_EVM_RATE' : 'BENCH_SIGNER_SOLANA_RATE'] ?? (chain === 'EVM' ? 200 : 100)) : undefined;
const seconds = Number(process.env.BENCH_SIGNER_PROFILE_SECONDS ?? 8);
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4);
const profileDir = process.env.BENCH_PROFILE_DIR ?? mkdtempSync(path.join(tmpdir(), 'wallet-signer-profile-'));
mkdirSync(profileDir, { recursive: true });
const dataDir = mkdtempSync(path.join(tmpdir(), 'wallet-bench-signer-'));
// BENCH_PROFILE=off: no profiler (its sampling costs CPU too), only user/system CPU and context switches.
const profiling = process.env.BENCH_PROFILE !== 'off';
if (profiling) process.env.BENCH_SIGNER_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${profileDir}`;
const child = await spawnSigner({
  APP_ENV: 'local',
  DATA_DIR: dataDir,
  LOG_LEVEL: 'warn',
  SIGNER_MAX_SIGNATURES_PER_WALLET_PER_MINUTE: '100000000',
});
const settings = signerClientSettings({ APP_ENV: 'local' }, dataDir);
const client = createSignerClient(settings);
const vault = createApiKeyVault(client, {
  keks: fileKekProvider(path.join(dataDir, 'api'), API_KEK_ROLES),
  recovery: () => resolveRecoveryPublicKey({ appEnv: 'local', file: undefined, localDir: path.join(dataDir, 'recovery') }),
});
const call = signer(vault, await createWallet(vault, chain));
const warm = await closedLoopCalls(call, 1, concurrency, child.pid);
const inspector = new Session();
if (profiling) {
  inspector.connect();
  await inspector.post('Profiler.enable');
  await inspector.post('Profiler.start');
}
const counters0 = [processCounters(process.pid), processCounters(child.pid!)];
console.log(`signer pid ${child.pid}, API pid ${process.pid}: measuring ${seconds} s`);
const result = rate ? await openLoopCalls(call, rate, seconds, child.pid) : await closedLoopCalls(call, seconds, concurrency, child.pid);
const counters1 = [processCounters(process.pid), processCounters(child.pid!)];
const profile = profiling ? ((await inspector.post('Profiler.stop')) as { profile: Profile }).profile : undefined;
await client.close();
await stopSigner(child);
console.log(`${chain} ${rate ? `open loop at ${rate}/s` : `closed loop, ${concurrency} in flight`}, ${seconds} s: ${result.perSecond.toFixed(0)}/s, p50 ${result.p50.toFixed(2)} ms, p99 ${result.p99.toFixed(2)} ms, CPU/sig: API ${result.cpuSelfMs.toFixed(3)} ms, signer ${result.cpuOtherMs?.toFixed(3)} ms`);
for (const [i, who] of ['API', 'signer'].entries()) {
  const [a, b] = [counters0[i]!, counters1[i]!];
  const per = (x: number, y: number) => ((y - x) / result.ok).toFixed(3);
  console.log(`${who}: user ${per(a.userMs, b.userMs)} ms, system ${per(a.systemMs, b.systemMs)} ms, context switches ${per(a.switches, b.switches)} per signature`);
}
if (!profile) process.exit(0);
print('API (this process, load loop included)', profile, result.ok);
const signerFile = readdirSync(profileDir).filter((f) => f.startsWith('CPU.') && f.endsWith('.cpuprofile')).map((f) => path.join(profileDir, f)).at(-1);
writeFileSync(path.join(profileDir, `api-${process.pid}.cpuprofile`), JSON.stringify(profile));
// The signer's profile covers its whole life (start-up, warm-up): its per-signature figures are upper bounds.
if (signerFile) print('signer (whole run, warm-up included)', JSON.parse(readFileSync(signerFile, 'utf8')) as Profile, result.ok + warm.ok + 1);
rmSync(dataDir, { recursive: true, force: true });
console.log(`\nprofiles in ${profileDir}`);
