import { createCipheriv, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkValues, polyHash, ROWS, KAPPA, rowOutput, rowOutputs, transpose } from './ote.ts';
import { hashBasis, hashBits, hashRows } from './ghash.ts';
import { taggedHash } from './group.ts';

/** GF(2^128) multiplication in GCM's bit order (NIST SP 800-38D, Algorithm 1): the reference for polyHash. */
function gfMul(x: Uint8Array, y: Uint8Array): Uint8Array {
  const X = BigInt('0x' + Buffer.from(x).toString('hex'));
  let V = BigInt('0x' + Buffer.from(y).toString('hex'));
  const R = 0xe1n << 120n;
  let Z = 0n;
  for (let i = 127; i >= 0; i--) {
    if ((X >> BigInt(i)) & 1n) Z ^= V;
    V = V & 1n ? (V >> 1n) ^ R : V >> 1n;
  }
  return Buffer.from(Z.toString(16).padStart(32, '0'), 'hex');
}

const aes0 = (key: Uint8Array) => createCipheriv('aes-128-ecb', key, null).update(new Uint8Array(16));

describe('GF(2^128) polynomial hash through AES-GCM', () => {
  it('gfMul reproduces the GCM spec test case 2 hash subkey product (H·C)', () => {
    // NIST GCM test case 2: K = 0^128, P = 0^128 → C = 0388dace60b6a392f328c2b971b2fe78, H = 66e94bd4ef8a2c3b884cfa59ca342b2e,
    // GHASH(H, {}, C) = f38cbb1ad69223dcc3457ae5b6b0f885 = (C·H ⊕ len)·H
    const H = Buffer.from('66e94bd4ef8a2c3b884cfa59ca342b2e', 'hex');
    const C = Buffer.from('0388dace60b6a392f328c2b971b2fe78', 'hex');
    const len = Buffer.from('00000000000000000000000000000080', 'hex');
    const x1 = gfMul(C, H);
    for (let i = 0; i < 16; i++) x1[i]! ^= len[i]!;
    expect(Buffer.from(gfMul(x1, H)).toString('hex')).toBe('f38cbb1ad69223dcc3457ae5b6b0f885');
  });

  it('polyHash(key, blocks) = Σ block_j · H^(m+1-j) with H = AES_key(0)', () => {
    const key = randomBytes(16);
    const H = aes0(key);
    const blocks = randomBytes(16 * 5);
    let acc: Uint8Array = new Uint8Array(16);
    for (let j = 0; j < 5; j++) {
      for (let i = 0; i < 16; i++) acc[i]! ^= blocks[j * 16 + i]!;
      acc = gfMul(acc, H);
    }
    acc = gfMul(acc, H); // GCM's exponent offset: the length block (cancelled) would be the last
    expect(Buffer.from(polyHash(key, blocks)).toString('hex')).toBe(Buffer.from(acc).toString('hex'));
  });

  it('is GF(2)-linear: polyHash(a ⊕ b) = polyHash(a) ⊕ polyHash(b) (what the column check relies on)', () => {
    const key = randomBytes(16);
    const a = randomBytes(16 * 7);
    const b = randomBytes(16 * 7);
    const ab = Buffer.from(a.map((v, i) => v ^ b[i]!));
    const ha = polyHash(key, a);
    const hb = polyHash(key, b);
    expect(Buffer.from(polyHash(key, ab)).toString('hex')).toBe(Buffer.from(ha.map((v, i) => v ^ hb[i]!)).toString('hex'));
  });
});

describe('the column hash as a bit-matrix product (ghash.ts) against AES-GCM', () => {
  const padded = (col: Uint8Array) => {
    const b = new Uint8Array(96);
    b.set(col);
    return b;
  };
  const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

  it('hashBits and hashRows give polyHash of every zero-padded column, on random keys and matrices', () => {
    for (let trial = 0; trial < 3; trial++) {
      const key = randomBytes(16);
      const basis = hashBasis(key, ROWS, 6);
      const cols = Array.from({ length: KAPPA }, () => randomBytes(ROWS / 8));
      const rows = transpose(cols);
      const all = hashRows(basis, rows, ROWS);
      for (let i = 0; i < KAPPA; i++) expect(hex(all.subarray(16 * i, 16 * i + 16))).toBe(hex(polyHash(key, padded(cols[i]!))));
      const shifted = new Uint8Array(rows.length + 1);
      shifted.set(rows, 1); // rows not on a 4-byte boundary: hashed from an aligned copy
      expect(hex(hashRows(basis, shifted.subarray(1), ROWS))).toBe(hex(all));
      for (const col of [cols[0]!, new Uint8Array(ROWS / 8), new Uint8Array(ROWS / 8).fill(0xff)]) expect(hex(hashBits(basis, col, ROWS))).toBe(hex(polyHash(key, padded(col))));
    }
  });

  it('every single-bit column (each of the ROWS basis vectors) hashes like GCM', () => {
    const key = randomBytes(16);
    const basis = hashBasis(key, ROWS, 6);
    for (let from = 0; from < ROWS; from += KAPPA) {
      const cols = Array.from({ length: KAPPA }, (_, i) => {
        const c = new Uint8Array(ROWS / 8);
        if (from + i < ROWS) c[(from + i) >> 3] = 1 << ((from + i) & 7);
        return c;
      });
      const all = hashRows(basis, transpose(cols), ROWS);
      for (let i = 0; i < KAPPA; i++) expect(hex(all.subarray(16 * i, 16 * i + 16))).toBe(hex(polyHash(key, padded(cols[i]!))));
    }
  });

  it('checkValues = R(x) ‖ R(t_i) under the Fiat–Shamir key from (sid, u), as GCM computes them', () => {
    const sid = randomBytes(32);
    const u = randomBytes(KAPPA * (ROWS / 8));
    const t0 = Array.from({ length: KAPPA }, () => randomBytes(ROWS / 8));
    const x = randomBytes(ROWS / 8);
    const key = taggedHash('kos/chi', sid, u).subarray(0, 16);
    const v = checkValues(sid, u, t0, x);
    expect(hex(v.subarray(0, 16))).toBe(hex(polyHash(key, padded(x))));
    for (let i = 0; i < KAPPA; i++) expect(hex(v.subarray(16 + 16 * i, 32 + 16 * i))).toBe(hex(polyHash(key, padded(t0[i]!))));
    u[5]! ^= 1; // another matrix, another key
    expect(hex(checkValues(sid, u, t0, x))).not.toBe(hex(v));
  });
});

describe('bit matrix transposition', () => {
  it('row j bit i equals column i bit j', () => {
    const cols = Array.from({ length: KAPPA }, () => randomBytes(ROWS / 8));
    const rows = transpose(cols);
    for (const [i, j] of [[0, 0], [7, 9], [255, 671], [128, 416], [31, 300]] as const) {
      const colBit = (cols[i]![j >> 3]! >> (j & 7)) & 1;
      const rowBit = (rows[j * 32 + (i >> 3)]! >> (i & 7)) & 1;
      expect(rowBit).toBe(colBit);
    }
  });

  it('equals the bit-by-bit transposition on random and structured matrices', () => {
    const reference = (cols: Uint8Array[]) => {
      const out = new Uint8Array(ROWS * 32);
      for (let i = 0; i < KAPPA; i++) for (let j = 0; j < ROWS; j++) out[j * 32 + (i >> 3)]! |= ((cols[i]![j >> 3]! >> (j & 7)) & 1) << (i & 7);
      return out;
    };
    const ones = Array.from({ length: KAPPA }, () => new Uint8Array(ROWS / 8).fill(0xff));
    const diagonal = Array.from({ length: KAPPA }, (_, i) => {
      const c = new Uint8Array(ROWS / 8);
      c[i >> 3] = 1 << (i & 7);
      return c;
    });
    for (const cols of [ones, diagonal, ...Array.from({ length: 5 }, () => Array.from({ length: KAPPA }, () => randomBytes(ROWS / 8)))]) {
      expect(Buffer.from(transpose(cols)).equals(Buffer.from(reference(cols)))).toBe(true);
    }
  });
});

describe('random-OT row outputs', () => {
  it('the batched hasher gives rowOutput\'s bytes for every row (a protocol message must not change with it)', () => {
    const sid = randomBytes(32);
    const H = rowOutputs(sid, 128);
    for (const j of [0, 1, 255, 256, 415, 671]) {
      const row = randomBytes(32);
      expect(Buffer.from(H.output(j, row)).toString('hex')).toBe(rowOutput(sid, j, row, 128).toString('hex'));
    }
    expect(Buffer.from(H.output(3, randomBytes(32))).equals(H.output(4, randomBytes(32)))).toBe(false);
  });
});
