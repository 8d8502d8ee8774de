/**
 * Recovery of a lost share of the degree-1 sharing p(x) (participants 1, 2 and the offline 3): with
 * the shares of the two other participants a, b, p(t) = λ_a(t)·p(a) + λ_b(t)·p(b), where
 * λ_a(t) = (t − b)/(a − b), by interpolation at t (never at 0: the key p(0) is not formed). Each input
 * is checked against its verifying share and the result against Y_t. The process that runs this holds
 * two shares at once: in the service, the operator's recovery command, run deliberately.
 *
 * A Schnorr proof of knowledge of a share (R = k·G, c = H(context, Y, R), z = k + c·p) lets the
 * recovery key's holder show it holds participant 3's share before the surviving online party
 * contributes its own to the rebuild.
 * @module
 */
import { addPoints, decodeScalar, equalBytes, mulBase, mulPoint, assertPeerPoint, taggedHash } from './group.ts';
import * as S from './scalar.ts';
import type { Scalar } from './scalar.ts';
import { invalidInput } from './errors.ts';

export type Participant = 1 | 2 | 3;

/** A small signed integer as a scalar (public constants only). */
const small = (k: number): Scalar => (k < 0 ? S.neg(S.fromSmall(-k)) : S.fromSmall(k));

function lagrangeAt(target: Participant, self: Participant, other: Participant): Scalar {
  const den = S.invert(small(self - other));
  return S.mul(small(target - other), den);
}

/**
 * p(target) from two other participants' shares (32 bytes each), checked against `verifyingShares`
 * (Y_1, Y_2, Y_3). Throws INVALID_INPUT naming the participant whose share does not match. The
 * caller wipes the result; the inputs are not wiped.
 */
export function recoverShareSecret(
  target: Participant,
  helpers: readonly [{ id: Participant; share: Uint8Array }, { id: Participant; share: Uint8Array }],
  verifyingShares: readonly [Uint8Array, Uint8Array, Uint8Array],
): Uint8Array {
  const [a, b] = helpers;
  if (a.id === b.id || a.id === target || b.id === target) throw invalidInput('recovery needs the shares of the two other participants');
  let acc = S.zero();
  for (const [self, other] of [
    [a, b],
    [b, a],
  ] as const) {
    let p: Scalar;
    try {
      p = decodeScalar(self.share);
    } catch {
      throw invalidInput(`participant ${self.id}'s share is not a scalar`);
    }
    if (S.isZero(p) || !equalBytes(mulBase(p), verifyingShares[self.id - 1]!)) {
      S.wipe(p);
      throw invalidInput(`participant ${self.id}'s share does not match its verifying share`);
    }
    const term = S.mul(lagrangeAt(target, self.id, other.id), p);
    const next = S.add(acc, term);
    S.wipe(p, term, acc);
    acc = next;
  }
  try {
    if (S.isZero(acc) || !equalBytes(mulBase(acc), verifyingShares[target - 1]!)) throw invalidInput(`the rebuilt share does not match participant ${target}'s verifying share`);
    return S.toBytes(acc);
  } finally {
    S.wipe(acc);
  }
}

export interface ShareProof {
  /** R = k·G, 33 bytes. */
  R: Uint8Array;
  /** z = k + c·p, 32 bytes. */
  z: Uint8Array;
}

const challenge = (context: Uint8Array, Y: Uint8Array, R: Uint8Array) => S.fromBytesReduce(taggedHash('share-proof', context, Y, R));

/** Proves knowledge of `share` (32 bytes) for its verifying share `verifyingShare` under `context`. */
export function proveShareKnowledge(share: Uint8Array, verifyingShare: Uint8Array, context: Uint8Array): ShareProof {
  const p = decodeScalar(share);
  const k = S.random();
  try {
    const R = mulBase(k);
    const c = challenge(context, verifyingShare, R);
    const cp = S.mul(c, p);
    const z = S.add(k, cp);
    S.wipe(cp);
    const out = { R, z: S.toBytes(z) };
    S.wipe(z);
    return out;
  } finally {
    S.wipe(p, k);
  }
}

/** True when `proof` shows knowledge of the discrete log of `verifyingShare` under `context`. */
export function verifyShareKnowledge(verifyingShare: Uint8Array, proof: ShareProof, context: Uint8Array): boolean {
  try {
    const Y = assertPeerPoint(verifyingShare);
    const R = assertPeerPoint(proof.R);
    const z = decodeScalar(proof.z);
    const right = addPoints(R, mulPoint(Y, challenge(context, Y, R)));
    return right !== null && !S.isZero(z) && equalBytes(mulBase(z), right);
  } catch {
    return false;
  }
}
