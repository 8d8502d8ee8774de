/**
 * The OT extension's column hash R (see `ote.ts`) for all columns at once, in JavaScript, with the same
 * bytes as GCM's: R(v) = Σ_b v_b·H^{m+1−b} over the m 16-byte blocks of a column, H = AES_K(0).
 *
 * R is GF(2)-linear, so R(v) is the XOR of the images B_j of v's set bits j (B_j = H^{m+1−b}·x^c for
 * the block b and the GCM coefficient c that bit j lands on). Over the transposed rows (row j holds bit
 * j of every column), bit k of every column's hash is the XOR of the rows j whose B_j has bit k set: a
 * bit-matrix product whose loop counts, branches and indices depend only on the bits of B_j, which come
 * from H alone. H is public (K is derived from the session id and the matrix u, both sent), so this
 * is constant time in the rows; the one secret column hashed on its own (x, the choice bits) goes
 * through {@link hashBits}, which takes every basis vector under a mask.
 * @module
 */
import { createCipheriv } from 'node:crypto';

/**
 * The 8×8 bit matrix whose row t is byte src[from + t·step] (bit k = column k) transposed into bytes
 * dst[to + k·stride] (bit t = row t): three delta swaps over two words (Hacker's Delight, 7–3), no
 * branch or index on the data.
 */
export function transpose8(src: Uint8Array, from: number, step: number, dst: Uint8Array, to: number, stride: number): void {
  let x = src[from]! | (src[from + step]! << 8) | (src[from + 2 * step]! << 16) | (src[from + 3 * step]! << 24);
  let y = src[from + 4 * step]! | (src[from + 5 * step]! << 8) | (src[from + 6 * step]! << 16) | (src[from + 7 * step]! << 24);
  let t = ((x >>> 7) ^ x) & 0x00aa00aa;
  x ^= t ^ (t << 7);
  t = ((y >>> 7) ^ y) & 0x00aa00aa;
  y ^= t ^ (t << 7);
  t = ((x >>> 14) ^ x) & 0x0000cccc;
  x ^= t ^ (t << 14);
  t = ((y >>> 14) ^ y) & 0x0000cccc;
  y ^= t ^ (t << 14);
  t = ((y << 4) ^ x) & 0xf0f0f0f0;
  x ^= t;
  y ^= t >>> 4;
  dst[to] = x;
  dst[to + stride] = x >>> 8;
  dst[to + 2 * stride] = x >>> 16;
  dst[to + 3 * stride] = x >>> 24;
  dst[to + 4 * stride] = y;
  dst[to + 5 * stride] = y >>> 8;
  dst[to + 6 * stride] = y >>> 16;
  dst[to + 7 * stride] = y >>> 24;
}

/**
 * 128-bit GCM elements are 4 words, word w = bytes 4w..4w+3 big-endian (GCM bit k is word k>>5, bit
 * 31−(k&31)), stored at 4·i in an Int32Array. dst[i] ← src[f]·x in GCM's bit order (a right shift,
 * reduced by x^128 = x^7 + x^2 + x + 1). Public values only.
 */
function timesX(dst: Int32Array, i: number, src: Int32Array, f: number): void {
  const v0 = src[4 * f]!, v1 = src[4 * f + 1]!, v2 = src[4 * f + 2]!, v3 = src[4 * f + 3]!;
  dst[4 * i] = (v0 >>> 1) ^ (v3 & 1 ? 0xe1000000 : 0);
  dst[4 * i + 1] = (v1 >>> 1) | (v0 << 31);
  dst[4 * i + 2] = (v2 >>> 1) | (v1 << 31);
  dst[4 * i + 3] = (v3 >>> 1) | (v2 << 31);
}

/**
 * The images B_j (4 words each, flat) of the first `bits` bits of a column under R with key `key`.
 * Column bit j is bit j&7 (LSB first) of byte j>>3; that byte is byte (j>>3)&15 of block j>>7, where
 * GCM reads its bit 7 (the MSB) as coefficient 0. `blocks` is the hashed length (zero-padded). Block b
 * is weighted by H^(blocks+1−b); the powers by a·H = Σ_k a_k·H·x^k, branching on their (public) bits.
 */
export function hashBasis(key: Uint8Array, bits: number, blocks: number): Int32Array {
  const h = createCipheriv('aes-128-ecb', key, null).update(new Uint8Array(16));
  const hx = new Int32Array(128 * 4); // H·x^k
  for (let w = 0; w < 4; w++) hx[w] = h.readInt32BE(4 * w);
  for (let k = 1; k < 128; k++) timesX(hx, k, hx, k - 1);
  const pw = new Int32Array(4 * (blocks + 2)); // H^e at 4·e
  pw.set(hx.subarray(0, 4), 4);
  for (let e = 2; e <= blocks + 1; e++) {
    for (let k = 0; k < 128; k++) {
      if (((pw[4 * (e - 1) + (k >> 5)]! >>> (31 - (k & 31))) & 1) === 0) continue;
      for (let w = 0; w < 4; w++) pw[4 * e + w]! ^= hx[4 * k + w]!;
    }
  }
  const basis = new Int32Array(bits * 4);
  const v = new Int32Array(4);
  for (let b = 0; b * 128 < bits; b++) {
    v.set(pw.subarray(4 * (blocks + 1 - b), 4 * (blocks + 2 - b)));
    for (let c = 0; c < 128; c++) {
      const j = b * 128 + (c & ~7) + (7 - (c & 7));
      if (j < bits) basis.set(v, j * 4);
      timesX(v, 0, v, 0);
    }
  }
  return basis;
}

/** R of one column (its first `bits` bits, the rest zero) as 16 bytes; constant time in `col`. */
export function hashBits(basis: Int32Array, col: Uint8Array, bits: number): Uint8Array {
  let a0 = 0, a1 = 0, a2 = 0, a3 = 0;
  for (let j = 0; j < bits; j++) {
    const m = -((col[j >> 3]! >> (j & 7)) & 1);
    a0 ^= basis[4 * j]! & m;
    a1 ^= basis[4 * j + 1]! & m;
    a2 ^= basis[4 * j + 2]! & m;
    a3 ^= basis[4 * j + 3]! & m;
  }
  const out = Buffer.alloc(16);
  out.writeInt32BE(a0, 0);
  out.writeInt32BE(a1, 4);
  out.writeInt32BE(a2, 8);
  out.writeInt32BE(a3, 12);
  return new Uint8Array(out.buffer, out.byteOffset, 16);
}

/**
 * R of every column of a bit matrix given by its `bits` rows of 32 bytes (row j, bit i = column i's
 * bit j): 256 hashes, column i's at 16·i. Branches only on the public basis.
 */
export function hashRows(basis: Int32Array, rows: Uint8Array, bits: number): Uint8Array {
  const r = rows.byteOffset % 4 === 0 ? new Int32Array(rows.buffer, rows.byteOffset, bits * 8) : new Int32Array(Uint8Array.from(rows.subarray(0, bits * 32)).buffer);
  const acc = new Int32Array(128 * 8); // acc[8k..8k+8): bit k of every column's hash, in row layout
  for (let j = 0; j < bits; j++) {
    const o = 8 * j;
    const r0 = r[o]!, r1 = r[o + 1]!, r2 = r[o + 2]!, r3 = r[o + 3]!, r4 = r[o + 4]!, r5 = r[o + 5]!, r6 = r[o + 6]!, r7 = r[o + 7]!;
    for (let w = 0; w < 4; w++) {
      let set = basis[4 * j + w]!;
      while (set !== 0) {
        const z = Math.clz32(set);
        set ^= 0x80000000 >>> z;
        const a = 8 * (32 * w + z);
        acc[a]! ^= r0;
        acc[a + 1]! ^= r1;
        acc[a + 2]! ^= r2;
        acc[a + 3]! ^= r3;
        acc[a + 4]! ^= r4;
        acc[a + 5]! ^= r5;
        acc[a + 6]! ^= r6;
        acc[a + 7]! ^= r7;
      }
    }
  }
  if (r.buffer !== rows.buffer) r.fill(0);
  // bit k of column i's hash: acc byte 32k + (i>>3), bit i&7 → out byte 16i + (k>>3), bit 7 − (k&7),
  // by 8×8 bit transpositions (the 8 k of one output byte read from the last: GCM's bits are MSB first)
  const bytes = new Uint8Array(acc.buffer); // the same byte layout as a row, whatever the platform's endianness
  const out = new Uint8Array(256 * 16);
  for (let K = 0; K < 16; K++) for (let b = 0; b < 32; b++) transpose8(bytes, 32 * (8 * K + 7) + b, -32, out, 128 * b + K, 16);
  acc.fill(0);
  return out;
}
