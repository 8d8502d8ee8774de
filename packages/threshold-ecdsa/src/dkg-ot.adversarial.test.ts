import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addToScalar, expectAbort, HEADER, offCurvePoint, sidOf, splice } from './adversary.ts';
import { bigToBytes, bytesToBig, ecc, mulBase, N, randomScalar, taggedHash } from './curve.ts';
import { combineOfflineContributions } from './offline.ts';
import { Writer } from './codec.ts';
import { DkgSession } from './dkg.ts';
import { KeyShare } from './keyshare.ts';
import { PROOF_BYTES, proveDlog as proveDlogCt, writeProof } from './proofs.ts';
import { fromBytesStrict } from './scalar.ts';
import { runDkg, runDkgFull, runOtSetup, runPresign, finishBoth } from './test-helpers.ts';

// The scripted peer keeps its secrets as BigInt (test code); the prover takes constant-time scalars.
const proveDlog = (purpose: string, sid: Uint8Array, prover: 1 | 2, verifier: 1 | 2, x: bigint, X: Uint8Array) =>
  proveDlogCt(purpose, sid, prover, verifier, fromBytesStrict(bigToBytes(x)), X);
const proofBytes = (p: ReturnType<typeof proveDlog>) => writeProof(new Writer(), p).finish();
const OFF_CURVE = offCurvePoint((p) => ecc.isPoint(p));
const BAD_POINTS: Record<string, Uint8Array> = {
  'off the curve': OFF_CURVE,
  'all zero (no encoding of the identity is accepted)': new Uint8Array(33),
  'x = p (non-canonical)': Buffer.from('02fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f', 'hex'),
  'uncompressed prefix': splice(mulBase(5n), 0, Uint8Array.of(4)),
};

/** A scripted peer 2 (a dealer with known polynomial) against an honest party 1. */
function scriptedPeer() {
  const honest = new DkgSession(1);
  const a0 = randomScalar();
  const a1 = randomScalar();
  const C0 = mulBase(a0);
  const C1 = mulBase(a1);
  const salt = randomBytes(32);
  const hello2 = new Writer().u8(1).u8(0x10).u8(2).u8(1).bytes(randomBytes(32)).finish();
  const sid = sidOf(honest.commit(hello2));
  return { honest, a0, a1, C0, C1, salt, sid };
}
const openMsg = (sid: Uint8Array, C0: Uint8Array, C1: Uint8Array, salt: Uint8Array, proof: ReturnType<typeof proveDlog>, share: bigint) =>
  writeProof(new Writer().u8(1).u8(0x12).u8(2).u8(1).bytes(sid).bytes(C0).bytes(C1).bytes(salt), proof).bytes(bigToBytes(share)).finish();
const commitMsg = (sid: Uint8Array, c: Uint8Array) => new Writer().u8(1).u8(0x11).u8(2).u8(1).bytes(sid).bytes(c).finish();
// DKG open: C0(33) ‖ C1(33) ‖ salt(32) ‖ proof(PROOF_BYTES) ‖ f_j(i)(32)
const PROOF_AT = HEADER + 66 + 32;
const SHARE_AT = PROOF_AT + PROOF_BYTES;

describe('DKG against a deviating peer', () => {
  it('the scripted peer, following the protocol, is accepted (so each deviation below is what is refused)', () => {
    const p = scriptedPeer();
    p.honest.open(commitMsg(p.sid, commitFor(p.sid, p.C0, p.C1, p.salt)));
    const res = p.honest.finish(openMsg(p.sid, p.C0, p.C1, p.salt, proveDlog('dkg', p.sid, 2, 1, p.a0, p.C0), (p.a0 + p.a1) % N));
    expect(res.share).toBeInstanceOf(KeyShare);
  });

  it('refuses an opening of another polynomial than the one committed to (with a valid proof for it)', () => {
    expectAbort(
      () =>
        runDkg((step, from, msg) => {
          if (step !== 'dkg.finish' || from !== 2) return msg;
          const x = randomScalar();
          const X = mulBase(x);
          return splice(splice(msg, HEADER, X), PROOF_AT, proofBytes(proveDlog('dkg', sidOf(msg), 2, 1, x, X)));
        }),
      'commitment opening',
    );
  });

  it('refuses a proof of knowledge bound to another session, to swapped party ids or to another purpose', () => {
    for (const variant of ['other session', 'swapped ids', 'other purpose'] as const) {
      const p = scriptedPeer();
      p.honest.open(commitMsg(p.sid, commitFor(p.sid, p.C0, p.C1, p.salt)));
      const proof =
        variant === 'other session'
          ? proveDlog('dkg', randomBytes(32), 2, 1, p.a0, p.C0)
          : variant === 'swapped ids'
            ? proveDlog('dkg', p.sid, 1, 2, p.a0, p.C0)
            : proveDlog('ot-base', p.sid, 2, 1, p.a0, p.C0);
      expectAbort(() => p.honest.finish(openMsg(p.sid, p.C0, p.C1, p.salt, proof, (p.a0 + p.a1) % N)), 'proof of knowledge');
    }
  });

  it('refuses a secret share that does not match the dealer’s commitments (Feldman check)', () => {
    const p = scriptedPeer();
    p.honest.open(commitMsg(p.sid, commitFor(p.sid, p.C0, p.C1, p.salt)));
    // f(2) instead of f(1): a share for the wrong participant
    expectAbort(() => p.honest.finish(openMsg(p.sid, p.C0, p.C1, p.salt, proveDlog('dkg', p.sid, 2, 1, p.a0, p.C0), (p.a0 + 2n * p.a1) % N)), 'secret share does not match its commitments');
    expectAbort(() => runDkg((step, from, msg) => (step === 'dkg.finish' && from === 2 ? addToScalar(msg, SHARE_AT, 1n) : msg)), 'secret share does not match its commitments');
  });

  for (const [what, point] of Object.entries(BAD_POINTS)) {
    it(`refuses a peer commitment point that is ${what}`, () => {
      expectAbort(() => runDkg((step, from, msg) => (step === 'dkg.finish' && from === 2 ? splice(msg, HEADER, point) : msg)), 'invalid point');
      expectAbort(() => runDkg((step, from, msg) => (step === 'dkg.finish' && from === 2 ? splice(msg, HEADER + 33, point) : msg)), 'invalid point');
    });
  }

  it('refuses a peer whose constant term cancels ours (public key = identity)', () => {
    // A peer that learned C_10 (the commitment round makes this impossible) and opens −C_10.
    const p = scriptedPeer();
    const myOpen = p.honest.open(commitMsg(p.sid, new Uint8Array(32)));
    const negC10 = Uint8Array.from(myOpen.slice(HEADER, HEADER + 33));
    negC10[0] = negC10[0] === 2 ? 3 : 2;
    expectAbort(() => p.honest.finish(openMsg(p.sid, negC10, p.C1, p.salt, proveDlog('dkg', p.sid, 2, 1, 1n, negC10), 1n)), /commitment opening|proof of knowledge/);
  });
});

describe('the offline recovery share', () => {
  it('the two sealed contributions give p(3), and p(3) with one online share rebuilds the key', () => {
    const [r1, r2] = runDkgFull();
    const p3 = combineOfflineContributions([r1.offline, r2.offline], r1.share.verifyingShares[2]);
    const p1 = bytesToBig(r1.share.encode().subarray(3, 35));
    // interpolation at 0 over {1, 3}: λ_1 = 3/2, λ_3 = −1/2
    const inv2 = (N + 1n) / 2n;
    const sk = (((3n * inv2) % N) * p1 + ((N - inv2) * bytesToBig(p3)) % N) % N;
    expect(Buffer.from(mulBase(sk)).equals(Buffer.from(r1.share.publicKey))).toBe(true);
    // both online parties agree on the verifying shares
    expect(r1.share.verifyingShares.map((y) => Buffer.from(y).toString('hex'))).toEqual(r2.share.verifyingShares.map((y) => Buffer.from(y).toString('hex')));
  });

  it('refuses a contribution that does not match its dealer’s commitments, or a missing one', () => {
    const [r1, r2] = runDkgFull();
    const bad = { ...r2.offline, share: addToScalar(r2.offline.share, 0, 1n) };
    expect(() => combineOfflineContributions([r1.offline, bad], r1.share.verifyingShares[2])).toThrow(/dealer 2 does not match/);
    expect(() => combineOfflineContributions([r1.offline], r1.share.verifyingShares[2])).toThrow(expect.objectContaining({ code: 'INVALID_INPUT' }));
    expect(() => combineOfflineContributions([r1.offline, r2.offline], r1.share.verifyingShares[1])).toThrow(/sum does not match/);
  });
});

function commitFor(sid: Uint8Array, C0: Uint8Array, C1: Uint8Array, salt: Uint8Array): Uint8Array {
  return taggedHash('dkg/commit', sid, Uint8Array.of(2), C0, C1, salt);
}

describe('OT setup against a deviating peer', () => {
  const fresh = () => runDkg();

  it('refuses a base-OT sender point B with a proof of knowledge for another point, and leaves the OT absent', () => {
    const [s1, s2] = fresh();
    expectAbort(() => runOtSetup(s1, s2, (step, from, msg) => (step === 'ot.2' && from === 2 ? splice(msg, HEADER, mulBase(randomScalar())) : msg)), 'proof of knowledge');
    expect(s1.otStatusValue).toBe('absent');
  });

  it('refuses a base-OT proof of knowledge bound to swapped party ids', () => {
    const [s1, s2] = fresh();
    expectAbort(
      () =>
        runOtSetup(s1, s2, (step, from, msg) => {
          if (step !== 'ot.2' || from !== 2) return msg;
          const b = randomScalar();
          const B = mulBase(b);
          return splice(splice(msg, HEADER, B), HEADER + 33, proofBytes(proveDlog('ot-base', sidOf(msg), 1, 2, b, B)));
        }),
      'proof of knowledge',
    );
  });

  it('refuses an invalid base-OT point (B, then one A_i)', () => {
    const [s1, s2] = fresh();
    expectAbort(() => runOtSetup(s1, s2, (step, from, msg) => (step === 'ot.2' && from === 2 ? splice(msg, HEADER, OFF_CURVE) : msg)), 'invalid point');
    const [t1, t2] = fresh();
    expectAbort(() => runOtSetup(t1, t2, (step, from, msg) => (step === 'ot.3' && from === 2 ? splice(msg, HEADER + 33 * 100, OFF_CURVE) : msg)), 'invalid point');
  });

  it('catches a peer (base-OT receiver) whose A_i differs from the one its response is for', () => {
    const [s1, s2] = fresh();
    // party 2 sends another valid point as A_7: party 1's openings no longer match party 2's responses
    expectAbort(() => runOtSetup(s1, s2, (step, from, msg) => (step === 'ot.3' && from === 2 ? splice(msg, HEADER + 33 * 7, mulBase(randomScalar())) : msg)), 'base OT verification (sender)');
  });

  it('catches a peer (base-OT sender) whose challenge does not match its openings', () => {
    const [s1, s2] = fresh();
    let delta: Uint8Array = new Uint8Array(32);
    const tamper = (step: string, from: number, msg: Uint8Array) => {
      if (step !== 'ot.4' || from !== 2) return msg;
      // pick an OT where the honest receiver's choice bit is 0, so its response still passes the
      // deviator's own check and the honest party's final check is the one that fires
      let i = 0;
      while ((delta[i >> 3]! >> (i & 7)) & 1) i++;
      return splice(msg, HEADER + 32 * i, randomBytes(32));
    };
    expectAbort(() => runOtSetup(s1, s2, tamper, (a) => (delta = (a as unknown as { delta: Uint8Array }).delta)), 'base OT verification (receiver)');
    expect(s1.otStatusValue).toBe('absent');
  });

  it('catches a peer (base-OT sender) that swaps the two openings of one OT', () => {
    const [s1, s2] = fresh();
    expectAbort(
      () =>
        runOtSetup(s1, s2, (step, from, msg) => {
          if (step !== 'ot.finish' || from !== 2) return msg;
          const i = 3;
          const g0 = msg.slice(HEADER + 64 * i, HEADER + 64 * i + 32);
          const g1 = msg.slice(HEADER + 64 * i + 32, HEADER + 64 * i + 64);
          return splice(splice(msg, HEADER + 64 * i, g1), HEADER + 64 * i + 32, g0);
        }),
      'base OT verification (receiver)',
    );
  });

  it('a failed re-setup leaves a previously ready share unusable; a fresh setup makes it sign again', () => {
    const [s1, s2] = fresh();
    runOtSetup(s1, s2);
    expectAbort(() => runOtSetup(s1, s2, (step, from, msg) => (step === 'ot.finish' && from === 2 ? splice(msg, HEADER, randomBytes(32)) : msg)), 'base OT verification (receiver)');
    expect(s1.otStatusValue).toBe('unusable');
    runOtSetup(s1, s2);
    expect(s1.otStatusValue).toBe('ready');
    const d = randomBytes(32);
    const [p1, p2] = runPresign(s1, s2);
    expect(finishBoth(p1, p2, d)[0].compact.length).toBe(64);
  });

  it('refuses OT messages replayed from another OT setup of the same key pair, and wrong party ids', () => {
    const [s1, s2] = fresh();
    const recorded: Record<string, Uint8Array> = {};
    runOtSetup(s1, s2, (step, from, msg) => {
      if (from === 2) recorded[step] = msg;
      return msg;
    });
    for (const step of ['ot.2', 'ot.3', 'ot.4', 'ot.5', 'ot.finish']) {
      const [t1, t2] = [KeyShare.decode(s1.encode()), KeyShare.decode(s2.encode())];
      expectAbort(() => runOtSetup(t1, t2, (st, from, msg) => (st === step && from === 2 ? recorded[step]! : msg)), 'session id');
      expect(t1.otStatusValue).toBe('unusable');
    }
    const [t1, t2] = [KeyShare.decode(s1.encode()), KeyShare.decode(s2.encode())];
    expectAbort(() => runOtSetup(t1, t2, (st, from, msg) => (st === 'ot.3' && from === 2 ? splice(msg, 2, Uint8Array.of(1, 2)) : msg)), 'sender id');
  });
});

describe('DKG replays and party ids', () => {
  it('refuses DKG messages replayed from another DKG, and wrong party ids', () => {
    const recorded: Record<string, Uint8Array> = {};
    runDkg((step, from, msg) => {
      if (from === 2) recorded[step] = msg;
      return msg;
    });
    for (const step of ['dkg.open', 'dkg.finish']) {
      expectAbort(() => runDkg((st, from, msg) => (st === step && from === 2 ? recorded[step]! : msg)), 'session id');
    }
    expectAbort(() => runDkg((st, from, msg) => (st === 'dkg.open' && from === 2 ? splice(msg, 3, Uint8Array.of(2)) : msg)), 'recipient id');
    expectAbort(() => runDkg((st, from, msg) => (st === 'dkg.commit' && from === 2 ? splice(msg, 2, Uint8Array.of(1)) : msg)), 'sender id');
    // a hello reflected back (our own nonce) is refused
    const a = new DkgSession(1);
    const own = a.hello();
    expectAbort(() => a.commit(splice(own, 2, Uint8Array.of(2, 1))), 'reflected nonce');
  });
});
