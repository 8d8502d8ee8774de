/**
 * The offline recovery participant 3: its share p(3) is the sum of the two dealers' contributions
 * f_1(3) + f_2(3), each sealed separately by the process that made it. Only the holder of the recovery
 * key, offline, unseals them and calls {@link combineOfflineContributions}; with p(3) and one online
 * share p(i) the key pair can be rebuilt (here: tested by interpolation; the operator command is the
 * service's, later).
 * @module
 */
import { add, addPoints, assertPeerPoint, bigToBytes, decodeScalar, equalBytes, mulBase, mulPoint } from './curve.ts';
import { CheckFailed, invalidInput } from './errors.ts';
import type { OfflineContribution } from './dkg.ts';

/** Checks each contribution against its dealer's commitments and the sum against Y_3; returns p(3). */
export function combineOfflineContributions(contributions: readonly OfflineContribution[], verifyingShare3: Uint8Array): Uint8Array {
  try {
    const senders = contributions.map((c) => c.sender).sort();
    if (senders.length !== 2 || senders[0] !== 1 || senders[1] !== 2) throw new CheckFailed('need the contributions of dealers 1 and 2');
    let sum = 0n;
    for (const c of contributions) {
      const s = decodeScalar(c.share);
      if (c.commitments.length !== 66) throw new CheckFailed('commitments length');
      const C0 = assertPeerPoint(c.commitments.subarray(0, 33));
      const C1 = assertPeerPoint(c.commitments.subarray(33));
      const expected = addPoints(C0, mulPoint(C1, 3n));
      if (s === 0n || !expected || !equalBytes(mulBase(s), expected)) throw new CheckFailed(`contribution of dealer ${c.sender} does not match its commitments`);
      sum = add(sum, s);
    }
    if (sum === 0n || !equalBytes(mulBase(sum), verifyingShare3)) throw new CheckFailed('sum does not match Y_3');
    return bigToBytes(sum);
  } catch (e) {
    throw invalidInput(`offline share: ${e instanceof Error ? e.message : String(e)}`);
  }
}
