/**
 * The constant-time scalar arithmetic (src/scalar.ts, 22 × 12-bit limbs, Montgomery) beside the BigInt
 * arithmetic it replaces (src/curve.ts), in one run, on the same random operands.
 *   npx tsx bench/scalar.ts
 */
import { randomBytes } from 'node:crypto';
import * as B from '../src/curve.ts';
import * as S from '../src/scalar.ts';
import { mulBase } from '../src/group.ts';
import { proveDlog, verifyDlog } from '../src/proofs.ts';

function time(label: string, n: number, f: (i: number) => unknown): number {
  for (let i = 0; i < Math.min(2000, n); i++) f(i);
  const t = performance.now();
  for (let i = 0; i < n; i++) f(i);
  const us = ((performance.now() - t) * 1000) / n;
  console.log(`${label.padEnd(40)} ${us.toFixed(3).padStart(9)} µs`);
  return us;
}

const raw = Array.from({ length: 64 }, () => randomBytes(32));
const wide = Array.from({ length: 64 }, () => randomBytes(64));
const bs = raw.map((b) => B.mod(B.bytesToBig(b)));
const ss = raw.map((b) => S.fromBytesReduce(b));
const sm = ss.map((s) => S.toMont(s));
const fx = ss.slice(0, 16).map((s) => S.fixed(s));
const pairs: [string, (i: number) => unknown, (i: number) => unknown, number][] = [
  ['a + b', (i) => B.add(bs[i & 63]!, bs[(i + 1) & 63]!), (i) => S.add(ss[i & 63]!, ss[(i + 1) & 63]!), 200000],
  ['a − b', (i) => B.sub(bs[i & 63]!, bs[(i + 1) & 63]!), (i) => S.sub(ss[i & 63]!, ss[(i + 1) & 63]!), 200000],
  ['a·b', (i) => B.mul(bs[i & 63]!, bs[(i + 7) & 63]!), (i) => S.mul(ss[i & 63]!, ss[(i + 7) & 63]!), 100000],
  ['a·b, b in Montgomery form (mulMont)', (i) => B.mul(bs[i & 63]!, bs[(i + 7) & 63]!), (i) => S.mulMont(ss[i & 63]!, sm[(i + 7) & 63]!), 100000],
  ['a·b + c·d (mulAddMont)', (i) => B.add(B.mul(bs[i & 63]!, bs[(i + 7) & 63]!), B.mul(bs[(i + 1) & 63]!, bs[(i + 9) & 63]!)), (i) => S.mulAddMont(ss[i & 63]!, sm[(i + 7) & 63]!, ss[(i + 1) & 63]!, sm[(i + 9) & 63]!), 100000],
  ['a·c + b·d, c, d fixed (mulAddFixed)', (i) => B.add(B.mul(bs[i & 63]!, bs[7]!), B.mul(bs[(i + 1) & 63]!, bs[9]!)), (i) => S.mulAddFixed(ss[i & 63]!, fx[7]!, ss[(i + 1) & 63]!, fx[9]!), 100000],
  ['a⁻¹ (Fermat)', (i) => B.inv(bs[i & 63]!), (i) => S.invert(ss[i & 63]!), 2000],
  ['32 bytes → scalar (mod n)', (i) => B.mod(B.bytesToBig(raw[i & 63]!)), (i) => S.fromBytesReduce(raw[i & 63]!), 200000],
  ['64 bytes → scalar (mod n)', (i) => B.mod(B.bytesToBig(wide[i & 63]!)), (i) => S.reduceWide(wide[i & 63]!), 100000],
  ['scalar → 32 bytes', (i) => B.bigToBytes(bs[i & 63]!), (i) => S.toBytes(ss[i & 63]!), 200000],
];
console.log(`scalar arithmetic mod n, node ${process.version} (µs per call; BigInt, then constant time)`);
for (const [label, big, ct, n] of pairs) {
  const b = time(`BigInt   ${label}`, n, big);
  const c = time(`Scalar   ${label}`, n, ct);
  console.log(`${''.padEnd(40)} ${(c / b).toFixed(1).padStart(8)}×\n`);
}

const x = S.random();
const X = mulBase(x);
const sid = randomBytes(32);
const proof = proveDlog('dkg', sid, 1, 2, x, X);
time('Fischlin proof of knowledge: prove', 20, () => proveDlog('dkg', sid, 1, 2, x, X));
time('Fischlin proof of knowledge: verify', 20, () => verifyDlog('dkg', sid, 1, 2, X, proof));
