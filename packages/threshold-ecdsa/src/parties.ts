/**
 * The protocols as step machines for two processes. Each party's transcript is a list of messages
 * m_0, m_1, …: m_0 needs no input and m_k (k ≥ 1) is computed from the peer's m_{k−1}; the last step
 * consumes the peer's last message and sends nothing. That lets a caller batch: participant 1 sends
 * m_0; participant 2 answers its m_0 and m_1; each later exchange carries two messages each way.
 *
 * - key generation: DKG (hello, commit, open) then OT setup (hello, rounds 1–5): 9 messages each,
 *   5 exchanges;
 * - OT setup alone (after an abort, or to renew the correlations): 6 messages each, 4 exchanges;
 * - share refresh: refresh (hello, commit, open) then OT setup for the new share: 9 messages each,
 *   5 exchanges;
 * - presigning: hello, rounds 1–2: 3 messages each, 2 exchanges; the message-dependent round 3 is the
 *   `Presignature`'s.
 *
 * No transport or storage here: the caller routes the bytes.
 * @module
 */
import { OtSetupSession } from './baseot.ts';
import { DkgSession, type OfflineContribution } from './dkg.ts';
import { ThresholdEcdsaError } from './errors.ts';
import type { KeyShare } from './keyshare.ts';
import type { PartyId } from './session.ts';
import { RefreshSession, type RefreshResult } from './refresh.ts';
import { SignSession, type Presignature } from './sign.ts';

export interface Party<R> {
  /** m_0. */
  first(): Uint8Array;
  /** Consumes the peer's next message; answers this party's next one, or null after the last step. */
  step(peerMessage: Uint8Array): Uint8Array | null;
  readonly done: boolean;
  /** The outcome, once done. */
  result(): R;
  /** Drops the party's secrets (a session abandoned before its end). */
  abandon(): void;
}

type Step = (peer: Uint8Array) => Uint8Array | null;

function party<R>(first: () => Uint8Array, steps: Step[], result: () => R, abandon: () => void): Party<R> {
  let next = 0;
  let started = false;
  const misuse = (message: string) => new ThresholdEcdsaError('SESSION_CLOSED', `threshold-ecdsa: ${message}`);
  return {
    first() {
      if (started) throw misuse('first message already made');
      started = true;
      return first();
    },
    step(peer) {
      if (!started || next >= steps.length) throw misuse('no step expects a message now');
      return steps[next++]!(peer);
    },
    get done() {
      return next === steps.length;
    },
    result() {
      if (next !== steps.length) throw misuse('the protocol has not finished');
      return result();
    },
    abandon,
  };
}

const otSteps = (ot: () => OtSetupSession): Step[] => [
  (m) => ot().round1(m),
  (m) => ot().round2(m),
  (m) => ot().round3(m),
  (m) => ot().round4(m),
  (m) => ot().round5(m),
  (m) => {
    ot().finish(m);
    return null;
  },
];

export interface KeygenResult {
  /** With ready OT correlations. */
  share: KeyShare;
  /** This dealer's contribution to the offline participant 3: seal it to the recovery key at once. */
  offline: OfflineContribution;
}

/** DKG then OT setup. `context` (e.g. the wallet id) is bound into the DKG's session id; the same on both sides. */
export function keygenParty(partyId: PartyId, context: Uint8Array): Party<KeygenResult> {
  const dkg = new DkgSession(partyId, context);
  let out: { share: KeyShare; offline: OfflineContribution } | null = null;
  let ot: OtSetupSession | null = null;
  return party(
    () => dkg.hello(),
    [
      (m) => dkg.commit(m),
      (m) => dkg.open(m),
      (m) => {
        out = dkg.finish(m);
        ot = new OtSetupSession(out.share);
        return ot.hello();
      },
      ...otSteps(() => ot!),
    ],
    () => out!,
    () => {
      if (!out) return;
      out.share.wipe();
      out.offline.share.fill(0);
    },
  );
}

/**
 * A refresh of `share` keeping the public key (refresh.ts), then an OT setup for the refreshed share:
 * the result has fresh correlations; the old share is left as it was (the caller wipes it). `context`
 * is bound into the refresh's session id; the same on both sides.
 */
export function refreshParty(share: KeyShare, context: Uint8Array): Party<RefreshResult> {
  const refresh = new RefreshSession(share, context);
  let out: RefreshResult | null = null;
  let ot: OtSetupSession | null = null;
  return party(
    () => refresh.hello(),
    [
      (m) => refresh.commit(m),
      (m) => refresh.open(m),
      (m) => {
        out = refresh.finish(m);
        ot = new OtSetupSession(out.share);
        return ot.hello();
      },
      ...otSteps(() => ot!),
    ],
    () => out!,
    () => {
      if (!out) return;
      out.share.wipe();
      out.offline.delta.fill(0);
    },
  );
}

/** A fresh OT setup for an existing share (fresh Δ and seeds; the share's status becomes `ready`). */
export function otSetupParty(share: KeyShare): Party<KeyShare> {
  const ot = new OtSetupSession(share);
  return party(() => ot.hello(), otSteps(() => ot), () => share, () => share.markOtUnusable());
}

/** The message-independent rounds; the result is a single-use presignature. */
export function presignParty(share: KeyShare): Party<Presignature> {
  const session = new SignSession(share);
  let presignature: Presignature | null = null;
  return party(
    () => session.hello(),
    [
      (m) => session.round1(m),
      (m) => session.round2(m),
      (m) => {
        presignature = session.presign(m);
        return null;
      },
    ],
    () => presignature!,
    () => presignature?.discard(),
  );
}
