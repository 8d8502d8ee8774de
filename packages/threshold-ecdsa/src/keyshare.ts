/**
 * The long-lived key share of one online party: its Shamir share p(i) of the key (degree 1, so any
 * two of participants 1, 2 and 3 determine it; 3 is the offline recovery participant), the verifying
 * shares Y_k = p(k)·G of all three, and the OT correlations of the last OT setup in both directions,
 * with their status. Signing between 1 and 2 uses the additive shares x_i = λ_i·p(i) (λ_1 = 2,
 * λ_2 = −1) with public shares X_i = λ_i·Y_i, X_1 + X_2 = the public key. The OT status is state the
 * caller must persist: after any aborted signing or OT session it is `unusable`, and signing refuses
 * until a fresh OT setup.
 * @module
 */
import { Reader, Writer } from './codec.ts';
import { assertPeerPoint, mulBase, mulPoint, negPoint, addPoints, equalBytes } from './group.ts';
import * as S from './scalar.ts';
import type { Scalar } from './scalar.ts';
import { CheckFailed, invalidInput, ThresholdEcdsaError } from './errors.ts';
import { KAPPA } from './ote.ts';
import type { PartyId } from './session.ts';

/** OT correlations of one key pair (this party's side of both directions). */
export interface OtCorrelations {
  /** Id of the OT setup session these correlations come from (bound into every signing session id). */
  readonly setupId: Uint8Array;
  /** Role "Alice" (OT-extension sender, base-OT receiver): Δ (κ bits) and the seeds k_i^{Δ_i}. */
  readonly delta: Uint8Array; // 32 bytes
  readonly chosenSeeds: Uint8Array[]; // κ × 32
  /** Role "Bob" (OT-extension receiver, base-OT sender): both seeds of every base OT. */
  readonly seeds0: Uint8Array[]; // κ × 32
  readonly seeds1: Uint8Array[]; // κ × 32
}

export type OtStatus = 'absent' | 'ready' | 'unusable';

const SHARE_MAGIC = 0x4b; // 'K'
const SHARE_VERSION = 1;

/** Lagrange coefficients at 0 for the signing set {1, 2}: λ_1 = 2/(2−1), λ_2 = 1/(1−2). */
const LAMBDA: Record<PartyId, Scalar> = { 1: S.fromSmall(2), 2: S.neg(S.fromSmall(1)) };

export class KeyShare {
  private otStatus: OtStatus;
  /** X_i = λ_i·Y_i for the signing set {1, 2}: X_1 + X_2 = publicKey. */
  readonly publicShares: Readonly<Record<PartyId, Uint8Array>>;
  constructor(
    readonly partyId: PartyId,
    private readonly secret: Uint8Array, // p(i), 32 bytes
    /** Y_1, Y_2, Y_3: p(k)·G for participants 1, 2 and the offline participant 3. */
    readonly verifyingShares: readonly [Uint8Array, Uint8Array, Uint8Array],
    readonly publicKey: Uint8Array,
    private otState: OtCorrelations | null,
    status?: OtStatus,
  ) {
    this.otStatus = status ?? (otState ? 'ready' : 'absent');
    this.publicShares = { 1: mulPoint(verifyingShares[0], S.fromSmall(2)), 2: negPoint(verifyingShares[1]) };
  }

  get peerId(): PartyId {
    return this.partyId === 1 ? 2 : 1;
  }
  /** `ready` when signing may run; `unusable` after any abort (persist it!); `absent` before OT setup. */
  get otStatusValue(): OtStatus {
    return this.otStatus;
  }
  /**
   * Hex id of the OT setup the current correlations come from (null before any). The status inside an
   * encoded share is only as fresh as that copy: a party that must not be fooled by a replayed old copy
   * (the signer, against a compromised API) keeps its own record of the id and of any abort under it.
   */
  get otSetupId(): string | null {
    return this.otState ? Buffer.from(this.otState.setupId).toString('hex') : null;
  }
  /** Marks the OT correlations unusable (done by every abort of a signing or OT session). */
  markOtUnusable(): void {
    if (this.otState) this.otStatus = 'unusable';
  }
  /** @internal the additive signing share x_i = λ_i·p(i), constant time; the caller wipes it. */
  secretScalar(): Scalar {
    const p = S.fromBytesReduce(this.secret);
    const x = S.mul(LAMBDA[this.partyId], p);
    S.wipe(p);
    return x;
  }
  /** @internal the correlations, only while `ready`. */
  readyOt(): OtCorrelations {
    if (this.otStatus !== 'ready' || !this.otState) {
      throw new ThresholdEcdsaError('OT_UNUSABLE', 'threshold-ecdsa: OT correlations unusable or absent; run OT setup again');
    }
    return this.otState;
  }
  /** @internal installs fresh correlations (end of an OT setup). */
  installOt(ot: OtCorrelations): void {
    this.wipeOt();
    this.otState = ot;
    this.otStatus = 'ready';
  }
  private wipeOt(): void {
    const ot = this.otState;
    if (!ot) return;
    ot.delta.fill(0);
    for (const a of [ot.chosenSeeds, ot.seeds0, ot.seeds1]) for (const s of a) s.fill(0);
  }
  /**
   * @internal the share after a refresh by the sharing of zero δ(x) = r·x with R = r·G (refresh.ts):
   * p'(i) = p(i) + i·r, Y'_k = Y_k + k·R, the same public key, no OT correlations yet.
   */
  refreshed(r: Scalar, R: Uint8Array): KeyShare {
    const p = S.fromBytesReduce(this.secret);
    const ir = S.mul(S.fromSmall(this.partyId), r);
    const next = S.add(p, ir);
    S.wipe(p, ir);
    try {
      const Y = [1, 2, 3].map((k, index) => addPoints(this.verifyingShares[index]!, mulPoint(R, S.fromSmall(k))));
      if (S.isZero(next) || Y.some((y) => y === null)) throw new CheckFailed('refreshed share is zero or a verifying share the identity');
      const verifying = Y as [Uint8Array, Uint8Array, Uint8Array];
      if (!equalBytes(mulBase(next), verifying[this.partyId - 1]!)) throw new CheckFailed('refreshed share does not match its verifying share');
      return new KeyShare(this.partyId, S.toBytes(next), verifying, this.publicKey, null);
    } finally {
      S.wipe(next);
    }
  }

  /** Overwrites every secret byte array of this share. */
  wipe(): void {
    this.secret.fill(0);
    this.wipeOt();
    this.otState = null;
    this.otStatus = 'absent';
  }

  /** Serializes the share, with its OT correlations and their status. Secret: seal it at rest. */
  encode(): Uint8Array {
    const w = new Writer().u8(SHARE_MAGIC).u8(SHARE_VERSION).u8(this.partyId).bytes(this.secret);
    for (const Y of this.verifyingShares) w.bytes(Y);
    w.bytes(this.publicKey);
    const ot = this.otState;
    const status = { absent: 0, ready: 1, unusable: 2 }[this.otStatus];
    w.u8(ot ? status : 0);
    if (ot) {
      w.bytes(ot.setupId).bytes(ot.delta);
      for (const a of [ot.chosenSeeds, ot.seeds0, ot.seeds1]) for (const s of a) w.bytes(s);
    }
    return w.finish();
  }

  /** Strict decoding; checks x_i·G = X_i and X_1 + X_2 = public key. */
  static decode(bytes: Uint8Array): KeyShare {
    try {
      const r = new Reader(bytes);
      if (r.u8() !== SHARE_MAGIC || r.u8() !== SHARE_VERSION) throw new CheckFailed('magic');
      const id = r.u8();
      if (id !== 1 && id !== 2) throw new CheckFailed('party id');
      const secret = r.bytes(32);
      let x: Scalar;
      try {
        x = S.fromBytesStrict(secret);
      } catch {
        throw new CheckFailed('secret');
      }
      if (S.isZero(x)) throw new CheckFailed('secret');
      const Y1 = assertPeerPoint(r.bytes(33));
      const Y2 = assertPeerPoint(r.bytes(33));
      const Y3 = assertPeerPoint(r.bytes(33));
      const pk = assertPeerPoint(r.bytes(33));
      const X = mulBase(x);
      S.wipe(x);
      if (!equalBytes(X, id === 1 ? Y1 : Y2)) throw new CheckFailed('secret does not match its verifying share');
      // degree 1: Y_k = A + k·B, so 2·Y_1 − Y_2 = A = pk and 2·Y_2 − Y_1 = Y_3
      const two = S.fromSmall(2);
      const pk2 = addPoints(mulPoint(Y1, two), negPoint(Y2));
      const y3 = addPoints(mulPoint(Y2, two), negPoint(Y1));
      if (!pk2 || !equalBytes(pk2, pk) || !y3 || !equalBytes(y3, Y3)) throw new CheckFailed('verifying shares');
      const statusByte = r.u8();
      if (statusByte > 2) throw new CheckFailed('status');
      let ot: OtCorrelations | null = null;
      if (statusByte !== 0) {
        const setupId = r.bytes(32);
        const delta = r.bytes(32);
        const read = () => Array.from({ length: KAPPA }, () => r.bytes(32));
        ot = { setupId, delta, chosenSeeds: read(), seeds0: read(), seeds1: read() };
      }
      r.end();
      const status: OtStatus = statusByte === 0 ? 'absent' : statusByte === 1 ? 'ready' : 'unusable';
      return new KeyShare(id, secret, [Y1, Y2, Y3], pk, ot, status);
    } catch (e) {
      if (e instanceof CheckFailed) throw invalidInput(`key share: ${e.message}`);
      throw e;
    }
  }
}

export function newKeyShare(id: PartyId, share: Scalar, verifying: readonly [Uint8Array, Uint8Array, Uint8Array], pk: Uint8Array): KeyShare {
  return new KeyShare(id, S.toBytes(share), verifying, pk, null);
}
