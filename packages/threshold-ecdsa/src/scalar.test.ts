import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { CheckFailed } from './errors.ts';
import * as S from './scalar.ts';

/** The constant-time scalar arithmetic against BigInt reference arithmetic mod n (tests only use BigInt). */
const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
const TWO256 = 1n << 256n;
const hex = (x: bigint, bytes = 32) => Buffer.from(x.toString(16).padStart(bytes * 2, '0'), 'hex');
const big = (b: Uint8Array) => (b.length ? BigInt('0x' + Buffer.from(b).toString('hex')) : 0n);
const sc = (x: bigint) => S.fromBytesReduce(hex(x));
const val = (s: S.Scalar) => big(S.toBytes(s));
const mod = (x: bigint) => ((x % N) + N) % N;
const inv = (a: bigint) => {
  let [r, b, e] = [1n, mod(a), N - 2n];
  for (; e > 0n; e >>= 1n, b = (b * b) % N) if (e & 1n) r = (r * b) % N;
  return r;
};

const EDGES = [0n, 1n, 2n, 3n, N - 1n, N - 2n, N - 3n, (N - 1n) / 2n, (N + 1n) / 2n, (1n << 128n) - 1n, 1n << 128n, 1n << 255n, TWO256 - 1n - N, 0xfffn, 0x1000n];
const RANDOM = 3000;
const randomValues = () => Array.from({ length: RANDOM }, () => mod(big(randomBytes(32))));

/** Every value is a normalized scalar: 22 limbs of 12 bits, < n. */
function expectCanonical(s: S.Scalar): void {
  expect(s.length).toBe(22);
  expect(s.every((limb) => limb >>> 12 === 0)).toBe(true);
  expect(val(s) < N).toBe(true);
}

describe('constant-time scalars mod n, against BigInt', () => {
  it('encodes and decodes 32-byte big-endian values (edges and random)', () => {
    for (const x of [...EDGES, ...randomValues()]) {
      const s = sc(x);
      expectCanonical(s);
      expect(Buffer.from(S.toBytes(s)).equals(hex(x))).toBe(true);
      expect(val(S.fromBytesStrict(hex(x)))).toBe(x);
    }
  });

  it('reduces any 32 bytes mod n, and the strict decoder refuses every value ≥ n', () => {
    for (const x of [N, N + 1n, N + 2n, TWO256 - 1n, TWO256 - 2n, N + (1n << 100n), ...Array.from({ length: 500 }, () => N + (big(randomBytes(32)) % (TWO256 - N)))]) {
      expect(val(S.fromBytesReduce(hex(x)))).toBe(x % N);
      expect(() => S.fromBytesStrict(hex(x))).toThrow(new CheckFailed('scalar not reduced'));
    }
    expect(() => S.fromBytesStrict(new Uint8Array(31))).toThrow(new CheckFailed('scalar length'));
    expect(() => S.fromBytesStrict(new Uint8Array(33))).toThrow(new CheckFailed('scalar length'));
  });

  it('reduces 64-byte hash outputs mod n (0, 2^512 − 1, n·2^256, random)', () => {
    const wide = [0n, 1n, N, N * TWO256, N * TWO256 + N - 1n, (1n << 512n) - 1n, TWO256 - 1n, TWO256];
    for (const x of [...wide, ...Array.from({ length: RANDOM }, () => big(randomBytes(64)))]) {
      const r = S.reduceWide(hex(x, 64));
      expectCanonical(r);
      expect(val(r)).toBe(x % N);
    }
  });

  it('adds, subtracts, negates and multiplies as BigInt mod n does (edges × edges and thousands of random pairs)', () => {
    const xs = randomValues();
    const pairs: [bigint, bigint][] = EDGES.flatMap((a) => EDGES.map((b) => [a, b] as [bigint, bigint]));
    for (let i = 0; i < RANDOM; i++) pairs.push([xs[i]!, xs[(i * 7 + 1) % RANDOM]!]);
    for (const [a, b] of pairs) {
      const [A, B] = [sc(a), sc(b)];
      for (const [got, want] of [
        [S.add(A, B), mod(a + b)],
        [S.sub(A, B), mod(a - b)],
        [S.neg(A), mod(-a)],
        [S.dblAdd(A, B), mod(2n * a + b)],
        [S.mulAddFixed(A, S.fixed(B), B, S.fixed(A)), mod(2n * a * b)],
        [S.mulAddFixed(A, S.fixed(A), B, S.fixed(B)), mod(a * a + b * b)],
        [S.mul(A, B), mod(a * b)],
        [S.mulMont(A, S.toMont(B)), mod(a * b)],
        [S.mulAddMont(A, S.toMont(B), B, S.toMont(A)), mod(2n * a * b)],
        [S.mulAddMont(A, S.toMont(A), B, S.toMont(B)), mod(a * a + b * b)],
      ] as [S.Scalar, bigint][]) {
        expectCanonical(got);
        expect(val(got)).toBe(want);
      }
    }
  });

  it('the in-place variants (…Into) give BigInt\'s results into a reused buffer, also when it is an operand', () => {
    const xs = randomValues();
    const pairs: [bigint, bigint][] = EDGES.flatMap((a) => EDGES.map((b) => [a, b] as [bigint, bigint]));
    for (let i = 0; i < 1000; i++) pairs.push([xs[i]!, xs[(i * 7 + 1) % RANDOM]!]);
    const out = sc(N - 1n); // stale content must not leak into a result
    for (const [a, b] of pairs) {
      const [A, B] = [sc(a), sc(b)];
      const cases: [(o: S.Scalar, x: S.Scalar, y: S.Scalar) => S.Scalar, (x: bigint, y: bigint) => bigint][] = [
        [S.addInto, (x, y) => mod(x + y)],
        [S.subInto, (x, y) => mod(x - y)],
        [S.dblAddInto, (x, y) => mod(2n * x + y)],
        [(o, x, y) => S.mulAddFixedInto(o, x, S.fixed(y), y, S.fixed(x)), (x, y) => mod(2n * x * y)],
        [(o, x, y) => S.selectInto(o, -1, x, y), (x) => x],
        [(o, x, y) => S.selectInto(o, 0, x, y), (_, y) => y],
      ];
      for (const [f, want] of cases) {
        expect(f(out, A, B)).toBe(out);
        expectCanonical(out);
        expect(val(out)).toBe(want(a, b));
        const [a1, b1] = [sc(a), sc(b)]; // the result into the first operand, then into the second
        expect(val(f(a1, a1, sc(b)))).toBe(want(a, b));
        expect(val(f(b1, sc(a), b1))).toBe(want(a, b));
      }
      const bytes = hex(a);
      expect(val(S.fromBytesReduceInto(out, bytes))).toBe(a);
      expect(val(S.fromBytesStrictInto(out, bytes, 0, 32))).toBe(a);
    }
    for (const x of [N, TWO256 - 1n, ...Array.from({ length: 200 }, () => big(randomBytes(32)))]) {
      expect(val(S.fromBytesReduceInto(out, hex(x)))).toBe(x % N);
      if (x >= N) expect(() => S.fromBytesStrictInto(out, hex(x), 0, 32)).toThrow(new CheckFailed('scalar not reduced'));
    }
  });

  it('fixed(c) holds c·2^(12i) mod n, i < 22, reduced (its entry 22·j + i is limb j)', () => {
    for (const c of [...EDGES, ...randomValues().slice(0, 300)]) {
      const t = S.fixed(sc(c));
      for (let i = 0; i < 22; i++) {
        const m = Array.from({ length: 22 }, (_, j) => t[22 * j + i]!);
        expectCanonical(m);
        expect(val(m)).toBe(mod(c << BigInt(12 * i)));
      }
    }
  });

  it('inverts by Fermat (and 0 to 0)', () => {
    for (const a of [...EDGES, ...randomValues().slice(0, 300)]) {
      const r = S.invert(sc(a));
      expect(val(r)).toBe(inv(a));
      if (a !== 0n) expect(val(S.mul(r, sc(a)))).toBe(1n);
    }
  });

  it('inverts public values by the binary extended Euclidean algorithm as Fermat does (and 0 to 0)', () => {
    for (const a of [...EDGES, 2n, 3n, N - 2n, ...randomValues().slice(0, 300)]) {
      const r = S.invertPublic(sc(a));
      expectCanonical(r);
      expect(val(r)).toBe(inv(a));
    }
  });

  it('selects, swaps and compares by mask', () => {
    const [a, b] = [sc(5n), sc(N - 1n)];
    expect(val(S.select(-1, a, b))).toBe(5n);
    expect(val(S.select(0, a, b))).toBe(N - 1n);
    expect(val(S.select(S.bitMask(1), a, b))).toBe(5n);
    expect(val(S.select(S.bitMask(0), a, b))).toBe(N - 1n);
    S.cswap(0, a, b);
    expect([val(a), val(b)]).toEqual([5n, N - 1n]);
    S.cswap(-1, a, b);
    expect([val(a), val(b)]).toEqual([N - 1n, 5n]);
    expect(S.eqMask(a, sc(N - 1n))).toBe(-1);
    expect(S.eqMask(a, b)).toBe(0);
    expect(S.isZeroMask(S.zero())).toBe(-1);
    expect(S.isZeroMask(sc(1n))).toBe(0);
    expect(S.isZero(S.sub(a, a))).toBe(true);
    expect(S.equal(sc(7n), S.fromSmall(7))).toBe(true);
    for (const x of [0n, 1n, (N - 1n) / 2n, (N + 1n) / 2n, N - 1n, ...randomValues().slice(0, 500)]) {
      expect(S.isHighMask(sc(x))).toBe(x > (N - 1n) / 2n ? -1 : 0);
    }
  });

  it('draws random scalars in [1, n) and wipes', () => {
    for (let i = 0; i < 200; i++) {
      const r = S.random();
      expectCanonical(r);
      expect(val(r)).not.toBe(0n);
    }
    const s = sc(123456789n);
    S.wipe(s);
    expect(S.isZero(s)).toBe(true);
  });
});
