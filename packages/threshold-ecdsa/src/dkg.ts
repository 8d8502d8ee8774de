/**
 * Distributed key generation by the two online participants 1 and 2, for a degree-1 Shamir sharing
 * over participants 1, 2 and the offline recovery participant 3 (any two of three determine the key;
 * signing runs between 1 and 2). Each online party i is a dealer of f_i(x) = a_i0 + a_i1·x:
 *
 * - hello: nonces → session id;
 * - commit: H(sid, i, C_i0, C_i1, salt_i) with C_ik = a_ik·G (no party can choose its polynomial after
 *   seeing the other's, so none can bias the key);
 * - open: C_i0, C_i1, salt_i, a Schnorr proof of knowledge of a_i0 bound to the session id and both
 *   party ids (no rogue keys), and the peer's share f_i(j). **This message carries a secret share**:
 *   send it only over the authenticated, encrypted channel between the two processes;
 * - finish: checks the opening, the proof, the points and f_j(i)·G = C_j0 + i·C_j1 (Feldman); the
 *   share is p(i) = f_1(i) + f_2(i), pk = C_10 + C_20, Y_k = pk + k·(C_11 + C_21).
 *
 * Each dealer also returns its contribution f_i(3) for participant 3, with its commitments, to be sealed
 * to the operator's offline recovery key by the process that made it: no online process ever holds
 * p(3) = f_1(3) + f_2(3). DKLs23 §3 (key generation) specialised to these three participants; the
 * Feldman check and proof of knowledge as in Komlo–Goldberg, FROST, Figure 1.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { addPoints, concat, equalBytes, mulBase, mulPoint, taggedHash } from './group.ts';
import * as S from './scalar.ts';
import type { Scalar } from './scalar.ts';
import { check, invalidInput } from './errors.ts';
import { newKeyShare, type KeyShare } from './keyshare.ts';
import { readProof, proveDlog, verifyDlog, writeProof } from './proofs.ts';
import { decodeHello, encodeHello, header, MSG, peerOf, readHeader, sessionId, Steps, type PartyId } from './session.ts';

const EMPTY = new Uint8Array(0);

/** What dealer `sender` contributes to the offline participant 3's share. `share` is secret. */
export interface OfflineContribution {
  readonly sender: PartyId;
  /** f_sender(3), 32 bytes: seal it to the recovery key at once. */
  readonly share: Uint8Array;
  /** C_sender,0 ‖ C_sender,1 (66 bytes, public): checks the share at recovery. */
  readonly commitments: Uint8Array;
}

export interface DkgResult {
  readonly share: KeyShare;
  readonly offline: OfflineContribution;
}

function commitment(sid: Uint8Array, from: PartyId, C0: Uint8Array, C1: Uint8Array, salt: Uint8Array): Uint8Array {
  return taggedHash('dkg/commit', sid, Uint8Array.of(from), C0, C1, salt);
}

export class DkgSession extends Steps {
  private sid: Uint8Array = new Uint8Array(32);
  private readonly a0: Scalar;
  private readonly a1: Scalar;
  private readonly C0: Uint8Array;
  private readonly C1: Uint8Array;
  private readonly salt = randomBytes(32);
  private peerCommitment: Uint8Array = new Uint8Array(0);

  /** `context`: caller's bytes bound into the session id (e.g. wallet id); the same on both sides. */
  constructor(
    readonly partyId: PartyId,
    private readonly context: Uint8Array = EMPTY,
  ) {
    super();
    if (partyId !== 1 && partyId !== 2) throw invalidInput('party id must be 1 or 2');
    this.a0 = S.random();
    this.a1 = S.random();
    this.C0 = mulBase(this.a0);
    this.C1 = mulBase(this.a1);
  }

  /** f_i(x) = a_i0 + a_i1·x at a participant's (public) index x. */
  private f(x: number): Scalar {
    const t = S.mul(this.a1, S.fromSmall(x));
    const r = S.add(this.a0, t);
    S.wipe(t);
    return r;
  }

  /** Round 0: send this to the peer. */
  hello(): Uint8Array {
    return encodeHello(MSG.DKG_HELLO, this.partyId, this.ownNonce);
  }

  /** Round 1: takes the peer's hello, returns the commitment message. */
  commit(peerHello: Uint8Array): Uint8Array {
    return this.run(0, () => {
      const peerNonce = decodeHello(MSG.DKG_HELLO, this.partyId, peerHello);
      check(!equalBytes(peerNonce, this.ownNonce), 'reflected nonce');
      const [n1, n2] = this.partyId === 1 ? [this.ownNonce, peerNonce] : [peerNonce, this.ownNonce];
      this.sid = sessionId('dkg', this.context, n1, n2);
      return header(MSG.DKG_COMMIT, this.partyId, this.sid).bytes(commitment(this.sid, this.partyId, this.C0, this.C1, this.salt)).finish();
    });
  }

  /** Round 2: takes the peer's commitment; returns the opening, the proof and the peer's (secret) share. */
  open(peerCommit: Uint8Array): Uint8Array {
    return this.run(1, () => {
      const r = readHeader(MSG.DKG_COMMIT, this.partyId, this.sid, peerCommit);
      this.peerCommitment = r.bytes(32);
      r.end();
      const peer = peerOf(this.partyId);
      const proof = proveDlog('dkg', this.sid, this.partyId, peer, this.a0, this.C0);
      const w = writeProof(header(MSG.DKG_OPEN, this.partyId, this.sid).bytes(this.C0).bytes(this.C1).bytes(this.salt), proof);
      const share = this.f(peer);
      const out = w.scalar(share).finish();
      S.wipe(share);
      return out;
    });
  }

  /** Checks the peer's opening, proof and share; returns the key share (run OT setup next) and the offline contribution. */
  finish(peerOpen: Uint8Array): DkgResult {
    return this.run(2, () => {
      const me = this.partyId;
      const peer = peerOf(me);
      const r = readHeader(MSG.DKG_OPEN, me, this.sid, peerOpen);
      const D0 = r.point();
      const D1 = r.point();
      const saltP = r.bytes(32);
      const proof = readProof(r);
      const fromPeer = r.scalar();
      r.end();
      check(equalBytes(commitment(this.sid, peer, D0, D1, saltP), this.peerCommitment), 'commitment opening');
      verifyDlog('dkg', this.sid, peer, me, D0, proof);
      const expected = addPoints(D0, mulPoint(D1, S.fromSmall(me)));
      check(!S.isZero(fromPeer) && expected !== null && equalBytes(mulBase(fromPeer), expected), 'secret share does not match its commitments');
      const pk = addPoints(this.C0, D0);
      check(pk !== null, 'public key is the identity');
      const B = addPoints(this.C1, D1);
      check(B !== null, 'identity');
      const Y = [1, 2, 3].map((k) => addPoints(pk, mulPoint(B, S.fromSmall(k))));
      check(Y.every((y) => y !== null), 'verifying share is the identity');
      const own = this.f(me);
      const mine = S.add(own, fromPeer);
      S.wipe(own, fromPeer);
      check(!S.isZero(mine), 'share is zero');
      const share = newKeyShare(me, mine, Y as [Uint8Array, Uint8Array, Uint8Array], pk);
      const f3 = this.f(3);
      const offline = { sender: me, share: S.toBytes(f3), commitments: concat(this.C0, this.C1) };
      S.wipe(mine, f3);
      this.close();
      return { share, offline };
    });
  }

  protected override wipe(): void {
    super.wipe();
    S.wipe(this.a0, this.a1);
  }
}
