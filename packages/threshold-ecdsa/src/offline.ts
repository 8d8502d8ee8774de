/**
 * The offline recovery participant 3: its share p(3) is the sum of the two dealers' contributions
 * f_1(3) + f_2(3), each sealed separately by the process that made it. Only the holder of the recovery
 * key, offline, unseals them and calls {@link combineOfflineContributions}; with p(3) and one online
 * share p(i) the lost online share is rebuilt at its own point (recover.ts; the service's operator
 * command is `npm run custody -- recover`).
 * @module
 */
import { addPoints, assertPeerPoint, decodeScalar, equalBytes, mulBase, mulPoint } from './group.ts';
import * as S from './scalar.ts';
import { CheckFailed, invalidInput } from './errors.ts';
import type { OfflineContribution } from './dkg.ts';

/** Checks each contribution against its dealer's commitments and the sum against Y_3; returns p(3). */
export function combineOfflineContributions(contributions: readonly OfflineContribution[], verifyingShare3: Uint8Array): Uint8Array {
  try {
    const senders = contributions.map((c) => c.sender).sort();
    if (senders.length !== 2 || senders[0] !== 1 || senders[1] !== 2) throw new CheckFailed('need the contributions of dealers 1 and 2');
    let sum = S.zero();
    for (const c of contributions) {
      const s = decodeScalar(c.share);
      if (c.commitments.length !== 66) throw new CheckFailed('commitments length');
      const C0 = assertPeerPoint(c.commitments.subarray(0, 33));
      const C1 = assertPeerPoint(c.commitments.subarray(33));
      const expected = addPoints(C0, mulPoint(C1, S.fromSmall(3)));
      if (S.isZero(s) || !expected || !equalBytes(mulBase(s), expected)) throw new CheckFailed(`contribution of dealer ${c.sender} does not match its commitments`);
      const next = S.add(sum, s);
      S.wipe(sum, s);
      sum = next;
    }
    if (S.isZero(sum) || !equalBytes(mulBase(sum), verifyingShare3)) throw new CheckFailed('sum does not match Y_3');
    const out = S.toBytes(sum);
    S.wipe(sum);
    return out;
  } catch (e) {
    throw invalidInput(`offline share: ${e instanceof Error ? e.message : String(e)}`);
  }
}
