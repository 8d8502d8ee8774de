/**
 * secp256k1 group and scalar operations, and the hashes (SHA-256 / SHA-512 / SHAKE256 from node:crypto).
 *
 * Points are 33-byte compressed SEC1 encodings. Every point operation is libsecp256k1 (through
 * `tiny-secp256k1`'s WASM build): fixed-base multiplication (`ecmult_gen`), variable-base multiplication
 * (`ecmult_const`) and addition run in constant time there. Scalar arithmetic mod n (multiplication,
 * inversion, the many sums of the OT-based multiplication) is BigInt, which is NOT constant time:
 * tiny-secp256k1 exposes no scalar multiplication. See the README, "Where BigInt touches secrets".
 * @module
 */
import { createHash, randomBytes } from 'node:crypto';
import * as ecc from 'tiny-secp256k1';
import { check } from './errors.ts';

export const N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
export const HALF_N = N >> 1n;
export const POINT_BYTES = 33;
export const SCALAR_BYTES = 32;

export const mod = (a: bigint): bigint => {
  const r = a % N;
  return r < 0n ? r + N : r;
};
export const add = (a: bigint, b: bigint): bigint => mod(a + b);
export const sub = (a: bigint, b: bigint): bigint => mod(a - b);
export const mul = (a: bigint, b: bigint): bigint => (a * b) % N;

/** Inverse mod n (Fermat). Used on public values only (the combined `u` of the final round). */
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

const M64 = 0xffffffffffffffffn;

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
  const out = new Uint8Array(32);
  writeScalarAt(new DataView(out.buffer), 0, a);
  return out;
}

/** Writes a scalar (< 2^256) as 32 big-endian bytes at `offset` (no allocation). */
export function writeScalarAt(v: DataView, offset: number, a: bigint): void {
  v.setBigUint64(offset, (a >> 192n) & M64);
  v.setBigUint64(offset + 8, (a >> 128n) & M64);
  v.setBigUint64(offset + 16, (a >> 64n) & M64);
  v.setBigUint64(offset + 24, a & M64);
}

/** Reads 32 big-endian bytes at `offset` as a BigInt (no allocation). */
export function readScalarAt(v: DataView, offset: number): bigint {
  return (v.getBigUint64(offset) << 192n) | (v.getBigUint64(offset + 8) << 128n) | (v.getBigUint64(offset + 16) << 64n) | v.getBigUint64(offset + 24);
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

/** Strict decoding of a peer's scalar: 32 bytes, < n. */
export function decodeScalar(b: Uint8Array): bigint {
  check(b.length === SCALAR_BYTES, 'scalar length');
  const x = bytesToBig(b);
  check(x < N, 'scalar not reduced');
  return x;
}

/** A peer's point: 33 bytes, compressed, on the curve, not the identity (libsecp256k1 parse). */
export function assertPeerPoint(p: Uint8Array): Uint8Array {
  check(p.length === POINT_BYTES && (p[0] === 2 || p[0] === 3) && ecc.isPoint(p), 'invalid point');
  return p;
}

/** k·G, constant time. `k` must be in [1, n). */
export function mulBase(k: bigint): Uint8Array {
  const kb = bigToBytes(k);
  const p = ecc.pointFromScalar(kb, true);
  kb.fill(0);
  check(p !== null, 'scalar out of range');
  return p;
}

/** k·P, constant time in k. */
export function mulPoint(p: Uint8Array, k: bigint): Uint8Array {
  const kb = bigToBytes(k);
  const r = ecc.pointMultiply(p, kb, true);
  kb.fill(0);
  check(r !== null, 'point multiply');
  return r;
}

/** P + Q; `null` if the sum is the identity. */
export function addPoints(p: Uint8Array, q: Uint8Array): Uint8Array | null {
  return ecc.pointAdd(p, q, true);
}

export function negPoint(p: Uint8Array): Uint8Array {
  const r = Uint8Array.from(p);
  r[0] = r[0] === 2 ? 3 : 2;
  return r;
}

export function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let d = 0;
  for (let i = 0; i < a.length; i++) d |= a[i]! ^ b[i]!;
  return d === 0;
}

export function concat(...parts: Uint8Array[]): Uint8Array {
  return Buffer.concat(parts);
}

function u32(n: number): Uint8Array {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
}

function feed(h: ReturnType<typeof createHash>, tag: string, parts: readonly Uint8Array[]): void {
  const t = Buffer.from('DKLS23-secp256k1-v1/' + tag);
  h.update(u32(t.length)).update(t);
  for (const p of parts) h.update(u32(p.length)).update(p);
}

/** SHA-256 with a domain tag, every part length-prefixed (no two inputs hash the same way). */
export function taggedHash(tag: string, ...parts: Uint8Array[]): Uint8Array {
  const h = createHash('sha256');
  feed(h, tag, parts);
  return h.digest();
}

/** A scalar from SHA-512 of the tagged input, reduced mod n (bias < 2^-256). */
export function hashToScalar(tag: string, ...parts: Uint8Array[]): bigint {
  const h = createHash('sha512');
  feed(h, tag, parts);
  return mod(bytesToBig(h.digest()));
}

/** SHAKE256 of the tagged input, `length` bytes. */
export function taggedXof(tag: string, length: number, ...parts: Uint8Array[]): Buffer {
  const h = createHash('shake256', { outputLength: length });
  feed(h, tag, parts);
  return h.digest();
}

export const u32be = u32;
export const isPrivateBytes = (b: Uint8Array): boolean => ecc.isPrivate(b);
export { ecc };
