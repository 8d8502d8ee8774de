import { secp256k1 } from '@noble/curves/secp256k1.js';
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addToScalar, expectAbort, HEADER, splice } from './adversary.ts';
import { bytesToBig, inv, mod, mul } from './curve.ts';
import { dealKeyShares } from './import.ts';
import type { KeyShare } from './keyshare.ts';
import { refreshParty } from './parties.ts';
import { refreshOfflineShare, RefreshSession, type RefreshResult } from './refresh.ts';
import { finishBoth, runOtSetup, runPresign, type Tamper } from './test-helpers.ts';

const none: Tamper = (_s, _f, m) => m;
const context = new TextEncoder().encode('wallet-x:epoch-1');

/** Both parties' refresh, step by step (party 1 first); `tamper` plays a deviating peer. */
function runRefresh(s1: KeyShare, s2: KeyShare, tamper: Tamper = none, ctx2: Uint8Array = context): [RefreshResult, RefreshResult] {
  const a = new RefreshSession(s1, context);
  const b = new RefreshSession(s2, ctx2);
  const [h1, h2] = [a.hello(), b.hello()];
  const [c1, c2] = [a.commit(tamper('commit', 2, h2)), b.commit(tamper('commit', 1, h1))];
  const [o1, o2] = [a.open(tamper('open', 2, c2)), b.open(tamper('open', 1, c1))];
  return [a.finish(tamper('finish', 2, o2)), b.finish(tamper('finish', 1, o1))];
}

const secretOf = (share: KeyShare) => bytesToBig(share.encode().subarray(3, 35));
const interpolate = (i: bigint, pi: bigint, j: bigint, pj: bigint) => mod(mul(mod(j * pi - i * pj), inv(mod(j - i))));
const signs = (s1: KeyShare, s2: KeyShare, publicKey: Uint8Array) => {
  const digest = createHash('sha256').update('refreshed').digest();
  const [p1, p2] = runPresign(s1, s2);
  const [signature] = finishBoth(p1, p2, digest);
  return secp256k1.verify(signature.compact, digest, publicKey, { prehash: false, lowS: true });
};

describe('share refresh: a random sharing of zero added by both online parties', () => {
  const secretKey = secp256k1.utils.randomSecretKey();
  const publicKey = secp256k1.getPublicKey(secretKey, true);
  const sk = bytesToBig(secretKey);

  it('keeps the public key; the new shares sign after an OT setup and interpolate to the key, old and new do not combine; participant 3 follows', () => {
    const dealt = dealKeyShares(secretKey, publicKey);
    const [s1, s2] = dealt.shares;
    const [r1, r2] = runRefresh(s1, s2);
    expect(r1.share.verifyingShares).toEqual(r2.share.verifyingShares);
    expect(Buffer.from(r1.share.publicKey).equals(Buffer.from(publicKey))).toBe(true);
    expect(r1.share.otStatusValue).toBe('absent');
    const [n1, n2] = [secretOf(r1.share), secretOf(r2.share)];
    expect(n1).not.toBe(secretOf(s1));
    expect(interpolate(1n, n1, 2n, n2)).toBe(sk);
    expect(interpolate(1n, secretOf(s1), 2n, n2)).not.toBe(sk);
    expect(interpolate(1n, n1, 2n, secretOf(s2))).not.toBe(sk);
    // Participant 3: p(3) plus both contributions, checked against the new Y_3, interpolates with a new share.
    const p3 = refreshOfflineShare(dealt.offline.share, [r1.offline, r2.offline], r1.share.verifyingShares[2]);
    expect(interpolate(1n, n1, 3n, bytesToBig(p3))).toBe(sk);
    expect(() => refreshOfflineShare(dealt.offline.share, [r1.offline], r1.share.verifyingShares[2])).toThrow(/does not match Y_3/);
    runOtSetup(r1.share, r2.share);
    expect(signs(r1.share, r2.share, publicKey)).toBe(true);
  });

  it('refreshParty runs the refresh and the OT setup batched as the service does; the result signs', () => {
    const [s1, s2] = dealKeyShares(secretKey).shares;
    const [a, b] = [refreshParty(s1, context), refreshParty(s2, context)];
    let outbox = [a.first()];
    let answers = [b.first()];
    for (let exchanges = 1; ; exchanges++) {
      for (const m of outbox) {
        const out = b.step(m);
        if (out) answers.push(out);
      }
      outbox = [];
      for (const m of answers) {
        const out = a.step(m);
        if (out) outbox.push(out);
      }
      answers = [];
      if (a.done && b.done) {
        expect(exchanges).toBe(5);
        break;
      }
    }
    const [r1, r2] = [a.result(), b.result()];
    expect([r1.share.otStatusValue, r1.share.otSetupId]).toEqual(['ready', r2.share.otSetupId]);
    expect(signs(r1.share, r2.share, publicKey)).toBe(true);
  });

  it('aborts on a wrong opening, a delta that is not its commitment, another session, another sharing or a wrong party id', () => {
    const fresh = () => dealKeyShares(secretKey).shares;
    const at = (step: string, edit: (m: Uint8Array) => Uint8Array): Tamper => (s, from, m) => (s === step && from === 2 ? edit(m) : m);
    const salt = HEADER + 33;
    const delta = salt + 32;
    expectAbort(() => runRefresh(...fresh(), at('finish', (m) => splice(m, salt, new Uint8Array(32).fill(7)))), 'commitment opening');
    expectAbort(() => runRefresh(...fresh(), at('finish', (m) => addToScalar(m, delta, 1n))), 'delta does not match its commitment');
    // A commitment from another refresh session of the same shares.
    const [o1, o2] = fresh();
    const other = new RefreshSession(o2, context);
    const stale = other.commit(new RefreshSession(o1, context).hello());
    expectAbort(() => runRefresh(...fresh(), at('open', () => stale)), 'session id');
    // The peer refreshes for another context (another wallet or epoch): the session ids differ.
    const [c1, c2] = fresh();
    expectAbort(() => runRefresh(c1, c2, none, new TextEncoder().encode('wallet-y:epoch-1')), 'session id');
    expectAbort(() => runRefresh(...fresh(), at('open', (m) => splice(m, 2, Uint8Array.of(1)))), 'sender id');
  });
});
