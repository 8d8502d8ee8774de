/**
 * Schnorr proof of knowledge of a discrete logarithm (Fiat–Shamir), bound to a purpose, the session id
 * and both party ids (prover first), so that a proof cannot be replayed in another session, by the
 * other party, or for another purpose.
 * @module
 */
import { addPoints, equalBytes, hashToScalar, mulBase, mulPoint } from './group.ts';
import * as S from './scalar.ts';
import type { Scalar } from './scalar.ts';
import { check } from './errors.ts';
import type { Reader, Writer } from './codec.ts';
import type { PartyId } from './session.ts';

export interface DlogProof {
  readonly commitment: Uint8Array; // K = k·G
  readonly response: Scalar; // z = k + e·x (constant time)
}

function challenge(purpose: string, sid: Uint8Array, prover: PartyId, verifier: PartyId, X: Uint8Array, K: Uint8Array): Scalar {
  return hashToScalar('pok/' + purpose, sid, Uint8Array.of(prover, verifier), X, K);
}

export function proveDlog(purpose: string, sid: Uint8Array, prover: PartyId, verifier: PartyId, x: Scalar, X: Uint8Array): DlogProof {
  const k = S.random();
  const K = mulBase(k);
  const e = challenge(purpose, sid, prover, verifier, X, K);
  const ex = S.mul(e, x);
  const response = S.add(k, ex);
  S.wipe(k, ex);
  return { commitment: K, response };
}

/** Checks z·G = K + e·X. `X` and `K` have been validated as points by the decoder. */
export function verifyDlog(purpose: string, sid: Uint8Array, prover: PartyId, verifier: PartyId, X: Uint8Array, proof: DlogProof): void {
  check(!S.isZero(proof.response), 'proof of knowledge');
  const e = challenge(purpose, sid, prover, verifier, X, proof.commitment);
  const rhs = addPoints(proof.commitment, mulPoint(X, e));
  check(rhs !== null && equalBytes(mulBase(proof.response), rhs), 'proof of knowledge');
}

export function writeProof(w: Writer, p: DlogProof): Writer {
  return w.bytes(p.commitment).scalar(p.response);
}

export function readProof(r: Reader): DlogProof {
  return { commitment: r.point(), response: r.scalar() };
}
