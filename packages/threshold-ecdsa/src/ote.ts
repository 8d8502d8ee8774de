/**
 * OT extension: KOS (Keller–Orsini–Scholl, CRYPTO 2015) random OT extension with the revised
 * consistency check of SoftSpokenOT (Roy, CRYPTO 2022; the k = 1 case, which the corrected KOS
 * paper adopts as its Fig. 10): the receiver's matrix is fixed first, then a GF(2)-linear
 * ε-almost-universal hash R over the OT dimension is chosen by Fiat–Shamir, and the receiver sends
 * x̃ = R(x) and t̃_i = R(t_i) for every column i; the sender checks R(q_i) = t̃_i ⊕ Δ_i·x̃ for every
 * column. (The original KOS15 check, which combines rows with random GF(2^κ) coefficients, is the one
 * whose proof Roy showed broken; it is not used.)
 *
 * Sizes: κ = 256 base OTs; ξ = κ + 2s = 416 extended OTs per multiplication (s = 80); 256 extra
 * random rows, so that the 128-bit x̃ says nothing about the choice bits that are used (≥ 128 + s).
 *
 * The hash. R(v) = Σ_b v_b·H^{e_b} over the 16-byte blocks of the column (zero-padded to whole
 * blocks), H = AES_K(0) with K = SHA-256(sid, u)[0..16]: GHASH without its length block, ε = 6/2^128
 * for our 6-block columns. All columns are hashed at once from the transposed rows, as a bit-matrix
 * product with the public powers of H (`ghash.ts`); `polyHash` is the same sum in OpenSSL's AES-GCM
 * (GCM's tag over AAD `A` XOR its tag over zeros of the same length: the length block and the
 * encrypted J0 cancel), the reference the tests compare it with.
 * @module
 */
import { createCipheriv, createHash, randomBytes } from 'node:crypto';
import { taggedHash, taggedXof } from './group.ts';
import { check } from './errors.ts';
import { Writer, type Reader } from './codec.ts';
import { hashBasis, hashBits, hashRows, transpose8 } from './ghash.ts';

export const KAPPA = 256;
export const S_STAT = 80;
export const XI = KAPPA + 2 * S_STAT; // 416
export const PAD = 256;
export const ROWS = XI + PAD; // 672
const COL_BYTES = ROWS / 8; // 84
const ROW_BYTES = KAPPA / 8; // 32
const HASH_BLOCKS = 6; // a column (84 bytes) zero-padded to 6 GHASH blocks
export const OTE_MESSAGE_BYTES = KAPPA * COL_BYTES + 16 + KAPPA * 16;
const IV12 = new Uint8Array(12);

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
const ZERO_COLUMN = new Uint8Array(COL_BYTES);
export function prg(seed: Uint8Array, iv: Uint8Array): Buffer {
  const c = createCipheriv('aes-256-ctr', seed, iv);
  return c.update(ZERO_COLUMN);
}

/**
 * Columns (κ of ROWS bits) → rows (ROWS of κ bits), in one buffer; bit i of a row is column i. By 8×8
 * blocks: byte jb of 8 adjacent columns gives byte i>>3 of 8 adjacent rows (`transpose8`).
 */
export function transpose(cols: readonly Uint8Array[]): Uint8Array {
  const flat = new Uint8Array(KAPPA * COL_BYTES);
  for (let i = 0; i < KAPPA; i++) flat.set(cols[i]!.subarray(0, COL_BYTES), i * COL_BYTES);
  const out = new Uint8Array(ROWS * ROW_BYTES);
  for (let I = 0; I < ROW_BYTES; I++) {
    for (let jb = 0; jb < COL_BYTES; jb++) transpose8(flat, 8 * I * COL_BYTES + jb, COL_BYTES, out, 8 * jb * ROW_BYTES + I, ROW_BYTES);
  }
  flat.fill(0);
  return out;
}

function chiKey(sid: Uint8Array, u: Uint8Array): Uint8Array {
  return taggedHash('kos/chi', sid, u).subarray(0, 16);
}

/** Random-OT output of row j: `width` bytes from SHAKE256(sid, j, row). */
export function rowOutput(sid: Uint8Array, j: number, row: Uint8Array, width: number): Buffer {
  return taggedXof('kos/out', width, sid, Uint8Array.of(j >> 8, j & 255), row);
}

/**
 * {@link rowOutput} for many rows of one session, the same bytes: the tagged, length-prefixed input
 * laid out once in one buffer, whose row part each call overwrites (one hash update per row instead of
 * seven). The caller wipes it with `wipe` (it held the last row).
 */
export function rowOutputs(sid: Uint8Array, width: number): { output(j: number, row: Uint8Array): Buffer; wipe(): void } {
  const tag = Buffer.from('DKLS23-secp256k1-v1/kos/out');
  const buf = Buffer.alloc(4 + tag.length + 4 + sid.length + 4 + 2 + 4 + ROW_BYTES);
  let at = buf.writeUInt32BE(tag.length, 0);
  at += tag.copy(buf, at);
  at = buf.writeUInt32BE(sid.length, at);
  at += Buffer.from(sid.buffer, sid.byteOffset, sid.byteLength).copy(buf, at);
  at = buf.writeUInt32BE(2, at);
  const jAt = at;
  at = buf.writeUInt32BE(ROW_BYTES, at + 2);
  const rowAt = at;
  return {
    output(j, row) {
      if (row.length !== ROW_BYTES) return rowOutput(sid, j, row, width);
      buf[jAt] = j >> 8;
      buf[jAt + 1] = j & 255;
      buf.set(row, rowAt);
      return createHash('shake256', { outputLength: width }).update(buf).digest();
    },
    wipe: () => buf.fill(0, rowAt),
  };
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
  w.bytes(u).bytes(checkValuesOfRows(sid, u, rows, xBytes));
  const beta = new Uint8Array(XI);
  for (let j = 0; j < XI; j++) beta[j] = (xBytes[j >> 3]! >> (j & 7)) & 1;
  xBytes.fill(0);
  return { message: w.finish(), state: { beta, rows } };
}

/** The receiver's check values x̃ = R(x) ‖ t̃_i = R(t_i) for every column i, for matrix `u`. */
export function checkValues(sid: Uint8Array, u: Uint8Array, t0: readonly Uint8Array[], xBytes: Uint8Array): Uint8Array {
  const rows = transpose(t0);
  const out = checkValuesOfRows(sid, u, rows, xBytes);
  rows.fill(0);
  return out;
}

/** {@link checkValues} from the transposed columns (`transpose(t0)`). */
function checkValuesOfRows(sid: Uint8Array, u: Uint8Array, rows: Uint8Array, xBytes: Uint8Array): Uint8Array {
  const basis = hashBasis(chiKey(sid, u), ROWS, HASH_BLOCKS);
  const out = new Uint8Array(16 + KAPPA * 16);
  out.set(hashBits(basis, xBytes, ROWS), 0);
  const t = hashRows(basis, rows, ROWS);
  out.set(t, 16);
  t.fill(0);
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
  const tt = r.bytes(KAPPA * 16);
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
  // R(q_i) = R(t_i) ⊕ Δ_i·R(x) for every column i
  const h = hashRows(hashBasis(chiKey(sid, u), ROWS, HASH_BLOCKS), rows, ROWS);
  let d = 0;
  for (let i = 0; i < KAPPA; i++) {
    const mask = -((delta[i >> 3]! >> (i & 7)) & 1) & 0xff;
    for (let k = 0; k < 16; k++) d |= h[i * 16 + k]! ^ tt[i * 16 + k]! ^ (xt[k]! & mask);
  }
  h.fill(0);
  if (d !== 0) rows.fill(0);
  check(d === 0, 'OT extension consistency check');
  return rows;
}
