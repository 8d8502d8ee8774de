/**
 * OT setup: κ = 256 base OTs in each direction by "Verified Simplest OT" (Chou–Orlandi's Simplest OT
 * with the verification phase of Doerner–Kondi–Lee–shelat, IEEE S&P 2018, §VI / Protocol 7; the base
 * OT DKLs19 and DKLs23 §5 use), with the sender's proof of knowledge of b bound to the session id.
 *
 * Both directions run at once: in each direction the later multiplication's Bob is the base-OT sender
 * (he gets both seeds k_i^0, k_i^1) and Alice the receiver, with her OT-extension correlation Δ as
 * choice bits (she gets k_i^{Δ_i}).
 *
 * Messages (each party sends each): hello (nonce), 1: B + PoK(b), 2: A_i = a_i·G + Δ_i·B, 3: challenges
 * ξ_i = H(H(ρ_i^0)) ⊕ H(H(ρ_i^1)), 4: responses ρ'_i = H(H(ρ_i^Δ)) ⊕ Δ_i·ξ_i, 5: the sender's openings
 * H(ρ_i^0), H(ρ_i^1). Any failure aborts and leaves the key share's OT status `unusable` (or `absent`).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { addPoints, equalBytes, mulBase, mulPoint, negPoint, taggedHash, u32be } from './group.ts';
import * as S from './scalar.ts';
import type { Scalar } from './scalar.ts';
import { check } from './errors.ts';
import { KAPPA } from './ote.ts';
import type { KeyShare } from './keyshare.ts';
import { readProof, proveDlog, verifyDlog, writeProof } from './proofs.ts';
import { decodeHello, encodeHello, header, MSG, peerOf, readHeader, sessionId, Steps } from './session.ts';

const h1 = (x: Uint8Array): Uint8Array => taggedHash('ot/h', x);
const bit = (bytes: Uint8Array, i: number): number => (bytes[i >> 3]! >> (i & 7)) & 1;

function select(a: Uint8Array, b: Uint8Array, choice: number): Uint8Array {
  const mask = -choice & 0xff;
  const out = new Uint8Array(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]! ^ ((a[i]! ^ b[i]!) & mask);
  return out;
}

export class OtSetupSession extends Steps {
  private sid: Uint8Array = new Uint8Array(32);
  // Bob role (this party's base-OT sender)
  private b: Scalar = S.zero();
  private B: Uint8Array = new Uint8Array(0);
  private rho0: Uint8Array[] = [];
  private rho1: Uint8Array[] = [];
  // Alice role (this party's base-OT receiver)
  private readonly delta = randomBytes(32);
  private rhoD: Uint8Array[] = [];
  private xi: Uint8Array[] = [];

  constructor(private readonly share: KeyShare) {
    super(() => share.markOtUnusable());
  }

  private get me() {
    return this.share.partyId;
  }

  hello(): Uint8Array {
    return encodeHello(MSG.OT_HELLO, this.me, this.ownNonce);
  }

  /** Takes the peer's hello; returns message 1 (B, proof of knowledge of b). */
  round1(peerHello: Uint8Array): Uint8Array {
    return this.run(0, () => {
      const n = decodeHello(MSG.OT_HELLO, this.me, peerHello);
      check(!equalBytes(n, this.ownNonce), 'reflected nonce');
      const [n1, n2] = this.me === 1 ? [this.ownNonce, n] : [n, this.ownNonce];
      this.sid = sessionId('ot-setup', this.share.publicKey, n1, n2);
      this.b = S.random();
      this.B = mulBase(this.b);
      const proof = proveDlog('ot-base', this.sid, this.me, peerOf(this.me), this.b, this.B);
      return writeProof(header(MSG.OT_1, this.me, this.sid).bytes(this.B), proof).finish();
    });
  }

  /** Takes message 1; returns message 2 (A_i) for the peer's base OTs, choice bits Δ. */
  round2(peerMsg: Uint8Array): Uint8Array {
    return this.run(1, () => {
      const r = readHeader(MSG.OT_1, this.me, this.sid, peerMsg);
      const B = r.point();
      const proof = readProof(r);
      r.end();
      verifyDlog('ot-base', this.sid, peerOf(this.me), this.me, B, proof);
      const w = header(MSG.OT_2, this.me, this.sid);
      for (let i = 0; i < KAPPA; i++) {
        const a = S.random();
        const aG = mulBase(a);
        const aGB = addPoints(aG, B);
        check(aGB !== null, 'identity');
        w.bytes(select(aG, aGB, bit(this.delta, i)));
        this.rhoD.push(this.rho(peerOf(this.me), i, mulPoint(B, a)));
        S.wipe(a);
      }
      return w.finish();
    });
  }

  private rho(sender: number, i: number, P: Uint8Array): Uint8Array {
    return taggedHash('ot/rho', this.sid, Uint8Array.of(sender), u32be(i), P);
  }

  /** Takes message 2; returns message 3 (challenges ξ_i). */
  round3(peerMsg: Uint8Array): Uint8Array {
    return this.run(2, () => {
      const r = readHeader(MSG.OT_2, this.me, this.sid, peerMsg);
      const negB = negPoint(this.B);
      const w = header(MSG.OT_3, this.me, this.sid);
      for (let i = 0; i < KAPPA; i++) {
        const A = r.point();
        const AmB = addPoints(A, negB);
        check(AmB !== null, 'identity');
        const r0 = this.rho(this.me, i, mulPoint(A, this.b));
        const r1 = this.rho(this.me, i, mulPoint(AmB, this.b));
        this.rho0.push(r0);
        this.rho1.push(r1);
        const x0 = h1(h1(r0));
        const x1 = h1(h1(r1));
        for (let k = 0; k < 32; k++) x0[k]! ^= x1[k]!;
        w.bytes(x0);
      }
      r.end();
      S.wipe(this.b);
      return w.finish();
    });
  }

  /** Takes message 3; returns message 4 (responses ρ'_i). */
  round4(peerMsg: Uint8Array): Uint8Array {
    return this.run(3, () => {
      const r = readHeader(MSG.OT_3, this.me, this.sid, peerMsg);
      const w = header(MSG.OT_4, this.me, this.sid);
      for (let i = 0; i < KAPPA; i++) {
        const xi = r.bytes(32);
        this.xi.push(xi);
        const resp = h1(h1(this.rhoD[i]!));
        const mask = -bit(this.delta, i) & 0xff;
        for (let k = 0; k < 32; k++) resp[k]! ^= xi[k]! & mask;
        w.bytes(resp);
      }
      r.end();
      return w.finish();
    });
  }

  /** Takes message 4, checks every response; returns message 5 (openings H(ρ_i^0), H(ρ_i^1)). */
  round5(peerMsg: Uint8Array): Uint8Array {
    return this.run(4, () => {
      const r = readHeader(MSG.OT_4, this.me, this.sid, peerMsg);
      const w = header(MSG.OT_5, this.me, this.sid);
      let ok = true;
      for (let i = 0; i < KAPPA; i++) {
        const resp = r.bytes(32);
        const g0 = h1(this.rho0[i]!);
        ok = equalBytes(resp, h1(g0)) && ok;
        w.bytes(g0).bytes(h1(this.rho1[i]!));
      }
      r.end();
      check(ok, 'base OT verification (sender)');
      return w.finish();
    });
  }

  /** Takes message 5, checks the openings; installs the fresh correlations in the key share. */
  finish(peerMsg: Uint8Array): void {
    this.run(5, () => {
      const r = readHeader(MSG.OT_5, this.me, this.sid, peerMsg);
      let ok = true;
      for (let i = 0; i < KAPPA; i++) {
        const g0 = r.bytes(32);
        const g1 = r.bytes(32);
        ok = equalBytes(select(g0, g1, bit(this.delta, i)), h1(this.rhoD[i]!)) && ok;
        const x = h1(g0);
        const y = h1(g1);
        for (let k = 0; k < 32; k++) x[k]! ^= y[k]!;
        ok = equalBytes(x, this.xi[i]!) && ok;
      }
      r.end();
      check(ok, 'base OT verification (receiver)');
      this.share.installOt({
        setupId: Uint8Array.from(this.sid),
        delta: Uint8Array.from(this.delta),
        chosenSeeds: this.rhoD.map((x) => Uint8Array.from(x)),
        seeds0: this.rho0.map((x) => Uint8Array.from(x)),
        seeds1: this.rho1.map((x) => Uint8Array.from(x)),
      });
      this.close();
    });
  }

  protected override wipe(): void {
    super.wipe();
    S.wipe(this.b);
    this.delta.fill(0);
    for (const a of [this.rho0, this.rho1, this.rhoD]) for (const x of a) x.fill(0);
  }
}

