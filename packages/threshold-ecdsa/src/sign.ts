/**
 * Three-round signing (DKLs23 Protocol 3.6, π_ECDSA, for two parties), with the message entering only
 * in round 3. Party i samples the instance key r_i and the inversion mask φ_i; with R = R_1 + R_2 and
 * φ = φ_1 + φ_2 the parties obtain additive shares of u = r·φ and v = sk·φ by two random VOLEs per
 * direction (Alice's input (r_i, sk_i), Bob's random χ_j, corrected to φ_j by ψ_j = φ_j − χ_j), then
 * s = (H(m)·φ + r_x·v) / u = (H(m) + r_x·sk) / r.
 *
 * - hello: nonces → session id (bound to the public key and the OT setup these correlations come from).
 * - round 1: commitment to R_i; Bob's OT-extension message (his random χ_i).
 * - round 2: opening of R_i; Alice's multiplication message for inputs (r_i, sk_i); Γ^u = c^u·G,
 *   Γ^v = c^v·G; ψ_i = φ_i − χ_i.
 * - after round 2 (`presign`): the commitment, the multiplication check and the consistency checks
 *   χ_i·R_j − Γ^u_j = d^u·G and χ_i·pk_j − Γ^v_j = d^v·G → a single-use {@link Presignature}.
 * - round 3 (`prepareFinalMessage(digest)` then `finish`): w_i = H(m)·φ_i + r_x·v_i and u_i; the
 *   signature is (w_1 + w_2)/(u_1 + u_2), verified before it is released, low-S, with the recovery id
 *   checked against the known public key.
 * @module
 */
import { randomBytes } from 'node:crypto';
import { Reader, Writer } from './codec.ts';
import { addPoints, equalBytes, mulBase, mulPoint, N_BYTES, recoverEcdsa, taggedHash, concat, verifyEcdsa } from './group.ts';
import * as S from './scalar.ts';
import type { Scalar } from './scalar.ts';
import { abortError, check, invalidInput, ThresholdEcdsaError } from './errors.ts';
import type { KeyShare } from './keyshare.ts';
import { mulReceiverFinish, mulReceiverStart, mulSenderRespond, type MulReceiverState } from './mul.ts';
import { OTE_MESSAGE_BYTES } from './ote.ts';
import { decodeHello, encodeHello, header, MSG, peerOf, readHeader, sessionId, Steps, type PartyId } from './session.ts';

export interface EcdsaSignature {
  readonly r: Uint8Array; // 32 bytes
  readonly s: Uint8Array; // 32 bytes, low-S
  /** Recovery id (0..3), checked by recovering the known public key. */
  readonly recovery: number;
  /** r ‖ s */
  readonly compact: Uint8Array;
}

export const dirSid = (sid: Uint8Array, bob: PartyId): Uint8Array => taggedHash('sign/direction', sid, Uint8Array.of(bob));
const commitR = (sid: Uint8Array, from: PartyId, R: Uint8Array, salt: Uint8Array): Uint8Array => taggedHash('sign/commit', sid, Uint8Array.of(from), R, salt);

export class SignSession extends Steps {
  private sid: Uint8Array = new Uint8Array(32);
  private r: Scalar = S.zero();
  private phi: Scalar = S.zero();
  private R: Uint8Array = new Uint8Array(0);
  private readonly salt = randomBytes(32);
  private bob: MulReceiverState | null = null;
  private peerCommit: Uint8Array = new Uint8Array(0);
  private cu: Scalar = S.zero();
  private cv: Scalar = S.zero();

  /** Throws `OT_UNUSABLE` unless the share's OT correlations are ready. */
  constructor(private readonly share: KeyShare) {
    super(() => share.markOtUnusable());
    share.readyOt();
  }

  private get me(): PartyId {
    return this.share.partyId;
  }

  hello(): Uint8Array {
    return encodeHello(MSG.SIGN_HELLO, this.me, this.ownNonce);
  }

  /** Round 1 (message independent). */
  round1(peerHello: Uint8Array): Uint8Array {
    return this.run(0, () => {
      const ot = this.share.readyOt();
      const n = decodeHello(MSG.SIGN_HELLO, this.me, peerHello);
      check(!equalBytes(n, this.ownNonce), 'reflected nonce');
      const [n1, n2] = this.me === 1 ? [this.ownNonce, n] : [n, this.ownNonce];
      this.sid = sessionId('sign', concat(this.share.publicKey, ot.setupId), n1, n2);
      this.r = S.random();
      this.phi = S.random();
      this.R = mulBase(this.r);
      this.bob = mulReceiverStart(ot.seeds0, ot.seeds1, dirSid(this.sid, this.me));
      return header(MSG.SIGN_1, this.me, this.sid).bytes(commitR(this.sid, this.me, this.R, this.salt)).bytes(this.bob.message).finish();
    });
  }

  /** Round 2 (message independent). */
  round2(peerMsg1: Uint8Array): Uint8Array {
    return this.run(1, () => {
      const ot = this.share.readyOt();
      const rd = readHeader(MSG.SIGN_1, this.me, this.sid, peerMsg1);
      this.peerCommit = rd.bytes(32);
      const bobMessage = rd.bytes(OTE_MESSAGE_BYTES);
      rd.end();
      const body = new Writer();
      const x = this.share.secretScalar();
      const c = mulSenderRespond(ot.delta, ot.chosenSeeds, dirSid(this.sid, peerOf(this.me)), bobMessage, new Reader(bobMessage), [this.r, x], body);
      S.wipe(x);
      this.cu = c[0]!;
      this.cv = c[1]!;
      const w = header(MSG.SIGN_2, this.me, this.sid).bytes(this.R).bytes(this.salt);
      const psi = S.sub(this.phi, this.bob!.b);
      w.bytes(mulBase(this.cu)).bytes(mulBase(this.cv)).scalar(psi);
      S.wipe(psi);
      return w.bytes(body.finish()).finish();
    });
  }

  /** Checks the peer's round 2; returns the presignature (the state after the message-independent rounds). */
  presign(peerMsg2: Uint8Array): Presignature {
    return this.run(2, () => {
      const peer = peerOf(this.me);
      const rd = readHeader(MSG.SIGN_2, this.me, this.sid, peerMsg2);
      const Rp = rd.point();
      const saltP = rd.bytes(32);
      const gammaU = rd.point();
      const gammaV = rd.point();
      const psi = rd.scalar();
      check(equalBytes(commitR(this.sid, peer, Rp, saltP), this.peerCommit), 'commitment opening');
      const bob = this.bob!;
      const d = mulReceiverFinish(bob, dirSid(this.sid, this.me), rd);
      rd.end();
      const lhsU = addPoints(gammaU, mulBase(d[0]!));
      check(lhsU !== null && equalBytes(mulPoint(Rp, bob.b), lhsU), 'consistency check (R)');
      const lhsV = addPoints(gammaV, mulBase(d[1]!));
      check(lhsV !== null && equalBytes(mulPoint(this.share.publicShares[peer], bob.b), lhsV), 'consistency check (pk)');
      const R = addPoints(this.R, Rp);
      check(R !== null, 'R is the identity');
      const rx = S.fromBytesReduce(R, 1);
      check(!S.isZero(rx), 'r = 0');
      const phiFull = S.add(this.phi, psi);
      const x = this.share.secretScalar();
      const rp = S.mul(this.r, phiFull);
      const xp = S.mul(x, phiFull);
      const u1 = S.add(rp, this.cu);
      const v1 = S.add(xp, this.cv);
      const u = S.add(u1, d[0]!);
      const v = S.add(v1, d[1]!);
      const pre = new Presignature(this.share, Uint8Array.from(this.sid), R, u, v, Array.from(this.phi));
      S.wipe(psi, phiFull, x, rp, xp, u1, v1, ...d);
      this.close();
      return pre;
    });
  }

  protected override wipe(): void {
    super.wipe();
    S.wipe(this.r, this.phi, this.cu, this.cv);
    if (this.bob) S.wipe(this.bob.b);
    this.salt.fill(0);
    this.bob?.ote.rows.fill(0);
    this.bob?.ote.beta.fill(0);
  }
}

/** What a party keeps between sending its final message and receiving the peer's. */
export interface PendingSignature {
  readonly presignatureId: string;
  /** The message to send, after the caller has durably recorded `presignatureId` as used. */
  readonly message: Uint8Array;
  /** Checks the peer's final message; returns the verified signature (aborts otherwise). */
  finish(peerFinal: Uint8Array): EcdsaSignature;
}

/**
 * The state after rounds 1–2: usable for exactly one digest. `prepareFinalMessage` consumes it
 * (a second call throws `PRESIGNATURE_CONSUMED`) and returns the final message with the presignature
 * id, so that the caller can mark the id used in its own durable store before the message leaves.
 */
export class Presignature {
  private consumed = false;
  /** @internal */
  constructor(
    private readonly share: KeyShare,
    private readonly sid: Uint8Array,
    readonly R: Uint8Array,
    private u: Scalar,
    private v: Scalar,
    private phi: Scalar,
  ) {}

  /** Hex of the signing session id: unique per presignature, the same on both parties. */
  get id(): string {
    return Buffer.from(this.sid).toString('hex');
  }
  get used(): boolean {
    return this.consumed;
  }

  prepareFinalMessage(digest: Uint8Array): PendingSignature {
    if (!(digest instanceof Uint8Array) || digest.length !== 32) throw invalidInput('digest must be 32 bytes');
    if (this.consumed) throw new ThresholdEcdsaError('PRESIGNATURE_CONSUMED', 'threshold-ecdsa: presignature already used');
    this.consumed = true;
    const me = this.share.partyId;
    const e = S.fromBytesReduce(digest);
    const rx = S.fromBytesReduce(this.R, 1);
    const uMine = this.u;
    const ep = S.mul(e, this.phi);
    const rv = S.mul(rx, this.v);
    const wMine = S.add(ep, rv);
    S.wipe(ep, rv, this.v, this.phi);
    const sid = this.sid;
    const share = this.share;
    const R = this.R;
    const message = header(MSG.SIGN_3, me, sid).scalar(uMine).scalar(wMine).finish();
    let done = false;
    return {
      presignatureId: this.id,
      message,
      finish(peerFinal: Uint8Array): EcdsaSignature {
        if (done) throw new ThresholdEcdsaError('SESSION_CLOSED', 'threshold-ecdsa: signature already finished or aborted');
        done = true;
        try {
          const rd = readHeader(MSG.SIGN_3, me, sid, peerFinal);
          const uP = rd.scalar();
          const wP = rd.scalar();
          rd.end();
          // u, w and s are public once both final messages are out: u is inverted in variable time
          const u = S.add(uMine, uP);
          check(!S.isZero(u), 'u = 0');
          const s0 = S.mul(S.add(wMine, wP), S.invertPublic(u));
          check(!S.isZero(s0), 's = 0');
          const high = S.isHighMask(s0); // low-S: s ← n − s, and the recovery id's parity flips
          const s = S.select(high, S.neg(s0), s0);
          const recovery = ((R[0] === 3 ? 1 : 0) ^ (high & 1)) | (Buffer.compare(R.subarray(1), N_BYTES) >= 0 ? 2 : 0);
          const compact = concat(S.toBytes(rx), S.toBytes(s));
          check(verifyEcdsa(digest, share.publicKey, compact), 'signature does not verify');
          const recovered = recoverEcdsa(digest, compact, recovery as 0 | 1 | 2 | 3);
          check(recovered !== null && equalBytes(recovered, share.publicKey), 'recovery id');
          return { r: compact.slice(0, 32), s: compact.slice(32), recovery, compact };
        } catch (err) {
          share.markOtUnusable();
          throw abortError(err);
        } finally {
          S.wipe(uMine, wMine);
        }
      },
    };
  }

  /** Throws the presignature away unused. */
  discard(): void {
    this.consumed = true;
    S.wipe(this.u, this.v, this.phi);
  }

  /**
   * Moves the presignature out as bytes (e.g. from the worker that made it to the process that signs):
   * this object is consumed, so that exactly one live copy exists. Secret (φ_i, v_i): keep it in memory
   * or seal it. A decoded copy is as single-use as the original only if the caller records
   * `presignatureId` durably before the final message leaves, and refuses an id it has recorded.
   */
  export(): Uint8Array {
    if (this.consumed) throw new ThresholdEcdsaError('PRESIGNATURE_CONSUMED', 'threshold-ecdsa: presignature already used');
    this.consumed = true;
    const w = new Writer().u8(PRESIG_MAGIC).u8(1).u8(this.share.partyId).bytes(this.share.publicKey).bytes(this.sid).bytes(this.R);
    const out = w.scalar(this.u).scalar(this.v).scalar(this.phi).finish();
    S.wipe(this.u, this.v, this.phi);
    return out;
  }

  /** Strict decoding of {@link Presignature.export}'s bytes, for this key share. */
  static import(bytes: Uint8Array, share: KeyShare): Presignature {
    try {
      const r = new Reader(bytes);
      check(r.u8() === PRESIG_MAGIC && r.u8() === 1, 'magic');
      check(r.u8() === share.partyId, 'party id');
      check(equalBytes(r.bytes(33), share.publicKey), 'public key');
      const sid = r.bytes(32);
      const R = r.point();
      const u = r.scalar();
      const v = r.scalar();
      const phi = r.scalar();
      r.end();
      return new Presignature(share, sid, R, u, v, phi);
    } catch (e) {
      throw invalidInput(`presignature: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
}

const PRESIG_MAGIC = 0x50; // 'P'

