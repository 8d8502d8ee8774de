/**
 * BigInt reference arithmetic mod n, for tests and benchmarks only: **no protocol module imports this
 * file** (the protocol's scalars are the constant-time `scalar.ts`, its group operations `group.ts`;
 * `no-bigint.test.ts` enforces it). BigInt is not constant time (V8 trims leading zero digits and its
 * multiplication and division run on the trimmed length), so it is kept here as the independent
 * reference the constant-time code is tested against, and for crafting a deviating peer's messages.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { check } from './errors.ts';
import { ecc } from './group.ts';

export {
  POINT_BYTES, SCALAR_BYTES, assertPeerPoint, addPoints, negPoint, equalBytes, concat, taggedHash, taggedXof, u32be, isPrivateBytes, ecc,
} from './group.ts';

export const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;

export const mod = (a: bigint): bigint => {
  const r = a % N;
  return r < 0n ? r + N : r;
};
export const add = (a: bigint, b: bigint): bigint => mod(a + b);
export const sub = (a: bigint, b: bigint): bigint => mod(a - b);
export const mul = (a: bigint, b: bigint): bigint => (a * b) % N;

/** Inverse mod n (Fermat), the reference for `scalar.ts`'s `invert`. */
export function inv(a: bigint): bigint {
  let result = 1n;
  let base = mod(a);
  let e = N - 2n;
  while (e > 0n) {
    if (e & 1n) result = (result * base) % N;
    base = (base * base) % N;
    e >>= 1n;
  }
  return result;
}

/** Big-endian bytes → BigInt (any length that is a multiple of 8, or 0). */
export function bytesToBig(b: Uint8Array): bigint {
  if (b.length % 8 !== 0) return b.length === 0 ? 0n : BigInt('0x' + Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex'));
  const v = new DataView(b.buffer, b.byteOffset, b.byteLength);
  let x = 0n;
  for (let i = 0; i < b.length; i += 8) x = (x << 64n) | v.getBigUint64(i);
  return x;
}

/** A scalar (< 2^256) → 32 big-endian bytes. */
export function bigToBytes(a: bigint): Uint8Array {
  return Buffer.from(a.toString(16).padStart(64, '0'), 'hex');
}

/** A uniformly random scalar in [1, n). */
export function randomScalar(): bigint {
  for (;;) {
    const b = randomBytes(32);
    const x = bytesToBig(b);
    b.fill(0);
    if (x > 0n && x < N) return x;
  }
}

/** k·G (tests: a crafted peer's points). `k` must be in [1, n). */
export function mulBase(k: bigint): Uint8Array {
  const kb = bigToBytes(k);
  const p = ecc.pointFromScalar(kb, true);
  kb.fill(0);
  check(p !== null, 'scalar out of range');
  return p;
}

/** k·P (tests). */
export function mulPoint(p: Uint8Array, k: bigint): Uint8Array {
  const kb = bigToBytes(k);
  const r = ecc.pointMultiply(p, kb, true);
  kb.fill(0);
  check(r !== null, 'point multiply');
  return r;
}
