/**
 * Proof of knowledge of a discrete logarithm x of X = x·G, straight-line extractable: Schnorr's
 * protocol under **Fischlin's transform** (M. Fischlin, "Communication-Efficient Non-Interactive
 * Proofs of Knowledge with Online Extractors", CRYPTO 2005), as DKLs23 asks for its F_DLog proofs
 * (the DKG's public share, the base-OT sender's B) so that the simulator extracts the witness without
 * rewinding, which the paper's UC proof needs and a Fiat–Shamir proof does not give.
 *
 * Parameters: ρ = 16 repetitions, b = 8 bits of work per repetition, challenges of t = 16 bits
 * (ρ·b = 128: a prover that does not know x is accepted with probability about Q·2^-128 after Q hash
 * queries; an honest prover fails to find a challenge with probability ρ·(1 − 2^-b)^(2^t) < 2^-360,
 * and needs 2^b hashes per repetition on average). The variant is Fischlin's with sum bound S = 0:
 * every repetition's hash must have its first b bits zero.
 *
 * Prover: k_i random, K_i = k_i·G (i < ρ); for each i, the first e_i = 0, 1, … with
 * H(purpose, sid, prover, verifier, X, K_1…K_ρ, i, e_i, z_i) starting with b zero bits, where
 * z_i = k_i + e_i·x (each step adds x: constant time per step; the number of steps is e_i, which the
 * proof reveals anyway). Verifier: for every i, the hash condition and z_i·G = K_i + e_i·X.
 * Every hash binds the purpose, the session id and both party ids (prover first), so a proof cannot be
 * replayed in another session, by the other party, or for another purpose.
 * @module
 */
import { addPoints, concat, equalBytes, mulBase, mulPoint, taggedHasher } from './group.ts';
import { check } from './errors.ts';
import type { Reader, Writer } from './codec.ts';
import * as S from './scalar.ts';
import type { Scalar } from './scalar.ts';
import type { PartyId } from './session.ts';

export const FISCHLIN_REPETITIONS = 16;
const CHALLENGE_LIMIT = 1 << 16; // t = 16
/** ρ × (K_i 33 ‖ e_i 2 ‖ z_i 32) */
export const PROOF_BYTES = FISCHLIN_REPETITIONS * (33 + 2 + 32);

export interface DlogProof {
  readonly commitments: readonly Uint8Array[]; // K_i = k_i·G
  readonly challenges: readonly number[]; // e_i < 2^16
  readonly responses: readonly Scalar[]; // z_i = k_i + e_i·x
}

/** H(purpose, sid, prover, verifier, X, K_1…K_ρ, ·) with the common prefix hashed once; then (i, e, z). */
function workHasher(purpose: string, sid: Uint8Array, prover: PartyId, verifier: PartyId, X: Uint8Array, all: Uint8Array) {
  const h = taggedHasher('pok-fischlin/' + purpose, sid, Uint8Array.of(prover, verifier), X, all);
  return (i: number, e: number, z: Uint8Array): Uint8Array => h(Uint8Array.of(i), Uint8Array.of(e >> 8, e & 255), z);
}

/** The work condition: the hash's first b = 8 bits are zero. */
const accepted = (h: Uint8Array): boolean => h[0] === 0;

export function proveDlog(purpose: string, sid: Uint8Array, prover: PartyId, verifier: PartyId, x: Scalar, X: Uint8Array): DlogProof {
  const nonces = Array.from({ length: FISCHLIN_REPETITIONS }, () => S.random());
  const commitments = nonces.map((k) => mulBase(k));
  const work = workHasher(purpose, sid, prover, verifier, X, concat(...commitments));
  const challenges: number[] = [];
  const responses: Scalar[] = [];
  for (let i = 0; i < FISCHLIN_REPETITIONS; i++) {
    let z = S.add(nonces[i]!, S.zero());
    let e = 0;
    for (;;) {
      const zb = S.toBytes(z);
      const ok = accepted(work(i, e, zb));
      zb.fill(0);
      if (ok) break;
      check(++e < CHALLENGE_LIMIT, 'proof of knowledge: no challenge found'); // probability < 2^-360
      const next = S.add(z, x);
      S.wipe(z);
      z = next;
    }
    challenges.push(e);
    responses.push(z);
  }
  S.wipe(...nonces);
  return { commitments, challenges, responses };
}

/** Checks every repetition: its hash starts with b zero bits and z_i·G = K_i + e_i·X. Points validated by the decoder. */
export function verifyDlog(purpose: string, sid: Uint8Array, prover: PartyId, verifier: PartyId, X: Uint8Array, proof: DlogProof): void {
  check(proof.commitments.length === FISCHLIN_REPETITIONS && proof.challenges.length === FISCHLIN_REPETITIONS && proof.responses.length === FISCHLIN_REPETITIONS, 'proof of knowledge');
  const work = workHasher(purpose, sid, prover, verifier, X, concat(...proof.commitments));
  for (let i = 0; i < FISCHLIN_REPETITIONS; i++) {
    const K = proof.commitments[i]!;
    const e = proof.challenges[i]!;
    const z = proof.responses[i]!;
    check(Number.isInteger(e) && e >= 0 && e < CHALLENGE_LIMIT && !S.isZero(z), 'proof of knowledge');
    check(accepted(work(i, e, S.toBytes(z))), 'proof of knowledge');
    const rhs = e === 0 ? K : addPoints(K, mulPoint(X, S.fromSmall(e)));
    check(rhs !== null && equalBytes(mulBase(z), rhs), 'proof of knowledge');
  }
}

export function writeProof(w: Writer, p: DlogProof): Writer {
  for (let i = 0; i < FISCHLIN_REPETITIONS; i++) {
    const e = p.challenges[i]!;
    w.bytes(p.commitments[i]!).bytes(Uint8Array.of(e >> 8, e & 255)).scalar(p.responses[i]!);
  }
  return w;
}

export function readProof(r: Reader): DlogProof {
  const commitments: Uint8Array[] = [];
  const challenges: number[] = [];
  const responses: Scalar[] = [];
  for (let i = 0; i < FISCHLIN_REPETITIONS; i++) {
    commitments.push(r.point());
    const e = r.bytes(2);
    challenges.push((e[0]! << 8) | e[1]!);
    responses.push(r.scalar());
  }
  return { commitments, challenges, responses };
}
