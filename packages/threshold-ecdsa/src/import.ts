/**
 * Import of an existing secp256k1 key by a trusted dealer: the process that holds the key once
 * (the signer, converting a wallet whose key it joins anyway) splits it into the degree-1 sharing
 * the protocols use, p(x) = sk + a_1·x with a_1 random, so that the address does not change:
 *
 * - participants 1 and 2 get `KeyShare`s with p(1), p(2), Y_k = p(k)·G and pk = sk·G, without OT
 *   correlations (run OT setup between them next);
 * - participant 3's p(3) with Y_3 is the offline item: seal it to the recovery key at once.
 *
 * Unlike the DKG, the dealer sees every share: it must be the process that already held the key,
 * and it wipes what it dealt once each share is handed on.
 * @module
 */
import { addPoints, equalBytes, mulBase, mulPoint, negPoint } from './group.ts';
import * as S from './scalar.ts';
import type { Scalar } from './scalar.ts';
import { invalidInput } from './errors.ts';
import { newKeyShare, type KeyShare } from './keyshare.ts';

/** Participant 3's share of a dealt key. `share` is secret. */
export interface DealtOfflineShare {
  /** p(3), 32 bytes: seal it to the recovery key at once. */
  readonly share: Uint8Array;
  /** Y_3 = p(3)·G (33 bytes, public): checks the share at recovery. */
  readonly verifyingShare: Uint8Array;
}

export interface DealtKey {
  /** Participant 1's and 2's shares, OT status `absent`. */
  readonly shares: readonly [KeyShare, KeyShare];
  readonly offline: DealtOfflineShare;
  /** 33-byte compressed pk = sk·G. */
  readonly publicKey: Uint8Array;
}

/**
 * Splits `secretKey` (32 bytes, 0 < sk < n). When `expectedPublicKey` (33 bytes compressed) is given,
 * refuses a key that does not give it. Checks Y_k = pk + k·(a_1·G) for each share before answering.
 * The caller wipes `secretKey`, both shares (`wipe()`) and `offline.share`.
 */
export function dealKeyShares(secretKey: Uint8Array, expectedPublicKey?: Uint8Array): DealtKey {
  if (secretKey.length !== 32) throw invalidInput('import: a secret key is 32 bytes');
  let sk: Scalar = S.zero();
  let a1: Scalar = S.zero();
  let p: Scalar[] = [];
  try {
    try {
      sk = S.fromBytesStrict(secretKey);
    } catch {
      throw invalidInput('import: the secret key is not a scalar in [1, n)');
    }
    if (S.isZero(sk)) throw invalidInput('import: the secret key is not a scalar in [1, n)');
    const pk = mulBase(sk);
    if (expectedPublicKey && !equalBytes(pk, expectedPublicKey)) throw invalidInput('import: the secret key does not give the expected public key');
    // A zero share has no point; with a random a_1 that happens with probability ~3/n, so draw again.
    do {
      S.wipe(a1, ...p);
      a1 = S.random();
      p = [1, 2, 3].map((k) => {
        const t = S.mul(a1, S.fromSmall(k));
        const pk = S.add(sk, t);
        S.wipe(t);
        return pk;
      });
    } while (p.some((s) => S.isZero(s)));
    const B = mulBase(a1);
    const Y = p.map((s) => mulBase(s)) as [Uint8Array, Uint8Array, Uint8Array];
    for (const [index, k] of [1, 2, 3].entries()) {
      const expected = addPoints(pk, mulPoint(B, S.fromSmall(k)));
      if (!expected || !equalBytes(expected, Y[index]!)) throw invalidInput('import: dealt shares are inconsistent');
    }
    const pk2 = addPoints(mulPoint(Y[0], S.fromSmall(2)), negPoint(Y[1]));
    if (!pk2 || !equalBytes(pk2, pk)) throw invalidInput('import: dealt shares are inconsistent');
    return {
      shares: [newKeyShare(1, p[0]!, Y, pk), newKeyShare(2, p[1]!, Y, pk)],
      offline: { share: S.toBytes(p[2]!), verifyingShare: Y[2] },
      publicKey: pk,
    };
  } finally {
    S.wipe(sk, a1, ...p);
  }
}
