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
import { hashToScalar, taggedHash } from './group.ts';
import { check } from './errors.ts';
import type { Reader, Writer } from './codec.ts';
import { oteReceive, oteSend, rowOutputs, XI, KAPPA, type OteReceiverState } from './ote.ts';
import * as S from './scalar.ts';
import type { Scalar } from './scalar.ts';

export const L = 2;
const W = 2 * L; // correlations per OT: ã_1..ã_L, â_1..â_L
const CHUNK = 32; // bytes per scalar drawn from an OT output: n > 2^256 - 2^129, so reducing mod n is 2^-127-close to uniform
export const MUL_SENDER_BYTES = XI * W * 32 + 32 + L * 32 + L * 32;

function powerOfTwo(j: number): Scalar {
  const b = new Uint8Array(32);
  b[31 - (j >> 3)] = 1 << (j & 7);
  return S.fromBytesReduce(b);
}

/** The gadget vector (public): 2^0…2^255, then 2s = 160 pseudo-random scalars. */
export const GADGET: readonly Scalar[] = Array.from({ length: XI }, (_, j) =>
  j < KAPPA ? powerOfTwo(j) : hashToScalar('mul/gadget', Uint8Array.of(j >> 8, j & 255)),
);
/** The pseudo-random gadget entries as fixed-multiplier tables (computed on first use; public). */
let gadgetTables: readonly S.Fixed[] | null = null;
const tables = (): readonly S.Fixed[] => (gadgetTables ??= GADGET.slice(KAPPA).map((g) => S.fixed(g)));
const ZERO = S.zero();

/** W scalars from one OT output (32 bytes each, reduced mod n) into `out`; wipes the output. */
function expand(buf: Uint8Array, out: Scalar[] = Array.from({ length: W }, S.zero)): Scalar[] {
  for (let k = 0; k < W; k++) S.fromBytesReduceInto(out[k]!, buf, k * CHUNK);
  buf.fill(0);
  return out;
}
const scratch = (n: number): Scalar[] => Array.from({ length: n }, S.zero);

/** χ̃_k, χ̂_k (public once τ is sent), prepared as fixed multipliers for the 2·ξ products each. */
function challenges(sid: Uint8Array, bobMessage: Uint8Array, tau: Uint8Array): { tilde: S.Fixed[]; hat: S.Fixed[] } {
  const t = taggedHash('mul/transcript', sid, bobMessage, tau);
  const tilde: S.Fixed[] = [];
  const hat: S.Fixed[] = [];
  for (let k = 0; k < L; k++) {
    tilde.push(S.fixed(hashToScalar('mul/chi-tilde', sid, Uint8Array.of(k), t)));
    hat.push(S.fixed(hashToScalar('mul/chi-hat', sid, Uint8Array.of(k), t)));
  }
  return { tilde, hat };
}

/**
 * Σ_j g_j·x_j[k] (constant time: every term computed, none skipped): Horner's rule for the powers of
 * two g_j = 2^j (j < κ: acc ← 2·acc + x_j from j = κ − 1 down), then the 2s pseudo-random entries two
 * at a time with their fixed-multiplier tables.
 */
function gadgetSum(xs: readonly Scalar[][], k: number): Scalar {
  const acc = S.zero();
  for (let j = KAPPA - 1; j >= 0; j--) S.dblAddInto(acc, acc, xs[j]![k]!);
  const t = tables();
  const p = S.zero();
  for (let j = KAPPA; j < XI; j += 2) S.addInto(acc, acc, S.mulAddFixedInto(p, xs[j]![k]!, t[j - KAPPA]!, xs[j + 1]![k]!, t[j + 1 - KAPPA]!));
  p.fill(0);
  return acc;
}

const wipeRows = (rows: Scalar[][]): void => {
  for (const row of rows) S.wipe(...row);
};

export interface MulReceiverState {
  readonly b: Scalar;
  readonly ote: OteReceiverState;
  readonly message: Uint8Array;
}

/** Bob, round 1: random input b = ⟨g, β⟩ (β selected by masks); the message is the OT-extension matrix and its check. */
export function mulReceiverStart(seeds0: readonly Uint8Array[], seeds1: readonly Uint8Array[], sid: Uint8Array): MulReceiverState {
  const { message, state } = oteReceive(seeds0, seeds1, sid);
  const b = S.zero();
  const t = S.zero();
  for (let j = 0; j < XI; j++) S.addInto(b, b, S.selectInto(t, S.bitMask(state.beta[j]!), GADGET[j]!, ZERO));
  t.fill(0);
  return { b, ote: state, message };
}

/** Alice, round 2: checks Bob's extension message, writes her message; returns her output shares c. */
export function mulSenderRespond(delta: Uint8Array, chosenSeeds: readonly Uint8Array[], sid: Uint8Array, bobMessage: Uint8Array, r: Reader, a: readonly Scalar[], w: Writer): Scalar[] {
  const q = oteSend(delta, chosenSeeds, sid, r);
  const pads = Array.from({ length: W }, () => S.random());
  const z0: Scalar[][] = [];
  const tau = new Uint8Array(XI * W * 32);
  const row1 = new Uint8Array(32);
  const H = rowOutputs(sid, W * CHUNK);
  const a1 = scratch(W);
  const t = S.zero();
  for (let j = 0; j < XI; j++) {
    const row = q.subarray(j * 32, j * 32 + 32);
    for (let k = 0; k < 32; k++) row1[k] = row[k]! ^ delta[k]!;
    const a0 = expand(H.output(j, row));
    expand(H.output(j, row1), a1);
    z0.push(a0);
    for (let k = 0; k < W; k++) S.writeScalar(tau, (j * W + k) * 32, S.addInto(t, S.subInto(t, a1[k]!, a0[k]!), pads[k]!));
  }
  wipeRows([a1]);
  q.fill(0);
  row1.fill(0);
  H.wipe();
  const chi = challenges(sid, bobMessage, tau);
  const rBytes = new Uint8Array(L * XI * 32);
  for (let k = 0; k < L; k++) {
    for (let j = 0; j < XI; j++) S.writeScalar(rBytes, (k * XI + j) * 32, S.mulAddFixedInto(t, z0[j]![k]!, chi.tilde[k]!, z0[j]![L + k]!, chi.hat[k]!));
  }
  t.fill(0);
  w.bytes(tau).bytes(taggedHash('mul/r', sid, rBytes));
  rBytes.fill(0);
  for (let k = 0; k < L; k++) w.scalar(S.mulAddFixed(pads[k]!, chi.tilde[k]!, pads[L + k]!, chi.hat[k]!));
  for (let k = 0; k < L; k++) w.scalar(S.sub(a[k]!, pads[k]!));
  const c: Scalar[] = [];
  for (let k = 0; k < L; k++) c.push(gadgetSum(z0, k));
  wipeRows(z0);
  S.wipe(...pads);
  return c;
}

/** Bob, round 3: reads Alice's message, runs the multiplication check; returns his output shares d. */
export function mulReceiverFinish(state: MulReceiverState, sid: Uint8Array, r: Reader): Scalar[] {
  const tauBytes = r.bytes(XI * W * 32);
  const verifyR = r.bytes(32);
  const u: Scalar[] = [];
  const gammaA: Scalar[] = [];
  for (let k = 0; k < L; k++) u.push(r.scalar());
  for (let k = 0; k < L; k++) gammaA.push(r.scalar());
  const chi = challenges(sid, state.message, tauBytes);
  const { beta, rows } = state.ote;
  const gamma: Scalar[][] = [];
  const masks: number[] = [];
  const H = rowOutputs(sid, W * CHUNK);
  const zb = scratch(W);
  const [tau, bt, s] = scratch(3) as [Scalar, Scalar, Scalar];
  try {
    for (let j = 0; j < XI; j++) {
      expand(H.output(j, rows.subarray(j * 32, j * 32 + 32)), zb);
      const mask = S.bitMask(beta[j]!);
      masks.push(mask);
      const g: Scalar[] = [];
      gamma.push(g);
      for (let k = 0; k < W; k++) {
        S.fromBytesStrictInto(tau, tauBytes, (j * W + k) * 32, 32); // 'scalar not reduced' otherwise
        g.push(S.sub(S.selectInto(bt, mask, tau, ZERO), zb[k]!)); // β_j·τ − z_B
      }
    }
    const rBytes = new Uint8Array(L * XI * 32);
    for (let k = 0; k < L; k++) {
      for (let j = 0; j < XI; j++) {
        S.selectInto(bt, masks[j]!, u[k]!, ZERO); // β_j·u_k
        S.mulAddFixedInto(s, gamma[j]![k]!, chi.tilde[k]!, gamma[j]![L + k]!, chi.hat[k]!);
        S.writeScalar(rBytes, (k * XI + j) * 32, S.subInto(s, bt, s));
      }
    }
    const mine = taggedHash('mul/r', sid, rBytes);
    rBytes.fill(0);
    let diff = 0;
    for (let i = 0; i < 32; i++) diff |= mine[i]! ^ verifyR[i]!;
    check(diff === 0, 'multiplication check');
    const d: Scalar[] = [];
    for (let k = 0; k < L; k++) {
      const sum = gadgetSum(gamma, k);
      const bg = S.mul(state.b, gammaA[k]!);
      d.push(S.add(sum, bg));
      S.wipe(sum, bg);
    }
    return d;
  } finally {
    H.wipe();
    S.wipe(...zb, tau, bt, s);
    wipeRows(gamma);
    masks.fill(0);
    rows.fill(0);
    beta.fill(0);
  }
}
