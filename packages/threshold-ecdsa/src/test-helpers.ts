/** Runs the protocols between two in-process parties; `tamper` lets a test play a deviating peer. */
import { DkgSession, type DkgResult } from './dkg.ts';
import { OtSetupSession } from './baseot.ts';
import { SignSession, type EcdsaSignature, type Presignature } from './sign.ts';
import type { KeyShare } from './keyshare.ts';
import type { PartyId } from './session.ts';

export type Tamper = (step: string, from: PartyId, msg: Uint8Array) => Uint8Array;
const none: Tamper = (_s, _f, m) => m;

/** Each step: both parties produce their message from the peer's previous one (party 1 first). */
function exchange<T1, T2>(step: string, tamper: Tamper, f1: (m: Uint8Array) => T1, f2: (m: Uint8Array) => T2, m1: Uint8Array, m2: Uint8Array): [T1, T2] {
  const out1 = f1(tamper(step, 2, m2));
  const out2 = f2(tamper(step, 1, m1));
  return [out1, out2];
}

export function runDkg(tamper: Tamper = none, context?: Uint8Array): [KeyShare, KeyShare] {
  const [a, b] = runDkgFull(tamper, context);
  return [a.share, b.share];
}

export function runDkgFull(tamper: Tamper = none, context?: Uint8Array): [DkgResult, DkgResult] {
  const a = new DkgSession(1, context);
  const b = new DkgSession(2, context);
  let [m1, m2] = [a.hello(), b.hello()];
  [m1, m2] = exchange('dkg.commit', tamper, (m) => a.commit(m), (m) => b.commit(m), m1, m2);
  [m1, m2] = exchange('dkg.open', tamper, (m) => a.open(m), (m) => b.open(m), m1, m2);
  return exchange('dkg.finish', tamper, (m) => a.finish(m), (m) => b.finish(m), m1, m2);
}

export function runOtSetup(s1: KeyShare, s2: KeyShare, tamper: Tamper = none, sessions?: (a: OtSetupSession, b: OtSetupSession) => void): void {
  const a = new OtSetupSession(s1);
  const b = new OtSetupSession(s2);
  sessions?.(a, b);
  let [m1, m2] = [a.hello(), b.hello()];
  [m1, m2] = exchange('ot.1', tamper, (m) => a.round1(m), (m) => b.round1(m), m1, m2);
  [m1, m2] = exchange('ot.2', tamper, (m) => a.round2(m), (m) => b.round2(m), m1, m2);
  [m1, m2] = exchange('ot.3', tamper, (m) => a.round3(m), (m) => b.round3(m), m1, m2);
  [m1, m2] = exchange('ot.4', tamper, (m) => a.round4(m), (m) => b.round4(m), m1, m2);
  [m1, m2] = exchange('ot.5', tamper, (m) => a.round5(m), (m) => b.round5(m), m1, m2);
  exchange('ot.finish', tamper, (m) => a.finish(m), (m) => b.finish(m), m1, m2);
}

export function runPresign(s1: KeyShare, s2: KeyShare, tamper: Tamper = none): [Presignature, Presignature] {
  const a = new SignSession(s1);
  const b = new SignSession(s2);
  let [m1, m2] = [a.hello(), b.hello()];
  [m1, m2] = exchange('sign.1', tamper, (m) => a.round1(m), (m) => b.round1(m), m1, m2);
  [m1, m2] = exchange('sign.2', tamper, (m) => a.round2(m), (m) => b.round2(m), m1, m2);
  return exchange('sign.presign', tamper, (m) => a.presign(m), (m) => b.presign(m), m1, m2);
}

export function finishBoth(p1: Presignature, p2: Presignature, digest: Uint8Array, tamper: Tamper = none): [EcdsaSignature, EcdsaSignature] {
  const f1 = p1.prepareFinalMessage(digest);
  const f2 = p2.prepareFinalMessage(digest);
  return exchange('sign.finish', tamper, (m) => f1.finish(m), (m) => f2.finish(m), f1.message, f2.message);
}

export function setup(): [KeyShare, KeyShare] {
  const [s1, s2] = runDkg();
  runOtSetup(s1, s2);
  return [s1, s2];
}
