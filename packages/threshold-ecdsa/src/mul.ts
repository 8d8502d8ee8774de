/**
 * Two-party random vector OLE (DKLs23 Functionality 3.5), by DKLs19 Protocol 1 in the two-message form
 * DKLs23 §5.1 describes: Bob's input b = ⟨g, β⟩ is random (β his random OT choice bits, g the gadget
 * vector: 2^0…2^255 then 2s = 160 public pseudo-random scalars, so that a few leaked bits of β leave b
 * statistically hidden); Alice's input is a vector a ∈ Z_n^L, L = 2. Outputs c (Alice) and d (Bob) with
 * c + d = b·a.
 *
 * Alice runs correlated OT on random pads ã (L values) and check values â (L values) in one batch of
 * Bob's ξ = 416 OTs ("forced reuse"), sends τ_j = z¹_j − z⁰_j + (ã, â), then the check and the adjustment:
 * χ̃_k, χ̂_k = H(sid, k, transcript incl. τ); u_k = χ̃_k·ã_k + χ̂_k·â_k; r_{k,j} = χ̃_k·α̃_{j,k} + χ̂_k·α̂_{j,k}
 * sent as one hash; γ_A = a − ã. Bob checks, for every j and k, r_{k,j} = β_j·u_k − χ̃_k·γ̃_{j,k} −
 * χ̂_k·γ̂_{j,k} (compared as the hash) and outputs d_k = Σ_j g_j·γ̃_{j,k} + b·γ_{A,k}.
 * @module
 */
import { N, add, hashToScalar, mod, mul, randomScalar, readScalarAt, sub, taggedHash, writeScalarAt } from './curve.ts';
import { check } from './errors.ts';
import type { Reader, Writer } from './codec.ts';
import { oteReceive, oteSend, rowOutput, XI, KAPPA, type OteReceiverState } from './ote.ts';

export const L = 2;
const W = 2 * L; // correlations per OT: ã_1..ã_L, â_1..â_L
const CHUNK = 32; // bytes per scalar drawn from an OT output: n > 2^256 - 2^129, so reducing mod n is 2^-127-close to uniform
export const MUL_SENDER_BYTES = XI * W * 32 + 32 + L * 32 + L * 32;

export const GADGET: readonly bigint[] = Array.from({ length: XI }, (_, j) =>
  j < KAPPA ? 1n << BigInt(j) : hashToScalar('mul/gadget', Uint8Array.of(j >> 8, j & 255)),
);

function expand(buf: Uint8Array): bigint[] {
  const v = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  const out: bigint[] = [];
  for (let k = 0; k < W; k++) out.push(mod(readScalarAt(v, k * CHUNK)));
  buf.fill(0);
  return out;
}

function challenges(sid: Uint8Array, bobMessage: Uint8Array, tau: Uint8Array): { tilde: bigint[]; hat: bigint[] } {
  const t = taggedHash('mul/transcript', sid, bobMessage, tau);
  const tilde: bigint[] = [];
  const hat: bigint[] = [];
  for (let k = 0; k < L; k++) {
    tilde.push(hashToScalar('mul/chi-tilde', sid, Uint8Array.of(k), t));
    hat.push(hashToScalar('mul/chi-hat', sid, Uint8Array.of(k), t));
  }
  return { tilde, hat };
}

export interface MulReceiverState {
  readonly b: bigint;
  readonly ote: OteReceiverState;
  readonly message: Uint8Array;
}

/** Bob, round 1: random input b; the message is the OT-extension matrix and its check. */
export function mulReceiverStart(seeds0: readonly Uint8Array[], seeds1: readonly Uint8Array[], sid: Uint8Array): MulReceiverState {
  const { message, state } = oteReceive(seeds0, seeds1, sid);
  let b = 0n;
  for (let j = 0; j < XI; j++) b += GADGET[j]! * BigInt(state.beta[j]!);
  return { b: mod(b), ote: state, message };
}

/** Alice, round 2: checks Bob's extension message, writes her message; returns her output shares c. */
export function mulSenderRespond(delta: Uint8Array, chosenSeeds: readonly Uint8Array[], sid: Uint8Array, bobMessage: Uint8Array, r: Reader, a: readonly bigint[], w: Writer): bigint[] {
  const q = oteSend(delta, chosenSeeds, sid, r);
  const pads = Array.from({ length: W }, () => randomScalar());
  const z0: bigint[][] = [];
  const tau = new Uint8Array(XI * W * 32);
  const tauView = new DataView(tau.buffer);
  const row1 = new Uint8Array(32);
  for (let j = 0; j < XI; j++) {
    const row = q.subarray(j * 32, j * 32 + 32);
    for (let k = 0; k < 32; k++) row1[k] = row[k]! ^ delta[k]!;
    const a0 = expand(rowOutput(sid, j, row, W * CHUNK));
    const a1 = expand(rowOutput(sid, j, row1, W * CHUNK));
    z0.push(a0);
    for (let k = 0; k < W; k++) writeScalarAt(tauView, (j * W + k) * 32, add(sub(a1[k]!, a0[k]!), pads[k]!));
  }
  q.fill(0);
  row1.fill(0);
  const chi = challenges(sid, bobMessage, tau);
  const rBytes = new Uint8Array(L * XI * 32);
  const rView = new DataView(rBytes.buffer);
  for (let k = 0; k < L; k++) {
    for (let j = 0; j < XI; j++) writeScalarAt(rView, (k * XI + j) * 32, add(mul(chi.tilde[k]!, z0[j]![k]!), mul(chi.hat[k]!, z0[j]![L + k]!)));
  }
  w.bytes(tau).bytes(taggedHash('mul/r', sid, rBytes));
  rBytes.fill(0);
  for (let k = 0; k < L; k++) w.scalar(add(mul(chi.tilde[k]!, pads[k]!), mul(chi.hat[k]!, pads[L + k]!)));
  for (let k = 0; k < L; k++) w.scalar(sub(a[k]!, pads[k]!));
  const c: bigint[] = [];
  for (let k = 0; k < L; k++) {
    let s = 0n;
    for (let j = 0; j < XI; j++) s += GADGET[j]! * z0[j]![k]!;
    c.push(mod(s));
  }
  return c;
}

/** Bob, round 3: reads Alice's message, runs the multiplication check; returns his output shares d. */
export function mulReceiverFinish(state: MulReceiverState, sid: Uint8Array, r: Reader): bigint[] {
  const tauBytes = r.bytes(XI * W * 32);
  const verifyR = r.bytes(32);
  const u: bigint[] = [];
  const gammaA: bigint[] = [];
  for (let k = 0; k < L; k++) u.push(r.scalar());
  for (let k = 0; k < L; k++) gammaA.push(r.scalar());
  const chi = challenges(sid, state.message, tauBytes);
  const { beta, rows } = state.ote;
  const tauView = new DataView(tauBytes.buffer, tauBytes.byteOffset, tauBytes.byteLength);
  const gamma: bigint[][] = [];
  for (let j = 0; j < XI; j++) {
    const zb = expand(rowOutput(sid, j, rows.subarray(j * 32, j * 32 + 32), W * CHUNK));
    const bj = BigInt(beta[j]!);
    const g: bigint[] = [];
    for (let k = 0; k < W; k++) {
      const tau = readScalarAt(tauView, (j * W + k) * 32);
      check(tau < N, 'scalar not reduced');
      g.push(sub(bj * tau, zb[k]!));
    }
    gamma.push(g);
  }
  const rBytes = new Uint8Array(L * XI * 32);
  const rView = new DataView(rBytes.buffer);
  for (let k = 0; k < L; k++) {
    for (let j = 0; j < XI; j++) {
      const v = sub(BigInt(beta[j]!) * u[k]!, add(mul(chi.tilde[k]!, gamma[j]![k]!), mul(chi.hat[k]!, gamma[j]![L + k]!)));
      writeScalarAt(rView, (k * XI + j) * 32, v);
    }
  }
  const mine = taggedHash('mul/r', sid, rBytes);
  rBytes.fill(0);
  let diff = 0;
  for (let i = 0; i < 32; i++) diff |= mine[i]! ^ verifyR[i]!;
  check(diff === 0, 'multiplication check');
  const d: bigint[] = [];
  for (let k = 0; k < L; k++) {
    let s = 0n;
    for (let j = 0; j < XI; j++) s += GADGET[j]! * gamma[j]![k]!;
    d.push(add(mod(s), mul(state.b, gammaA[k]!)));
  }
  rows.fill(0);
  beta.fill(0);
  return d;
}
