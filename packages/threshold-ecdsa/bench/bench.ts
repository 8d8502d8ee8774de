/**
 * DKLs23 2-of-2 in one process: CPU time of each party per step, message sizes per round, then many
 * signatures, each verified by @noble/curves (the full-size property check).
 *   npx tsx bench/bench.ts [--signatures 1000] [--keys 3]
 */
import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { DkgSession, OtSetupSession, SignSession, type KeyShare } from '../src/index.ts';

const arg = (name: string, dflt: number): number => {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? Number(process.argv[i + 1]) : dflt;
};
const SIGNATURES = arg('signatures', 1000);
const KEYS = arg('keys', 3);

const cpu: Record<string, number[]> = {};
const sizes: Record<string, number> = {};
function party<T>(step: string, id: 1 | 2, f: () => T): T {
  const t = performance.now();
  const out = f();
  (cpu[`${step} P${id}`] ??= []).push(performance.now() - t);
  if (out instanceof Uint8Array) sizes[`${step} P${id}`] = out.length;
  return out;
}

function dkg(): [KeyShare, KeyShare] {
  const a = party('dkg.hello', 1, () => new DkgSession(1));
  const b = party('dkg.hello', 2, () => new DkgSession(2));
  const [h1, h2] = [party('dkg.hello', 1, () => a.hello()), party('dkg.hello', 2, () => b.hello())];
  const [c1, c2] = [party('dkg.commit', 1, () => a.commit(h2)), party('dkg.commit', 2, () => b.commit(h1))];
  const [o1, o2] = [party('dkg.open', 1, () => a.open(c2)), party('dkg.open', 2, () => b.open(c1))];
  return [party('dkg.finish', 1, () => a.finish(o2)).share, party('dkg.finish', 2, () => b.finish(o1)).share];
}

function otSetup(s1: KeyShare, s2: KeyShare): void {
  const a = new OtSetupSession(s1);
  const b = new OtSetupSession(s2);
  let m1 = party('ot.hello', 1, () => a.hello());
  let m2 = party('ot.hello', 2, () => b.hello());
  for (const r of ['round1', 'round2', 'round3', 'round4', 'round5'] as const) {
    const [x, y] = [m1, m2];
    m1 = party(`ot.${r}`, 1, () => a[r](y));
    m2 = party(`ot.${r}`, 2, () => b[r](x));
  }
  party('ot.finish', 1, () => a.finish(m2));
  party('ot.finish', 2, () => b.finish(m1));
}

function signOnce(s1: KeyShare, s2: KeyShare, digest: Uint8Array) {
  const a = party('presign', 1, () => new SignSession(s1));
  const b = party('presign', 2, () => new SignSession(s2));
  const [h1, h2] = [party('sign.hello', 1, () => a.hello()), party('sign.hello', 2, () => b.hello())];
  const [r1, r2] = [party('sign.round1', 1, () => a.round1(h2)), party('sign.round1', 2, () => b.round1(h1))];
  const [q1, q2] = [party('sign.round2', 1, () => a.round2(r2)), party('sign.round2', 2, () => b.round2(r1))];
  const [p1, p2] = [party('sign.presign', 1, () => a.presign(q2)), party('sign.presign', 2, () => b.presign(q1))];
  const f1 = party('sign.final', 1, () => p1.prepareFinalMessage(digest));
  const f2 = party('sign.final', 2, () => p2.prepareFinalMessage(digest));
  sizes['sign.final P1'] = f1.message.length;
  sizes['sign.final P2'] = f2.message.length;
  const sig = party('sign.combine', 1, () => f1.finish(f2.message));
  party('sign.combine', 2, () => f2.finish(f1.message));
  return sig;
}

const sum = (xs: number[] = []) => xs.reduce((s, x) => s + x, 0);
const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
const fmt = (x: number) => x.toFixed(2).padStart(8);
const perParty = (prefixes: string[], id: 1 | 2, runs: number) => prefixes.reduce((s, p) => s + sum(cpu[`${p} P${id}`]), 0) / runs;

console.log(`DKLs23 2-of-2 secp256k1, one process, node ${process.version}`);
const shares: [KeyShare, KeyShare][] = [];
for (let k = 0; k < KEYS; k++) {
  const pair = dkg();
  otSetup(...pair);
  shares.push(pair);
}
const dkgSteps = ['dkg.hello', 'dkg.commit', 'dkg.open', 'dkg.finish'];
const otSteps = ['ot.hello', 'ot.round1', 'ot.round2', 'ot.round3', 'ot.round4', 'ot.round5', 'ot.finish'];
console.log(`\nkey generation (mean of ${KEYS}), ms CPU per party`);
console.log(`  DKG        P1 ${fmt(perParty(dkgSteps, 1, KEYS))}   P2 ${fmt(perParty(dkgSteps, 2, KEYS))}   (3 messages each way)`);
console.log(`  OT setup   P1 ${fmt(perParty(otSteps, 1, KEYS))}   P2 ${fmt(perParty(otSteps, 2, KEYS))}   (6 messages each way)`);
console.log(`  key share  ${shares[0]![0].encode().length} bytes (with OT correlations)`);

for (const k of Object.keys(cpu)) if (k.startsWith('sign') || k.startsWith('presign')) delete cpu[k];
const totals: number[] = [];
const cpuTotals: number[] = [];
const t0 = performance.now();
for (let i = 0; i < SIGNATURES; i++) {
  const [s1, s2] = shares[i % shares.length]!;
  const digest = randomBytes(32);
  const t = performance.now();
  const c = process.cpuUsage();
  const sig = signOnce(s1, s2, digest);
  const used = process.cpuUsage(c);
  cpuTotals.push((used.user + used.system) / 1000);
  totals.push(performance.now() - t);
  if (!secp256k1.verify(sig.compact, digest, s1.publicKey, { prehash: false, lowS: true })) throw new Error(`signature ${i} does not verify`);
  const pub = secp256k1.Signature.fromBytes(sig.compact, 'compact').addRecoveryBit(sig.recovery).recoverPublicKey(digest).toBytes(true);
  if (!Buffer.from(pub).equals(Buffer.from(s1.publicKey))) throw new Error(`signature ${i}: recovery id`);
}
const wall = performance.now() - t0;
const presignSteps = ['presign', 'sign.hello', 'sign.round1', 'sign.round2', 'sign.presign'];
const finishSteps = ['sign.final', 'sign.combine'];
console.log(`\nsigning: ${SIGNATURES} signatures over ${KEYS} keys, each verified by @noble/curves (low-S, recovery id)`);
console.log(`  presign (hello + rounds 1-2 + checks) ms CPU  P1 ${fmt(perParty(presignSteps, 1, SIGNATURES))}   P2 ${fmt(perParty(presignSteps, 2, SIGNATURES))}`);
const step = (p: string, id: 1 | 2) => perParty([p], id, SIGNATURES).toFixed(2);
console.log(`    of which round 1 / round 2 / checks (presign)  P1 ${step('sign.round1', 1)} / ${step('sign.round2', 1)} / ${step('sign.presign', 1)}   P2 ${step('sign.round1', 2)} / ${step('sign.round2', 2)} / ${step('sign.presign', 2)}`);
console.log(`  finish (round 3 + combine + verify)   ms CPU  P1 ${fmt(perParty(finishSteps, 1, SIGNATURES))}   P2 ${fmt(perParty(finishSteps, 2, SIGNATURES))}`);
console.log(`  both parties, one process, per signature: mean ${fmt(sum(totals) / SIGNATURES)} ms, p50 ${fmt(pct(totals, 50))}, p99 ${fmt(pct(totals, 99))}; ${(SIGNATURES / (wall / 1000)).toFixed(1)} signatures/s`);

console.log(`  process CPU time per signature (both parties, with GC; less sensitive to other load than the wall times above): mean ${fmt(sum(cpuTotals) / SIGNATURES)} ms, p50 ${fmt(pct(cpuTotals, 50))}`);

console.log('\nmessage sizes (bytes, each party sends one of each)');
for (const step of ['dkg.hello', 'dkg.commit', 'dkg.open', ...otSteps.slice(0, 6), 'sign.hello', 'sign.round1', 'sign.round2', 'sign.final']) {
  if (sizes[`${step} P1`] !== undefined) console.log(`  ${step.padEnd(12)} ${String(sizes[`${step} P1`]).padStart(7)}`);
}
