/**
 * OT extension: KOS (Keller–Orsini–Scholl, CRYPTO 2015) random OT extension with the consistency check
 * analysed in SoftSpokenOT (Roy, CRYPTO 2022, the k = 1 case: subspace VOLE from 1-of-2 OTs), whose
 * challenge is a universal hash chosen by Fiat–Shamir after the receiver's matrix is fixed.
 *
 * Sizes: κ = 256 base OTs; ξ = κ + 2s = 416 extended OTs per multiplication (s = 80); 256 extra
 * random rows hide the check values (KOS pads with κ + s ≥ 128 + 80 rows for a 128-bit check field).
 *
 * Consistency check. Rows are 256 bits, checked as two 128-bit halves in GF(2^128). The receiver sends
 * x̃ = Σ_j χ_j·x_j and t̃ = Σ_j χ_j·t_j (each half); the sender checks Σ_j χ_j·q_j = t̃ + x̃·Δ. With
 * χ_j = H^{e_j} (powers of one random H) the map is GHASH, an ε-almost-universal GF(2)-linear hash with
 * ε = m/2^128, which is what the SoftSpokenOT check needs. GHASH_H runs in OpenSSL's AES-GCM: with key K,
 * H = AES_K(0), and GCM's tag over AAD `A` XOR its tag over zeros of the same length is exactly
 * Σ A_j·H^{e_j} (the length block and the encrypted J0 cancel). K comes from SHA-256(sid, u).
 * @module
 */
import { createCipheriv, randomBytes } from 'node:crypto';
import { taggedHash, taggedXof } from './curve.ts';
import { check } from './errors.ts';
import { Writer, type Reader } from './codec.ts';

export const KAPPA = 256;
export const S_STAT = 80;
export const XI = KAPPA + 2 * S_STAT; // 416
export const PAD = 256;
export const ROWS = XI + PAD; // 672
const COL_BYTES = ROWS / 8; // 84
const ROW_BYTES = KAPPA / 8; // 32
export const OTE_MESSAGE_BYTES = KAPPA * COL_BYTES + 48;
const IV12 = new Uint8Array(12);

/** GF(2^128) multiplication in GCM's bit order (NIST SP 800-38D, Algorithm 1). */
export function gfMul(x: Uint8Array, y: Uint8Array): Uint8Array {
  const X = BigInt('0x' + Buffer.from(x).toString('hex'));
  let V = BigInt('0x' + Buffer.from(y).toString('hex'));
  const R = 0xe1n << 120n;
  let Z = 0n;
  for (let i = 127; i >= 0; i--) {
    Z ^= V * ((X >> BigInt(i)) & 1n);
    V = (V >> 1n) ^ (R * (V & 1n));
  }
  return Buffer.from(Z.toString(16).padStart(32, '0'), 'hex');
}

function gcmTag(key: Uint8Array, aad: Uint8Array): Buffer {
  const c = createCipheriv('aes-128-gcm', key, IV12);
  c.setAAD(aad);
  c.final();
  return c.getAuthTag();
}

/** Σ_j block_j · H^{e_j} with H = AES_key(0): GHASH without its length block. */
export function polyHash(key: Uint8Array, blocks: Uint8Array): Uint8Array {
  const a = gcmTag(key, blocks);
  const b = gcmTag(key, new Uint8Array(blocks.length));
  for (let i = 0; i < 16; i++) a[i]! ^= b[i]!;
  return a;
}

/** PRG: AES-256-CTR under a base-OT seed, IV from the session id: a fresh stream per session. */
export function prg(seed: Uint8Array, iv: Uint8Array): Buffer {
  const c = createCipheriv('aes-256-ctr', seed, iv);
  return c.update(new Uint8Array(COL_BYTES));
}

/** Columns (κ of ROWS bits) → rows (ROWS of κ bits), in one buffer; bit i of a row is column i. */
export function transpose(cols: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(ROWS * ROW_BYTES);
  for (let i = 0; i < KAPPA; i++) {
    const col = cols[i]!;
    const byteI = i >> 3;
    const shift = i & 7;
    for (let jb = 0; jb < COL_BYTES; jb++) {
      const v = col[jb]!;
      const base = jb * 8 * ROW_BYTES + byteI;
      for (let k = 0; k < 8; k++) out[base + k * ROW_BYTES]! |= ((v >> k) & 1) << shift;
    }
  }
  return out;
}

function halves(rows: Uint8Array): [Uint8Array, Uint8Array] {
  const a = new Uint8Array(ROWS * 16);
  const b = new Uint8Array(ROWS * 16);
  for (let j = 0; j < ROWS; j++) {
    a.set(rows.subarray(j * 32, j * 32 + 16), j * 16);
    b.set(rows.subarray(j * 32 + 16, j * 32 + 32), j * 16);
  }
  return [a, b];
}

function chiKey(sid: Uint8Array, u: Uint8Array): Uint8Array {
  return taggedHash('kos/chi', sid, u).subarray(0, 16);
}

/** Random-OT output of row j: `width` bytes from SHAKE256(sid, j, row). */
export function rowOutput(sid: Uint8Array, j: number, row: Uint8Array, width: number): Buffer {
  return taggedXof('kos/out', width, sid, Uint8Array.of(j >> 8, j & 255), row);
}

export interface OteReceiverState {
  /** Choice bits β_j ∈ {0,1}, one per byte, j < XI. */
  readonly beta: Uint8Array;
  /** Rows t_j (ROWS × 32 bytes); row j < XI keys the chosen message. */
  readonly rows: Uint8Array;
}

/** Receiver ("Bob", base-OT sender) of the extension: random choice bits; returns the message to send. */
export function oteReceive(seeds0: readonly Uint8Array[], seeds1: readonly Uint8Array[], sid: Uint8Array): { message: Uint8Array; state: OteReceiverState } {
  const iv = taggedHash('kos/prg', sid).subarray(0, 16);
  const xBytes = randomBytes(COL_BYTES); // x = β ‖ pad, bit j at byte j>>3, position j&7
  const t0: Uint8Array[] = [];
  const w = new Writer();
  const u = new Uint8Array(KAPPA * COL_BYTES);
  for (let i = 0; i < KAPPA; i++) {
    const a = prg(seeds0[i]!, iv);
    const b = prg(seeds1[i]!, iv);
    for (let k = 0; k < COL_BYTES; k++) u[i * COL_BYTES + k] = a[k]! ^ b[k]! ^ xBytes[k]!;
    b.fill(0);
    t0.push(a);
  }
  const rows = transpose(t0);
  for (const a of t0) a.fill(0);
  w.bytes(u).bytes(checkValues(sid, u, rows, xBytes));
  const beta = new Uint8Array(XI);
  for (let j = 0; j < XI; j++) beta[j] = (xBytes[j >> 3]! >> (j & 7)) & 1;
  xBytes.fill(0);
  return { message: w.finish(), state: { beta, rows } };
}

/** The receiver's check values x̃ ‖ t̃_a ‖ t̃_b for matrix `u`, rows t_j and choice bits x. */
export function checkValues(sid: Uint8Array, u: Uint8Array, rows: Uint8Array, xBytes: Uint8Array): Uint8Array {
  const key = chiKey(sid, u);
  const xBlocks = new Uint8Array(ROWS * 16);
  for (let j = 0; j < ROWS; j++) xBlocks[j * 16] = ((xBytes[j >> 3]! >> (j & 7)) & 1) << 7; // the field's 1
  const [ta, tb] = halves(rows);
  const out = Buffer.concat([polyHash(key, xBlocks), polyHash(key, ta), polyHash(key, tb)]);
  xBlocks.fill(0);
  ta.fill(0);
  tb.fill(0);
  return out;
}

/**
 * Sender ("Alice", base-OT receiver with choice bits Δ) of the extension: checks the receiver's
 * message; returns the rows q_j = t_j ⊕ x_j·Δ. A failed check throws (the caller aborts and marks the
 * correlations unusable: a failed check leaks a bit of Δ to a cheating receiver).
 */
export function oteSend(delta: Uint8Array, chosenSeeds: readonly Uint8Array[], sid: Uint8Array, r: Reader): Uint8Array {
  const u = r.bytes(KAPPA * COL_BYTES);
  const xt = r.bytes(16);
  const ta = r.bytes(16);
  const tb = r.bytes(16);
  const iv = taggedHash('kos/prg', sid).subarray(0, 16);
  const qCols: Uint8Array[] = [];
  for (let i = 0; i < KAPPA; i++) {
    const q = prg(chosenSeeds[i]!, iv);
    const mask = -((delta[i >> 3]! >> (i & 7)) & 1) & 0xff;
    for (let k = 0; k < COL_BYTES; k++) q[k]! ^= u[i * COL_BYTES + k]! & mask;
    qCols.push(q);
  }
  const rows = transpose(qCols);
  for (const q of qCols) q.fill(0);
  const key = chiKey(sid, u);
  const [qa, qb] = halves(rows);
  const ha = polyHash(key, qa);
  const hb = polyHash(key, qb);
  const xa = gfMul(xt, delta.subarray(0, 16));
  const xb = gfMul(xt, delta.subarray(16, 32));
  let d = 0;
  for (let i = 0; i < 16; i++) d |= ha[i]! ^ ta[i]! ^ xa[i]! | (hb[i]! ^ tb[i]! ^ xb[i]!);
  qa.fill(0);
  qb.fill(0);
  check(d === 0, 'OT extension consistency check');
  return rows;
}
