/**
 * Constant-time arithmetic modulo the secp256k1 group order
 * n = 0xffffffff ffffffff ffffffff fffffffe baaedce6 af48a03b bfd25e8c d0364141, without BigInt.
 *
 * A {@link Scalar} is an array of 22 limbs of 12 bits (little-endian, 264 bits), always fully
 * reduced (< n) and normalized (every limb in [0, 2^12)). Every operation runs the same instructions
 * on the same memory whatever the values: fixed loop counts, no branch and no early exit on a value,
 * no table indexed by a value, carries by shifts and masks, choices by masks (`select`, `cswap`).
 * Limbs of 12 bits keep every intermediate small: a product of two limbs is < 2^24, and a column of
 * `mulMont`/`mul`/`mulAddFixed` sums at most 44 of them plus a carry (< 2^30; `mulAddMont` 66, < 2^31),
 * so every value stays a V8 small integer ("Smi", 31 bits with pointer compression, 32 in Node's x64
 * builds) in every tier of the JIT (interpreter, baseline, optimized), with no overflow into a heap
 * number whose allocation would depend on the data; the arrays stay packed small-integer arrays.
 *
 * Multiplication is Montgomery's (CIOS, R = 2^264; Montgomery, "Modular multiplication without trial
 * division", 1985; Koç, Acar, Kaliski, "Analyzing and comparing Montgomery multiplication algorithms",
 * 1996); `mul` converts back, `mulMont` multiplies by an operand already in Montgomery form (the
 * gadget vector, the challenges) in one step. Inversion is Fermat's little theorem with the fixed,
 * public exponent n − 2 (the branch is on the exponent's bits, never on the operand).
 *
 * Where a branch is taken on a result (`isZero`, the strict decoder's `< n`), the result is public:
 * it decides whether a protocol aborts, which the peer sees anyway. See the README, "Constant time".
 * @module
 */
import { randomBytes } from 'node:crypto';
import { CheckFailed } from './errors.ts';

/** 22 limbs of 12 bits, little-endian, < n. Wipe secrets with `wipe` (or `.fill(0)`). */
export type Scalar = number[];

const K = 22;
const BITS = 12;
const MASK = 0xfff;
/** A fresh array of 22 small integers (an array literal: V8 keeps it as packed small integers). */
const alloc = (): Scalar => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];

/** 32 big-endian bytes at `at` → limbs: every 3 bytes (from the end) make 2 limbs; the top byte the last 12 bits. */
function limbsInto(out: Scalar, b: Uint8Array, at: number): Scalar {
  for (let m = 0; m < 10; m++) {
    const p = at + 31 - 3 * m;
    const b1 = b[p - 1]!;
    out[2 * m] = b[p]! | ((b1 & 0xf) << 8);
    out[2 * m + 1] = (b1 >> 4) | (b[p - 2]! << 4);
  }
  const top = b[at]!;
  out[20] = b[at + 1]! | ((top & 0xf) << 8);
  out[21] = top >> 4;
  return out;
}

const limbsOf = (b: Uint8Array, at: number): Scalar => limbsInto(alloc(), b, at);
const hexLimbs = (hex: string): Scalar => limbsOf(Buffer.from(hex, 'hex'), 0);
const N_LIMBS = hexLimbs('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141');
const HALF_N_LIMBS = hexLimbs('7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0');
/** R² mod n, R = 2^264 (to Montgomery form). */
const R2 = hexLimbs('1cd581c69bc5e697f5e45bcd07c73c1a3cedb42ce7fb6cbec074017ec566e1d9');
/** 2^256·R mod n (folds the high half of a 64-byte value). */
const K_R = hexLimbs('671cd581c69bc5e697f5e45bcd07c73b97594894fd6e33e4c8ee180c268b3b23');
/** −n⁻¹ mod 2^12. */
const NP = 319;
/** n − 2, the Fermat exponent (public). */
const N_MINUS_2 = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd036413f', 'hex');

/** Carries every limb into [0, 2^12); returns the carry out of the top limb (signed). */
function normalize(x: Scalar): number {
  let c = 0;
  for (let i = 0; i < K; i++) {
    const v = x[i]! + c;
    x[i] = v & MASK;
    c = v >> BITS;
  }
  return c;
}

/** −1 if x < n, else 0 (x normalized, < 2^264). */
function ltNMask(x: Scalar): number {
  let c = 0;
  for (let i = 0; i < K; i++) c = (x[i]! - N_LIMBS[i]! + c) >> BITS;
  return c;
}

/** x ← x − n if x ≥ n (x normalized, < 2n): the borrow of x − n first, then n or 0 subtracted by mask. */
function condSubN(x: Scalar): void {
  let c = 0;
  for (let i = 0; i < K; i++) c = (x[i]! - N_LIMBS[i]! + c) >> BITS;
  const m = ~c; // c = −1: x < n, subtract 0; c = 0: subtract n
  c = 0;
  for (let i = 0; i < K; i++) {
    const v = x[i]! - (N_LIMBS[i]! & m) + c;
    x[i] = v & MASK;
    c = v >> BITS;
  }
}

const M = new Int32Array(K); // the Montgomery quotient digits of the product in progress (wiped after)

/**
 * Montgomery product (a·b [+ c·d])·R⁻¹ mod n by product scanning (column by column, one accumulator):
 * column i sums a_j·b_(i−j) [+ c_j·d_(i−j)] + m_j·n_(i−j) (at most 3·22 products of 12-bit limbs plus
 * the carry: < 2^31), m_i = −acc·n⁻¹ mod 2^12 clears the column's low 12 bits, the carry moves on.
 * Inputs normalized with a, c < R and b, d < n, so the result is < 3n before the final subtractions.
 */
function montMul(a: Scalar, b: Scalar): Scalar {
  const m = M;
  const n = N_LIMBS;
  let acc = 0;
  for (let i = 0; i < K; i++) {
    for (let j = 0; j < i; j++) acc += a[j]! * b[i - j]! + m[j]! * n[i - j]!;
    acc += a[i]! * b[0]!;
    const mi = ((acc & MASK) * NP) & MASK;
    m[i] = mi;
    acc = (acc + mi * n[0]!) >> BITS; // exact: the low 12 bits are 0
  }
  const out = alloc();
  for (let i = K; i < 2 * K - 1; i++) {
    for (let j = i - K + 1; j < K; j++) acc += a[j]! * b[i - j]! + m[j]! * n[i - j]!;
    out[i - K] = acc & MASK;
    acc >>= BITS;
  }
  out[K - 1] = acc; // < 2n < 2^258: the top limb holds the rest
  m.fill(0);
  condSubN(out);
  return out;
}

/** The same for a·b + c·d (result < 3n before two subtractions). */
function montMul2(a: Scalar, b: Scalar, c: Scalar, d: Scalar): Scalar {
  const m = M;
  const n = N_LIMBS;
  let acc = 0;
  for (let i = 0; i < K; i++) {
    for (let j = 0; j < i; j++) acc += a[j]! * b[i - j]! + c[j]! * d[i - j]! + m[j]! * n[i - j]!;
    acc += a[i]! * b[0]! + c[i]! * d[0]!;
    const mi = ((acc & MASK) * NP) & MASK;
    m[i] = mi;
    acc = (acc + mi * n[0]!) >> BITS;
  }
  const out = alloc();
  for (let i = K; i < 2 * K - 1; i++) {
    for (let j = i - K + 1; j < K; j++) acc += a[j]! * b[i - j]! + c[j]! * d[i - j]! + m[j]! * n[i - j]!;
    out[i - K] = acc & MASK;
    acc >>= BITS;
  }
  out[K - 1] = acc;
  m.fill(0);
  condSubN(out);
  condSubN(out);
  return out;
}


export const zero = (): Scalar => alloc();
/** A small public constant (0 ≤ k < 2^24) as a scalar. */
export function fromSmall(k: number): Scalar {
  const s = alloc();
  s[0] = k & MASK;
  s[1] = (k >> BITS) & MASK;
  return s;
}
const ONE = fromSmall(1);

/**
 * The `…Into(out, …)` variants write the result into `out` (which may be one of the operands) and
 * return it: the same instructions without a fresh array, for loops that reuse their buffers.
 */
export const add = (a: Scalar, b: Scalar): Scalar => addInto(alloc(), a, b);
export function addInto(r: Scalar, a: Scalar, b: Scalar): Scalar {
  for (let i = 0; i < K; i++) r[i] = a[i]! + b[i]!;
  normalize(r);
  condSubN(r);
  return r;
}

export const sub = (a: Scalar, b: Scalar): Scalar => subInto(alloc(), a, b);
export function subInto(r: Scalar, a: Scalar, b: Scalar): Scalar {
  for (let i = 0; i < K; i++) r[i] = a[i]! - b[i]!;
  const borrow = normalize(r); // −1 if a < b (r = a − b + 2^264), else 0
  for (let i = 0; i < K; i++) r[i] = r[i]! + (N_LIMBS[i]! & borrow);
  normalize(r); // the carry out cancels the 2^264
  return r;
}

export const neg = (a: Scalar): Scalar => sub(zero(), a);

/** 2·a + b mod n (one step of Horner's rule over powers of two: < 3n before two subtractions). */
export const dblAdd = (a: Scalar, b: Scalar): Scalar => dblAddInto(alloc(), a, b);
export function dblAddInto(r: Scalar, a: Scalar, b: Scalar): Scalar {
  for (let i = 0; i < K; i++) r[i] = 2 * a[i]! + b[i]!;
  normalize(r);
  condSubN(r);
  condSubN(r);
  return r;
}

/** a·b mod n. */
export const mul = (a: Scalar, b: Scalar): Scalar => {
  const t = montMul(a, b);
  const r = montMul(t, R2);
  t.fill(0);
  return r;
};

/** a·R mod n: the Montgomery form, for an operand used in many products (`mulMont`). */
export const toMont = (a: Scalar): Scalar => montMul(a, R2);

/** a·b mod n where `bMont` = toMont(b). */
export const mulMont = (a: Scalar, bMont: Scalar): Scalar => montMul(a, bMont);

/** a·b + c·d mod n where `bMont` = toMont(b), `dMont` = toMont(d) (one reduction for both products). */
export const mulAddMont = (a: Scalar, bMont: Scalar, c: Scalar, dMont: Scalar): Scalar => montMul2(a, bMont, c, dMont);

/** 2^256 − n (129 bits, 11 limbs): 2^256 ≡ this mod n. */
const C_LIMBS = hexLimbs('000000000000000000000000000000014551231950b75fc4402da1732fc9bebf');

/**
 * A public multiplier prepared for many products: the limbs of its multiples c·2^(12i) mod n, i < 22,
 * flat, column-major (entry 22·j + i is limb j of c·2^(12i)).
 */
export type Fixed = readonly number[];
export function fixed(c: Scalar): Fixed {
  const t: number[] = new Array<number>(K * K).fill(0);
  const m = add(c, zero());
  for (let i = 0; i < K; i++) {
    for (let j = 0; j < K; j++) t[K * j + i] = m[j]!;
    // m ← m·2^12 mod n: the limbs move up one; the bits from 2^256 up (h < 2^12) fold back as h·(2^256 − n)
    const h = (m[20]! >> 4) | (m[21]! << 8);
    for (let j = K - 1; j > 0; j--) m[j] = m[j - 1]!;
    m[0] = 0;
    m[21] = m[21]! & 0xf;
    for (let j = 0; j < K; j++) m[j] = m[j]! + h * C_LIMBS[j]!;
    normalize(m); // < 2^256 + 2^141 < 2n
    condSubN(m);
  }
  m.fill(0);
  return t;
}

/**
 * a·c + b·d mod n for public multipliers prepared by {@link fixed} (the multiplication check's χ̃, χ̂):
 * column j sums a_i·(c·2^(12i))_j + b_i·(d·2^(12i))_j (44 products of 12-bit limbs: < 2^30), then
 * the part above 2^256 is folded back by 2^256 ≡ 2^256 − n (< 2^147 added to < 2^256: < 2n), and one
 * conditional subtraction. No reduction per product: about twice as fast as `mulAddMont`.
 */
export const mulAddFixed = (a: Scalar, c: Fixed, b: Scalar, d: Fixed): Scalar => mulAddFixedInto(alloc(), a, c, b, d);
export function mulAddFixedInto(out: Scalar, a: Scalar, c: Fixed, b: Scalar, d: Fixed): Scalar {
  // the limbs in locals and the column sum unrolled (generated: 22 terms of each product)
  const a0 = a[0]!, b0 = b[0]!;
  const a1 = a[1]!, b1 = b[1]!;
  const a2 = a[2]!, b2 = b[2]!;
  const a3 = a[3]!, b3 = b[3]!;
  const a4 = a[4]!, b4 = b[4]!;
  const a5 = a[5]!, b5 = b[5]!;
  const a6 = a[6]!, b6 = b[6]!;
  const a7 = a[7]!, b7 = b[7]!;
  const a8 = a[8]!, b8 = b[8]!;
  const a9 = a[9]!, b9 = b[9]!;
  const a10 = a[10]!, b10 = b[10]!;
  const a11 = a[11]!, b11 = b[11]!;
  const a12 = a[12]!, b12 = b[12]!;
  const a13 = a[13]!, b13 = b[13]!;
  const a14 = a[14]!, b14 = b[14]!;
  const a15 = a[15]!, b15 = b[15]!;
  const a16 = a[16]!, b16 = b[16]!;
  const a17 = a[17]!, b17 = b[17]!;
  const a18 = a[18]!, b18 = b[18]!;
  const a19 = a[19]!, b19 = b[19]!;
  const a20 = a[20]!, b20 = b[20]!;
  const a21 = a[21]!, b21 = b[21]!;
  let carry = 0;
  for (let j = 0; j < K; j++) {
    const o = K * j;
    const acc =
      carry +
      a0 * c[o + 0]! + b0 * d[o + 0]! + a1 * c[o + 1]! + b1 * d[o + 1]! +
      a2 * c[o + 2]! + b2 * d[o + 2]! + a3 * c[o + 3]! + b3 * d[o + 3]! +
      a4 * c[o + 4]! + b4 * d[o + 4]! + a5 * c[o + 5]! + b5 * d[o + 5]! +
      a6 * c[o + 6]! + b6 * d[o + 6]! + a7 * c[o + 7]! + b7 * d[o + 7]! +
      a8 * c[o + 8]! + b8 * d[o + 8]! + a9 * c[o + 9]! + b9 * d[o + 9]! +
      a10 * c[o + 10]! + b10 * d[o + 10]! + a11 * c[o + 11]! + b11 * d[o + 11]! +
      a12 * c[o + 12]! + b12 * d[o + 12]! + a13 * c[o + 13]! + b13 * d[o + 13]! +
      a14 * c[o + 14]! + b14 * d[o + 14]! + a15 * c[o + 15]! + b15 * d[o + 15]! +
      a16 * c[o + 16]! + b16 * d[o + 16]! + a17 * c[o + 17]! + b17 * d[o + 17]! +
      a18 * c[o + 18]! + b18 * d[o + 18]! + a19 * c[o + 19]! + b19 * d[o + 19]! +
      a20 * c[o + 20]! + b20 * d[o + 20]! + a21 * c[o + 21]! + b21 * d[o + 21]!;
    out[j] = acc & MASK; // a and b are in locals: out may be one of them
    carry = acc >> BITS;
  }
  // the sum < 44·2^12·n < 2^274: its part from 2^256 up, h < 2^18, is limb 21's top 4 bits and the carry out
  const h = (out[21]! >> 4) | (carry << 8);
  const h0 = h & MASK;
  const h1 = h >> BITS;
  out[21] = out[21]! & 0xf;
  out[0] = out[0]! + h0 * C_LIMBS[0]!;
  for (let j = 1; j < K; j++) out[j] = out[j]! + h0 * C_LIMBS[j]! + h1 * C_LIMBS[j - 1]!;
  normalize(out); // < 2^256 + 2^147 < 2n: no carry out
  condSubN(out);
  return out;
}

/** a⁻¹ mod n (0 gives 0) by a^(n−2): fixed square-and-multiply over the public exponent's bits. */
export function invert(a: Scalar): Scalar {
  const x = toMont(a);
  let r = toMont(ONE);
  for (let i = 0; i < 256; i++) {
    const sq = montMul(r, r);
    r.fill(0);
    r = sq;
    if ((N_MINUS_2[i >> 3]! >> (7 - (i & 7))) & 1) {
      const m = montMul(r, x);
      r.fill(0);
      r = m;
    }
  }
  const out = montMul(r, ONE);
  r.fill(0);
  x.fill(0);
  return out;
}

/** The binary extended Euclidean algorithm's steps (public values only: they branch on them). */
const isOnePublic = (x: Scalar): boolean => {
  let d = x[0]! ^ 1;
  for (let i = 1; i < K; i++) d |= x[i]!;
  return d === 0;
};
/** x ← x / 2 (x even, normalized). */
function shr1Public(x: Scalar): void {
  for (let i = 0; i < K - 1; i++) x[i] = (x[i]! >> 1) | ((x[i + 1]! & 1) << (BITS - 1));
  x[K - 1] = x[K - 1]! >> 1;
}
/** x ← x / 2 mod n (x < n): (x + n) / 2 when x is odd. */
function halvePublic(x: Scalar): void {
  if (x[0]! & 1) {
    for (let i = 0; i < K; i++) x[i] = x[i]! + N_LIMBS[i]!;
    normalize(x); // < 2n < 2^264
  }
  shr1Public(x);
}
/** x ≥ y (normalized). */
function gtePublic(x: Scalar, y: Scalar): boolean {
  for (let i = K - 1; i >= 0; i--) if (x[i] !== y[i]) return x[i]! > y[i]!;
  return true;
}
/** x ← x − y (x ≥ y), or x − y mod n with `modN` (x, y < n). */
function subPublic(x: Scalar, y: Scalar, modN: boolean): void {
  for (let i = 0; i < K; i++) x[i] = x[i]! - y[i]!;
  if (normalize(x) !== 0 && modN) {
    for (let i = 0; i < K; i++) x[i] = x[i]! + N_LIMBS[i]!;
    normalize(x); // the carry out cancels the 2^264
  }
}

/**
 * a⁻¹ mod n for a **public** a (0 gives 0): the binary extended Euclidean algorithm, whose loop
 * counts and branches depend on a; several times faster than {@link invert}. Only for values the
 * peer knows anyway (the last round's u = u_1 + u_2, which both final messages carry in the clear).
 */
export function invertPublic(a: Scalar): Scalar {
  if (isZero(a)) return zero();
  const u = add(a, zero());
  const v = N_LIMBS.slice();
  const x1 = fromSmall(1);
  const x2 = zero();
  while (!isOnePublic(u) && !isOnePublic(v)) {
    while ((u[0]! & 1) === 0) {
      shr1Public(u);
      halvePublic(x1);
    }
    while ((v[0]! & 1) === 0) {
      shr1Public(v);
      halvePublic(x2);
    }
    if (gtePublic(u, v)) {
      subPublic(u, v, false);
      subPublic(x1, x2, true);
    } else {
      subPublic(v, u, false);
      subPublic(x2, x1, true);
    }
  }
  return isOnePublic(u) ? x1 : x2;
}

/** `mask` −1 → a, 0 → b. */
export const select = (mask: number, a: Scalar, b: Scalar): Scalar => selectInto(alloc(), mask, a, b);
export function selectInto(r: Scalar, mask: number, a: Scalar, b: Scalar): Scalar {
  for (let i = 0; i < K; i++) r[i] = b[i]! ^ ((a[i]! ^ b[i]!) & mask);
  return r;
}

/** Swaps a and b in place when `mask` is −1. */
export function cswap(mask: number, a: Scalar, b: Scalar): void {
  for (let i = 0; i < K; i++) {
    const t = (a[i]! ^ b[i]!) & mask;
    a[i] = a[i]! ^ t;
    b[i] = b[i]! ^ t;
  }
}

/** A secret bit (0 or 1) → the mask select/cswap take (0 or −1). */
export const bitMask = (bit: number): number => -(bit & 1);

/** −1 if a = b, else 0. */
export function eqMask(a: Scalar, b: Scalar): number {
  let d = 0;
  for (let i = 0; i < K; i++) d |= a[i]! ^ b[i]!;
  return (d - 1) >> 31;
}

export const isZeroMask = (a: Scalar): number => eqMask(a, ONE_ZERO);
const ONE_ZERO = alloc();
/** For checks whose outcome is public (the session aborts or not). */
export const isZero = (a: Scalar): boolean => isZeroMask(a) !== 0;
export const equal = (a: Scalar, b: Scalar): boolean => eqMask(a, b) !== 0;

/** −1 if a > (n − 1)/2 (a "high" s), else 0. */
export function isHighMask(a: Scalar): number {
  let c = 0;
  for (let i = 0; i < K; i++) c = (HALF_N_LIMBS[i]! - a[i]! + c) >> BITS;
  return c;
}

/** 32 big-endian bytes, any value < 2^256, reduced mod n (one conditional subtraction). */
export const fromBytesReduce = (b: Uint8Array, at = 0): Scalar => fromBytesReduceInto(alloc(), b, at);
export function fromBytesReduceInto(x: Scalar, b: Uint8Array, at = 0): Scalar {
  limbsInto(x, b, at);
  condSubN(x);
  return x;
}

/** Strict decoding of a peer's scalar: exactly 32 bytes and < n, else `CheckFailed('scalar not reduced')`. */
export const fromBytesStrict = (b: Uint8Array, at = 0, length = b.length - at): Scalar => fromBytesStrictInto(alloc(), b, at, length);
export function fromBytesStrictInto(x: Scalar, b: Uint8Array, at = 0, length = b.length - at): Scalar {
  if (length !== 32) throw new CheckFailed('scalar length');
  limbsInto(x, b, at);
  if (ltNMask(x) === 0) {
    x.fill(0);
    throw new CheckFailed('scalar not reduced');
  }
  return x;
}

/** 64 big-endian bytes (a hash output) mod n: hi·2^256 + lo. */
export function reduceWide(b: Uint8Array): Scalar {
  if (b.length !== 64) throw new CheckFailed('wide scalar length');
  const hi = fromBytesReduce(b, 0);
  const lo = fromBytesReduce(b, 32);
  const h = montMul(hi, K_R);
  const r = add(h, lo);
  wipe(hi, lo, h);
  return r;
}

/** Writes `s` as 32 big-endian bytes at `offset`. */
export function writeScalar(out: Uint8Array, offset: number, s: Scalar): void {
  for (let m = 0; m < 10; m++) {
    const p = offset + 31 - 3 * m;
    const lo = s[2 * m]!;
    const hi = s[2 * m + 1]!;
    out[p] = lo & 0xff;
    out[p - 1] = (lo >> 8) | ((hi & 0xf) << 4);
    out[p - 2] = hi >> 4;
  }
  out[offset + 1] = s[20]! & 0xff;
  out[offset] = ((s[20]! >> 8) | (s[21]! << 4)) & 0xff;
}

export function toBytes(s: Scalar): Uint8Array {
  const out = new Uint8Array(32);
  writeScalar(out, 0, s);
  return out;
}

/** A uniformly random scalar in [1, n) (rejection sampling; a rejected draw is discarded). */
export function random(): Scalar {
  for (;;) {
    const b = randomBytes(32);
    const x = limbsOf(b, 0);
    b.fill(0);
    if ((ltNMask(x) & ~isZeroMask(x)) !== 0) return x;
    x.fill(0);
  }
}

export function wipe(...xs: Scalar[]): void {
  for (const x of xs) x.fill(0);
}
