import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expectAbort, HEADER, offCurvePoint, sidOf, splice } from './adversary.ts';
import { ecc, mulBase, randomScalar, taggedHash } from './curve.ts';
import { Writer } from './codec.ts';
import { DkgSession } from './dkg.ts';
import { KeyShare } from './keyshare.ts';
import { proveDlog, writeProof } from './proofs.ts';
import { runDkg, runOtSetup, runPresign, finishBoth } from './test-helpers.ts';

const proofBytes = (p: ReturnType<typeof proveDlog>) => writeProof(new Writer(), p).finish();
const OFF_CURVE = offCurvePoint((p) => ecc.isPoint(p));
const BAD_POINTS: Record<string, Uint8Array> = {
  'off the curve': OFF_CURVE,
  'all zero (no encoding of the identity is accepted)': new Uint8Array(33),
  'x = p (non-canonical)': Buffer.from('02fffffffffffffffffffffffffffffffffffffffffffffffffffffffefffffc2f', 'hex'),
  'uncompressed prefix': splice(mulBase(5n), 0, Uint8Array.of(4)),
};

describe('DKG against a deviating peer', () => {
  it('refuses an opening of another point than the one committed to (with a valid proof for it)', () => {
    expectAbort(
      () =>
        runDkg((step, from, msg) => {
          if (step !== 'dkg.finish' || from !== 2) return msg;
          const x = randomScalar();
          const X = mulBase(x);
          return splice(splice(msg, HEADER, X), HEADER + 33 + 32, proofBytes(proveDlog('dkg', sidOf(msg), 2, 1, x, X)));
        }),
      'commitment opening',
    );
  });

  it('refuses a proof of knowledge bound to another session or to swapped party ids, for the committed point', () => {
    // A test peer that follows the protocol but binds its proof wrongly: it commits to X = x·G with its own salt.
    for (const variant of ['other session', 'swapped ids', 'other purpose'] as const) {
      const honest = new DkgSession(1);
      const x = randomScalar();
      const X = mulBase(x);
      const salt = randomBytes(32);
      const peerNonce = randomBytes(32);
      const hello2 = new Writer().u8(1).u8(0x10).u8(2).u8(1).bytes(peerNonce).finish();
      const c1 = honest.commit(hello2);
      const sid = sidOf(c1);
      const commitment = commitFor(sid, X, salt);
      honest.open(new Writer().u8(1).u8(0x11).u8(2).u8(1).bytes(sid).bytes(commitment).finish());
      const proof =
        variant === 'other session'
          ? proveDlog('dkg', randomBytes(32), 2, 1, x, X)
          : variant === 'swapped ids'
            ? proveDlog('dkg', sid, 1, 2, x, X)
            : proveDlog('ot-base', sid, 2, 1, x, X);
      const open = writeProof(new Writer().u8(1).u8(0x12).u8(2).u8(1).bytes(sid).bytes(X).bytes(salt), proof).finish();
      expectAbort(() => honest.finish(open), 'proof of knowledge');
      // and the same peer with a correctly bound proof is accepted (the test can fail)
      const ok = new DkgSession(1);
      const c = ok.commit(hello2);
      const s2 = sidOf(c);
      ok.open(new Writer().u8(1).u8(0x11).u8(2).u8(1).bytes(s2).bytes(commitFor(s2, X, salt)).finish());
      const good = writeProof(new Writer().u8(1).u8(0x12).u8(2).u8(1).bytes(s2).bytes(X).bytes(salt), proveDlog('dkg', s2, 2, 1, x, X)).finish();
      expect(ok.finish(good)).toBeInstanceOf(KeyShare);
    }
  });

  for (const [what, point] of Object.entries(BAD_POINTS)) {
    it(`refuses a peer public share that is ${what}`, () => {
      expectAbort(() => runDkg((step, from, msg) => (step === 'dkg.finish' && from === 2 ? splice(msg, HEADER, point) : msg)), 'invalid point');
    });
  }

  it('refuses a peer whose public share cancels ours (public key = identity), even if it could open it', () => {
    // Model a peer that learned X_1 (commitments make this impossible in the protocol): it opens -X_1.
    const honest = new DkgSession(1);
    const hello2 = new Writer().u8(1).u8(0x10).u8(2).u8(1).bytes(randomBytes(32)).finish();
    const sid = sidOf(honest.commit(hello2));
    const salt = randomBytes(32);
    // honest party's X_1 is in its opening
    const dummy = new Writer().u8(1).u8(0x11).u8(2).u8(1).bytes(sid);
    const myOpen = honest.open(dummy.bytes(new Uint8Array(32)).finish());
    const X1 = myOpen.slice(HEADER, HEADER + 33);
    const negX1 = Uint8Array.from(X1);
    negX1[0] = X1[0] === 2 ? 3 : 2;
    const open = writeProof(new Writer().u8(1).u8(0x12).u8(2).u8(1).bytes(sid).bytes(negX1).bytes(salt), proveDlog('dkg', sid, 2, 1, 1n, negX1)).finish();
    expectAbort(() => honest.finish(open), /commitment opening|proof of knowledge/);
  });
});

function commitFor(sid: Uint8Array, X: Uint8Array, salt: Uint8Array): Uint8Array {
  return taggedHash('dkg/commit', sid, Uint8Array.of(2), X, salt);
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
