/**
 * Two-party distributed key generation (2-of-2, additive shares): each party samples x_i, commits to
 * X_i = x_i·G with a fresh salt, then opens X_i with a Schnorr proof of knowledge of x_i bound to the
 * session id and both party ids. The public key is X_1 + X_2. The commitment round stops a party from
 * choosing its X_i after seeing the other's (no biasing of the key); the proof stops rogue keys.
 *
 * Rounds: hello (nonces → session id), commit, open. DKLs23 §3 (key generation, Functionality 3.1 /
 * Protocol 3.2 in spirit for n = t = 2); the commitment is SHA-256 with a 32-byte salt.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { addPoints, equalBytes, mulBase, randomScalar, taggedHash } from './curve.ts';
import { check, invalidInput } from './errors.ts';
import { newKeyShare, type KeyShare } from './keyshare.ts';
import { readProof, proveDlog, verifyDlog, writeProof } from './proofs.ts';
import { decodeHello, encodeHello, header, MSG, peerOf, readHeader, sessionId, Steps, type PartyId } from './session.ts';

const EMPTY = new Uint8Array(0);

function commitment(sid: Uint8Array, from: PartyId, X: Uint8Array, salt: Uint8Array): Uint8Array {
  return taggedHash('dkg/commit', sid, Uint8Array.of(from), X, salt);
}

export class DkgSession extends Steps {
  private sid: Uint8Array | null = null;
  private x: bigint;
  private readonly X: Uint8Array;
  private readonly salt = randomBytes(32);
  private peerCommitment: Uint8Array | null = null;

  /** `context`: caller's bytes bound into the session id (e.g. wallet id); the same on both sides. */
  constructor(
    readonly partyId: PartyId,
    private readonly context: Uint8Array = EMPTY,
  ) {
    super();
    if (partyId !== 1 && partyId !== 2) throw invalidInput('party id must be 1 or 2');
    this.x = randomScalar();
    this.X = mulBase(this.x);
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
      return header(MSG.DKG_COMMIT, this.partyId, this.sid).bytes(commitment(this.sid, this.partyId, this.X, this.salt)).finish();
    });
  }

  /** Round 2: takes the peer's commitment, returns the opening with the proof of knowledge. */
  open(peerCommit: Uint8Array): Uint8Array {
    return this.run(1, () => {
      const sid = this.sid!;
      const r = readHeader(MSG.DKG_COMMIT, this.partyId, sid, peerCommit);
      this.peerCommitment = r.bytes(32);
      r.end();
      const proof = proveDlog('dkg', sid, this.partyId, peerOf(this.partyId), this.x, this.X);
      return writeProof(header(MSG.DKG_OPEN, this.partyId, sid).bytes(this.X).bytes(this.salt), proof).finish();
    });
  }

  /** Checks the peer's opening and proof; returns this party's key share (no OT yet: run OT setup). */
  finish(peerOpen: Uint8Array): KeyShare {
    return this.run(2, () => {
      const sid = this.sid!;
      const peer = peerOf(this.partyId);
      const r = readHeader(MSG.DKG_OPEN, this.partyId, sid, peerOpen);
      const Xp = r.point();
      const saltP = r.bytes(32);
      const proof = readProof(r);
      r.end();
      check(equalBytes(commitment(sid, peer, Xp, saltP), this.peerCommitment!), 'commitment opening');
      verifyDlog('dkg', sid, peer, this.partyId, Xp, proof);
      const pk = addPoints(this.X, Xp);
      check(pk !== null, 'public key is the identity');
      const [X1, X2] = this.partyId === 1 ? [this.X, Xp] : [Xp, this.X];
      const share = newKeyShare(this.partyId, this.x, X1, X2, pk);
      this.x = 0n;
      this.close();
      return share;
    });
  }

  protected override wipe(): void {
    super.wipe();
    this.x = 0n;
  }
}
