/**
 * Proactive refresh of the degree-1 sharing p(x) = sk + a_1·x between the online participants 1 and
 * 2, keeping the public key: both add the same random sharing of zero, δ(x) = r·x with r = r_1 + r_2
 * drawn jointly, so p'(x) = p(x) + δ(x) has the same p'(0) = sk (Herzberg, Jarecki, Krawczyk, Yung,
 * "Proactive Secret Sharing", CRYPTO 1995, for threshold t = 2). Messages (each party sends each):
 *
 * - hello: nonces → session id, bound to the caller's context (wallet and epoch) and to the sharing
 *   being refreshed (pk, Y₁, Y₂, Y₃), so both parties must hold shares of the same sharing;
 * - commit: H(sid, i, R_i, salt_i) with R_i = r_i·G (no party picks r_i after seeing the other's, so
 *   none can cancel the refresh);
 * - open: R_i, salt_i and **the secret r_i** (the peer needs δ_i(j) = j·r_i, which with degree 1 is r_i
 *   itself): send it only over the authenticated, encrypted channel;
 * - finish: checks the opening, r_j·G = R_j, r_j ≠ 0 and r ≠ 0; p'(i) = p(i) + i·r,
 *   Y'_k = Y_k + k·(R_1 + R_2), checked p'(i)·G = Y'_i.
 *
 * The refreshed share has no OT correlations (run OT setup next: `refreshParty` does). Each party's
 * `RefreshContribution` {r_i, R_i} is what participant 3 needs (p'(3) = p(3) + 3·(r_1 + r_2)): the
 * caller seals it to the recovery key at once. Old and new shares do not combine to the key.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { addPoints, concat, decodeScalar, equalBytes, mulBase, taggedHash } from './group.ts';
import * as S from './scalar.ts';
import type { Scalar } from './scalar.ts';
import { check, invalidInput } from './errors.ts';
import type { KeyShare } from './keyshare.ts';
import { decodeHello, encodeHello, header, MSG, peerOf, readHeader, sessionId, Steps, type PartyId } from './session.ts';

/** What refreshing party `sender` adds to participant 3's share (3·r_sender). `delta` is secret. */
export interface RefreshContribution {
  readonly sender: PartyId;
  /** r_sender, 32 bytes: participant 3's share grows by 3·r_sender. Seal it to the recovery key at once. */
  readonly delta: Uint8Array;
  /** R_sender = r_sender·G (33 bytes, public): checks `delta` at recovery. */
  readonly commitment: Uint8Array;
}

export interface RefreshResult {
  /** The refreshed share, OT status `absent` until an OT setup. */
  readonly share: KeyShare;
  readonly offline: RefreshContribution;
}

function commitment(sid: Uint8Array, from: PartyId, R: Uint8Array, salt: Uint8Array): Uint8Array {
  return taggedHash('refresh/commit', sid, Uint8Array.of(from), R, salt);
}

export class RefreshSession extends Steps {
  private sid: Uint8Array = new Uint8Array(32);
  private readonly r: Scalar;
  private readonly R: Uint8Array;
  private readonly salt = randomBytes(32);
  private peerCommitment: Uint8Array = new Uint8Array(0);

  /** `context`: the caller's bytes bound into the session id (e.g. wallet id and new epoch); the same on both sides. */
  constructor(
    private readonly share: KeyShare,
    private readonly context: Uint8Array,
  ) {
    super();
    this.r = S.random();
    this.R = mulBase(this.r);
  }

  private get me(): PartyId {
    return this.share.partyId;
  }

  hello(): Uint8Array {
    return encodeHello(MSG.REFRESH_HELLO, this.me, this.ownNonce);
  }

  /** Takes the peer's hello; returns the commitment to R_i. */
  commit(peerHello: Uint8Array): Uint8Array {
    return this.run(0, () => {
      const peerNonce = decodeHello(MSG.REFRESH_HELLO, this.me, peerHello);
      check(!equalBytes(peerNonce, this.ownNonce), 'reflected nonce');
      const [n1, n2] = this.me === 1 ? [this.ownNonce, peerNonce] : [peerNonce, this.ownNonce];
      const sharing = concat(this.context, this.share.publicKey, ...this.share.verifyingShares);
      this.sid = sessionId('refresh', sharing, n1, n2);
      return header(MSG.REFRESH_COMMIT, this.me, this.sid).bytes(commitment(this.sid, this.me, this.R, this.salt)).finish();
    });
  }

  /** Takes the peer's commitment; returns the opening with the (secret) r_i. */
  open(peerCommit: Uint8Array): Uint8Array {
    return this.run(1, () => {
      const r = readHeader(MSG.REFRESH_COMMIT, this.me, this.sid, peerCommit);
      this.peerCommitment = r.bytes(32);
      r.end();
      return header(MSG.REFRESH_OPEN, this.me, this.sid).bytes(this.R).bytes(this.salt).scalar(this.r).finish();
    });
  }

  /** Checks the peer's opening; returns the refreshed share and this party's contribution for participant 3. */
  finish(peerOpen: Uint8Array): RefreshResult {
    return this.run(2, () => {
      const peer = peerOf(this.me);
      const reader = readHeader(MSG.REFRESH_OPEN, this.me, this.sid, peerOpen);
      const Rp = reader.point();
      const saltP = reader.bytes(32);
      const rp = reader.scalar();
      reader.end();
      check(equalBytes(commitment(this.sid, peer, Rp, saltP), this.peerCommitment), 'commitment opening');
      check(!S.isZero(rp) && equalBytes(mulBase(rp), Rp), 'delta does not match its commitment');
      const sum = S.add(this.r, rp);
      S.wipe(rp);
      check(!S.isZero(sum), 'the refresh cancels out');
      const R = addPoints(this.R, Rp);
      check(R !== null, 'identity');
      const share = this.share.refreshed(sum, R);
      S.wipe(sum);
      const offline: RefreshContribution = { sender: this.me, delta: S.toBytes(this.r), commitment: this.R };
      this.close();
      return { share, offline };
    });
  }

  protected override wipe(): void {
    super.wipe();
    S.wipe(this.r);
  }
}

/** Participant 3's share after refreshes: p(3) + 3·Σ r_i, each r_i checked against R_i and the result against `verifyingShare3` (Y'_3). */
export function refreshOfflineShare(share3: Uint8Array, contributions: readonly RefreshContribution[], verifyingShare3: Uint8Array): Uint8Array {
  try {
    let sum = S.zero();
    for (const c of contributions) {
      const r = decodeScalar(c.delta);
      check(!S.isZero(r) && equalBytes(mulBase(r), c.commitment), `contribution of party ${c.sender} does not match its commitment`);
      const next = S.add(sum, r);
      S.wipe(sum, r);
      sum = next;
    }
    const p3 = decodeScalar(share3);
    const t = S.mul(S.fromSmall(3), sum);
    const next = S.add(p3, t);
    S.wipe(sum, p3, t);
    check(!S.isZero(next) && equalBytes(mulBase(next), verifyingShare3), 'the refreshed share does not match Y_3');
    const out = S.toBytes(next);
    S.wipe(next);
    return out;
  } catch (e) {
    throw invalidInput(`offline share: ${e instanceof Error ? e.message : String(e)}`);
  }
}
