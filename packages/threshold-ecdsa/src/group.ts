/**
 * secp256k1 group operations and the hashes (SHA-256 / SHA-512 / SHAKE256 from node:crypto), on
 * constant-time {@link Scalar}s; no BigInt.
 *
 * Points are 33-byte compressed SEC1 encodings. Every point operation is libsecp256k1. The
 * multiplications by a scalar, which is secret wherever the protocol computes one, go to the
 * `secp256k1` package's native addon (`/bindings`, never its index, which falls back to elliptic):
 * k·G by `secp256k1_ec_pubkey_create` (`ecmult_gen`, constant time) and k·P by `secp256k1_ecdh` with a
 * hash function that returns the point itself (`ecmult_const`, constant time). tiny-secp256k1's
 * `pointMultiply` is `secp256k1_ec_pubkey_tweak_mul`, whose `ecmult` is the variable-time one meant for
 * public tweaks, and its JavaScript wrapper compares scalars with an early-exit loop: it is only the
 * fallback where no prebuilt addon loads ({@link pointMultiplyBuild} says which). The last round's
 * verification and key recovery (public values) use the addon too where it loads (its
 * `ecdsaVerify`, `ecdsaRecover`); additions and parsing stay with tiny-secp256k1. Scalars cross as
 * 32 bytes.
 * @module
 */
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import * as ecc from 'tiny-secp256k1';
import { check, CheckFailed } from './errors.ts';
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

interface NativeSecp256k1 {
  publicKeyCreate(secret: Uint8Array, compressed: boolean): Uint8Array;
  ecdsaVerify(signature: Uint8Array, digest: Uint8Array, publicKey: Uint8Array): boolean;
  ecdsaRecover(signature: Uint8Array, recovery: number, digest: Uint8Array, compressed: boolean): Uint8Array;
  ecdh(point: Uint8Array, secret: Uint8Array, options: { hashfn: (x: Uint8Array, y: Uint8Array) => Uint8Array }, output: Uint8Array): Uint8Array;
}
let native: NativeSecp256k1 | null | undefined;
function nativeSecp256k1(): NativeSecp256k1 | null {
  if (native === undefined) {
    const load: (id: string) => unknown = createRequire(import.meta.url);
    try {
      native = load('secp256k1/bindings') as NativeSecp256k1;
    } catch {
      native = null;
    }
  }
  return native;
}

/** `native`: libsecp256k1's constant-time multiplications; `wasm`: the variable-time fallback (see the module doc). */
export function pointMultiplyBuild(): 'native' | 'wasm' {
  return nativeSecp256k1() ? 'native' : 'wasm';
}

/** The ECDH "hash": the shared point itself, compressed (no branch on its bits). */
const compressed = (x: Uint8Array, y: Uint8Array): Uint8Array => {
  const out = new Uint8Array(33);
  out[0] = 2 | (y[31]! & 1);
  out.set(x, 1);
  return out;
};

/** k·G, constant time. `k` must be in [1, n). */
export function mulBase(k: Scalar): Uint8Array {
  const kb = toBytes(k);
  try {
    const lib = nativeSecp256k1();
    if (lib) {
      try {
        return lib.publicKeyCreate(kb, true);
      } catch {
        throw new CheckFailed('scalar out of range');
      }
    }
    const p = ecc.pointFromScalar(kb, true);
    check(p !== null, 'scalar out of range');
    return p;
  } finally {
    kb.fill(0);
  }
}

/** k·P, constant time in k (native build). `k` must be in [1, n), `P` a valid point. */
export function mulPoint(p: Uint8Array, k: Scalar): Uint8Array {
  const kb = toBytes(k);
  try {
    const lib = nativeSecp256k1();
    if (lib) {
      try {
        return lib.ecdh(p, kb, { hashfn: compressed }, new Uint8Array(33));
      } catch {
        throw new CheckFailed('point multiply');
      }
    }
    const r = ecc.pointMultiply(p, kb, true);
    check(r !== null, 'point multiply');
    return r;
  } finally {
    kb.fill(0);
  }
}

/**
 * ECDSA verification of a compact (r ‖ s) signature, low-S only (public values): libsecp256k1 native
 * where it loads (about 5 times faster than its WebAssembly build), else tiny-secp256k1.
 */
export function verifyEcdsa(digest: Uint8Array, publicKey: Uint8Array, compact: Uint8Array): boolean {
  const lib = nativeSecp256k1();
  if (!lib) return ecc.verify(digest, publicKey, compact, true);
  try {
    return lib.ecdsaVerify(compact, digest, publicKey);
  } catch {
    return false; // r or s out of range
  }
}

/** The compressed public key a compact signature and recovery id recover to, or null. */
export function recoverEcdsa(digest: Uint8Array, compact: Uint8Array, recovery: 0 | 1 | 2 | 3): Uint8Array | null {
  const lib = nativeSecp256k1();
  if (!lib) return ecc.recover(digest, compact, recovery, true);
  try {
    return lib.ecdsaRecover(compact, recovery, digest, true);
  } catch {
    return null;
  }
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
