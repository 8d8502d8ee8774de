/**
 * secp256k1 group operations and the hashes (SHA-256 / SHA-512 / SHAKE256 from node:crypto), on
 * constant-time {@link Scalar}s; no BigInt.
 *
 * Points are 33-byte compressed SEC1 encodings. Every point operation is libsecp256k1 (through
 * `tiny-secp256k1`'s WASM build): fixed-base multiplication (`ecmult_gen`), variable-base multiplication
 * (`ecmult_const`) and addition run in constant time there. Scalars cross to it as 32 bytes.
 * @module
 */
import { createHash } from 'node:crypto';
import * as ecc from 'tiny-secp256k1';
import { check } from './errors.ts';
import { fromBytesStrict, reduceWide, toBytes, type Scalar } from './scalar.ts';

export const POINT_BYTES = 33;
export const SCALAR_BYTES = 32;
/** n, 32 bytes big-endian (public comparisons only, e.g. the recovery id's x ≥ n). */
export const N_BYTES: Uint8Array = Buffer.from('fffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141', 'hex');

/** Strict decoding of a peer's scalar: 32 bytes, < n (`scalar length` / `scalar not reduced`). */
export function decodeScalar(b: Uint8Array): Scalar {
  return fromBytesStrict(b);
}

/** A peer's point: 33 bytes, compressed, on the curve, not the identity (libsecp256k1 parse). */
export function assertPeerPoint(p: Uint8Array): Uint8Array {
  check(p.length === POINT_BYTES && (p[0] === 2 || p[0] === 3) && ecc.isPoint(p), 'invalid point');
  return p;
}

/** k·G, constant time. `k` must be in [1, n). */
export function mulBase(k: Scalar): Uint8Array {
  const kb = toBytes(k);
  const p = ecc.pointFromScalar(kb, true);
  kb.fill(0);
  check(p !== null, 'scalar out of range');
  return p;
}

/** k·P, constant time in k. */
export function mulPoint(p: Uint8Array, k: Scalar): Uint8Array {
  const kb = toBytes(k);
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

/** `taggedHash(tag, ...parts, ...more)` for many `more` after one common prefix (the prefix hashed once). */
export function taggedHasher(tag: string, ...parts: Uint8Array[]): (...more: Uint8Array[]) => Uint8Array {
  const h = createHash('sha256');
  feed(h, tag, parts);
  return (...more) => {
    const c = h.copy();
    for (const p of more) c.update(u32(p.length)).update(p);
    return c.digest();
  };
}

/** A scalar from SHA-512 of the tagged input, reduced mod n (bias < 2^-256). */
export function hashToScalar(tag: string, ...parts: Uint8Array[]): Scalar {
  const h = createHash('sha512');
  feed(h, tag, parts);
  const d = h.digest();
  const s = reduceWide(d);
  d.fill(0);
  return s;
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
