import { randomBytes } from 'node:crypto';
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { describe, expect, it } from 'vitest';
import { addToScalar, expectAbort, HEADER, offCurvePoint, splice } from './adversary.ts';
import { ecc, mulBase, randomScalar, taggedHash } from './curve.ts';
import { KeyShare } from './keyshare.ts';
import { dirSid, SignSession } from './sign.ts';
import { checkValues, OTE_MESSAGE_BYTES, prg } from './ote.ts';
import { finishBoth, runPresign, setup, type Tamper } from './test-helpers.ts';

// SIGN_1 body: commitment(32) ‖ OT-extension matrix u (256 × 84) ‖ x̃ (16) ‖ t̃_i (256 × 16)
const U = HEADER + 32;
const XT = U + 256 * 84;
// SIGN_2 body: R(33) ‖ salt(32) ‖ Γu(33) ‖ Γv(33) ‖ ψ(32) ‖ τ(416 × 4 × 32) ‖ H(r)(32) ‖ u(2 × 32) ‖ γ_A(2 × 32)
const R_AT = HEADER;
const GAMMA_U = HEADER + 65;
const GAMMA_V = GAMMA_U + 33;
const PSI = GAMMA_V + 33;
const TAU = PSI + 32;
const VERIFY_R = TAU + 416 * 4 * 32;
const CHECK_U = VERIFY_R + 32;
const GAMMA_A = CHECK_U + 64;

const [base1, base2] = setup();
/** Fresh copies of the key pair (same key, same correlations), so that each test starts ready. */
const pair = (): [KeyShare, KeyShare] => [KeyShare.decode(base1.encode()), KeyShare.decode(base2.encode())];
const at = (wanted: string, t: (msg: Uint8Array) => Uint8Array): Tamper => (step, from, msg) => (step === wanted && from === 2 ? t(msg) : msg);

/** Runs signing with party 2 deviating; party 1 must abort, release nothing, and mark its OT unusable. */
function honestAborts(tamper: Tamper, diagnostic: string | RegExp, finalTamper?: Tamper): void {
  const [s1, s2] = pair();
  expectAbort(() => {
    const [p1, p2] = runPresign(s1, s2, tamper);
    finishBoth(p1, p2, randomBytes(32), finalTamper);
  }, diagnostic);
  expect(s1.otStatusValue).toBe('unusable');
  expect(KeyShare.decode(s1.encode()).otStatusValue).toBe('unusable');
  expect(() => new SignSession(s1)).toThrow(expect.objectContaining({ code: 'OT_UNUSABLE' }));
}

describe('signing against a deviating peer', () => {
  it('the untampered run signs (so each deviation below is what makes the difference)', () => {
    const [s1, s2] = pair();
    const d = randomBytes(32);
    const [p1, p2] = runPresign(s1, s2);
    const [sig] = finishBoth(p1, p2, d);
    expect(secp256k1.verify(sig.compact, d, s1.publicKey, { prehash: false })).toBe(true);
    expect(s1.otStatusValue).toBe('ready');
  });

  it('refuses R_j other than the committed one', () => {
    honestAborts(at('sign.presign', (m) => splice(m, R_AT, mulBase(randomScalar()))), 'commitment opening');
  });

  it('refuses an invalid R_j, Γ^u or Γ^v', () => {
    const bad = offCurvePoint((p) => ecc.isPoint(p));
    honestAborts(at('sign.presign', (m) => splice(m, R_AT, bad)), 'invalid point');
    honestAborts(at('sign.presign', (m) => splice(m, GAMMA_U, new Uint8Array(33))), 'invalid point');
    honestAborts(at('sign.presign', (m) => splice(m, GAMMA_V, bad)), 'invalid point');
  });

  it('OT extension: a receiver that uses another choice bit in one column where Δ_i = 1 fails the consistency check', () => {
    // The selective-failure probe on Δ: flip row 5 in column i. The check fails exactly when Δ_i = 1.
    const delta = (base1 as unknown as { readyOt(): { delta: Uint8Array } }).readyOt().delta;
    let i = 0;
    while (!((delta[i >> 3]! >> (i & 7)) & 1)) i++;
    // The deviating receiver (party 2) recomputes its check values for the tampered matrix, as a real
    // attacker would (the Fiat–Shamir key depends on u).
    const flip = (col: number) =>
      at('sign.2', (m) => {
        const sid = m.slice(4, 36);
        const bobSid = dirSid(sid, 2);
        const iv = taggedHash('kos/prg', bobSid).subarray(0, 16);
        const ot = (base2 as unknown as { readyOt(): { seeds0: Uint8Array[]; seeds1: Uint8Array[] } }).readyOt();
        const u = Uint8Array.from(m.subarray(U, XT));
        const t0 = ot.seeds0.map((seed) => prg(seed, iv));
        const x = Uint8Array.from(u.subarray(0, 84));
        const t1c0 = prg(ot.seeds1[0]!, iv);
        for (let k = 0; k < 84; k++) x[k]! ^= t0[0]![k]! ^ t1c0[k]!;
        u[col * 84]! ^= 1 << 5; // row 5 of column `col` claims the other choice bit
        const out = Uint8Array.from(m);
        out.set(u, U);
        out.set(checkValues(bobSid, u, t0, x), XT);
        return out;
      });
    honestAborts(flip(i), 'OT extension consistency check');
    // Where Δ_i = 0 the same probe passes unnoticed: the abort itself is the leak, hence the rule that
    // any abort makes the correlations unusable.
    let z = 0;
    while ((delta[z >> 3]! >> (z & 7)) & 1) z++;
    const [s1, s2] = pair();
    const a = new SignSession(s1);
    const b = new SignSession(s2);
    const b1 = b.round1(a.hello());
    a.round1(b.hello());
    expect(a.round2(flip(z)('sign.2', 2, b1)).length).toBeGreaterThan(50_000); // the honest party's check passed
  });

  it('OT extension: a receiver that lies about x̃ or about one t̃_i fails the consistency check', () => {
    honestAborts(at('sign.2', (m) => { const o = Uint8Array.from(m); o[XT]! ^= 0x80; return o; }), 'OT extension consistency check');
    honestAborts(at('sign.2', (m) => { const o = Uint8Array.from(m); o[XT + 16 + 3]! ^= 1; return o; }), 'OT extension consistency check');
  });

  it('multiplication: Alice sending a wrong check value u, a wrong H(r), or shifted τ is caught by the multiplication check', () => {
    honestAborts(at('sign.presign', (m) => addToScalar(m, CHECK_U, 1n)), 'multiplication check');
    honestAborts(at('sign.presign', (m) => splice(m, VERIFY_R, randomBytes(32))), 'multiplication check');
    // Alice uses pad ã_1 + 1 in every OT of the batch but reports u for ã_1: inconsistent correlation
    honestAborts(at('sign.presign', (m) => { let o = m; for (let j = 0; j < 416; j++) o = addToScalar(o, TAU + j * 128, 1n); return o; }), 'multiplication check');
  });

  it('multiplication: inputs other than r_j and sk_j (the adjustment γ_A shifted) fail the Γ consistency checks', () => {
    honestAborts(at('sign.presign', (m) => addToScalar(m, GAMMA_A, 1n)), 'consistency check (R)');
    honestAborts(at('sign.presign', (m) => addToScalar(m, GAMMA_A + 32, 1n)), 'consistency check (pk)');
    honestAborts(at('sign.presign', (m) => splice(m, GAMMA_U, mulBase(randomScalar()))), 'consistency check (R)');
  });

  it('a wrong ψ or a wrong final share yields no signature', () => {
    honestAborts(at('sign.presign', (m) => addToScalar(m, PSI, 1n)), 'signature does not verify');
    honestAborts((_s, _f, m) => m, 'signature does not verify', at('sign.finish', (m) => addToScalar(m, HEADER + 32, 1n)));
  });

  it('refuses a scalar that is not reduced mod n', () => {
    honestAborts(at('sign.presign', (m) => splice(m, PSI, new Uint8Array(32).fill(0xff))), 'scalar not reduced');
  });

  it('refuses messages replayed from another session, at every round', () => {
    const [s1, s2] = pair();
    const recorded: Record<string, Uint8Array> = {};
    const [p1, p2] = runPresign(s1, s2, (step, from, msg) => {
      if (from === 2) recorded[step] = msg;
      return msg;
    });
    const f2 = p2.prepareFinalMessage(randomBytes(32));
    recorded['sign.finish'] = f2.message;
    p1.discard();
    for (const step of ['sign.2', 'sign.presign']) honestAborts(at(step, () => recorded[step]!), 'session id');
    honestAborts((_s, _f, m) => m, 'session id', at('sign.finish', () => recorded['sign.finish']!));
    // a replayed hello only replays the peer's nonce: the session id is fresh because ours is
    expect(OTE_MESSAGE_BYTES).toBe(256 * 84 + 16 + 256 * 16);
  });

  it('refuses a message with a wrong party id (sender or recipient), or one of its own reflected', () => {
    honestAborts(at('sign.2', (m) => splice(m, 2, Uint8Array.of(1, 2))), 'sender id');
    honestAborts(at('sign.presign', (m) => splice(m, 3, Uint8Array.of(2))), 'recipient id');
    honestAborts(at('sign.2', (m) => splice(m, 1, Uint8Array.of(0x32))), 'message type');
    const [s1, s2] = pair();
    expectAbort(() => runPresign(s1, s2, (step, from, msg) => (step === 'sign.1' && from === 2 ? splice(msg, 2, Uint8Array.of(1, 2)) : msg)), 'sender id');
  });

  it('refuses a truncated or extended message', () => {
    honestAborts(at('sign.2', (m) => m.subarray(0, m.length - 1)), /message too short|trailing bytes/);
    honestAborts(at('sign.presign', (m) => Buffer.concat([m, Uint8Array.of(0)])), 'trailing bytes');
  });

  it('a presignature cannot serve a second digest, even when the peer asks again', () => {
    const [s1, s2] = pair();
    const [p1, p2] = runPresign(s1, s2);
    const d1 = randomBytes(32);
    const [sig] = finishBoth(p1, p2, d1);
    expect(secp256k1.verify(sig.compact, d1, s1.publicKey, { prehash: false })).toBe(true);
    expect(() => p1.prepareFinalMessage(randomBytes(32))).toThrow(expect.objectContaining({ code: 'PRESIGNATURE_CONSUMED' }));
    expect(() => p1.prepareFinalMessage(d1)).toThrow(expect.objectContaining({ code: 'PRESIGNATURE_CONSUMED' }));
  });

  it('a signature session that aborted cannot be driven further', () => {
    const [s1] = pair();
    const a = new SignSession(s1);
    expectAbort(() => a.round1(randomBytes(36)), /version|message type|sender id|recipient id|message too short|trailing bytes/);
    expect(() => a.round2(randomBytes(100))).toThrow(expect.objectContaining({ code: 'SESSION_CLOSED' }));
  });
});
