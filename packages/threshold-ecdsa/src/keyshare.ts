/**
 * The long-lived key share of one party: its additive share x_i of the key, both public shares
 * X_1, X_2 (X_1 + X_2 = the public key), and the OT correlations of the last OT setup in both
 * directions, with their status. The status is state the caller must persist: after any aborted
 * signing or OT session it is `unusable`, and signing refuses until a fresh OT setup.
 * @module
 */
import { Reader, Writer } from './codec.ts';
import { assertPeerPoint, bigToBytes, bytesToBig, mulBase, N, addPoints, equalBytes } from './curve.ts';
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

export class KeyShare {
  private otStatus: OtStatus;
  constructor(
    readonly partyId: PartyId,
    private readonly secret: Uint8Array, // x_i, 32 bytes
    readonly publicShares: Readonly<Record<PartyId, Uint8Array>>,
    readonly publicKey: Uint8Array,
    private otState: OtCorrelations | null,
    status?: OtStatus,
  ) {
    this.otStatus = status ?? (otState ? 'ready' : 'absent');
  }

  get peerId(): PartyId {
    return this.partyId === 1 ? 2 : 1;
  }
  /** `ready` when signing may run; `unusable` after any abort (persist it!); `absent` before OT setup. */
  get otStatusValue(): OtStatus {
    return this.otStatus;
  }
  /** Marks the OT correlations unusable (done by every abort of a signing or OT session). */
  markOtUnusable(): void {
    if (this.otState) this.otStatus = 'unusable';
  }
  /** @internal */
  secretScalar(): bigint {
    return bytesToBig(this.secret);
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
    w.bytes(this.publicShares[1]).bytes(this.publicShares[2]).bytes(this.publicKey);
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
      const x = bytesToBig(secret);
      if (x === 0n || x >= N) throw new CheckFailed('secret');
      const X1 = assertPeerPoint(r.bytes(33));
      const X2 = assertPeerPoint(r.bytes(33));
      const pk = assertPeerPoint(r.bytes(33));
      const sum = addPoints(X1, X2);
      if (!sum || !equalBytes(sum, pk) || !equalBytes(mulBase(x), id === 1 ? X1 : X2)) throw new CheckFailed('public shares');
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
      return new KeyShare(id, secret, { 1: X1, 2: X2 }, pk, ot, status);
    } catch (e) {
      if (e instanceof CheckFailed) throw invalidInput(`key share: ${e.message}`);
      throw e;
    }
  }
}

export function newKeyShare(id: PartyId, x: bigint, X1: Uint8Array, X2: Uint8Array, pk: Uint8Array): KeyShare {
  return new KeyShare(id, bigToBytes(x), { 1: X1, 2: X2 }, pk, null);
}
