import { randomBytes } from 'node:crypto';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { KeyShare, keygenParty, ThresholdEcdsaError, type Party } from '@wallet/threshold-ecdsa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { threadKeygenParty, threadOtSetupParty, threadRefreshParty, type AsyncParty, type PartyMade } from './dkls-party-host.ts';
import { createPresignThread } from './dkls-presign-host.ts';
import { openDklsShare, sealDklsShareBytes } from './dkls-share.ts';
import type { Kek } from './types.ts';

const context = new Uint8Array(Buffer.from('wallet-dkls-dkg:v1:test'));

/** Participant 1 speaks first; each later exchange carries each side's batch. `tamper` may change what goes to participant 2. */
async function runAsync(a: AsyncParty<unknown>, b: AsyncParty<unknown>, tamper?: (toB: Uint8Array[], exchange: number) => void): Promise<void> {
  let toB = await a.first();
  let toA = await b.first(toB);
  for (let exchange = 1; !(a.done && b.done); exchange++) {
    if (exchange > 10) throw new Error('the protocol did not end');
    toB = await a.step(toA);
    tamper?.(toB, exchange);
    toA = await b.step(toB);
  }
}

/** The same run with the library's synchronous parties; answers the longest single step (ms). */
function runSync(a: Party<unknown>, b: Party<unknown>): number {
  let longest = 0;
  const timed = <T>(f: () => T): T => {
    const t0 = performance.now();
    try {
      return f();
    } finally {
      longest = Math.max(longest, performance.now() - t0);
    }
  };
  const steps = (p: Party<unknown>, messages: Uint8Array[]) => messages.map((m) => timed(() => p.step(m))).filter((m): m is Uint8Array => m !== null);
  let toB = [timed(() => a.first())];
  let toA = [timed(() => b.first()), ...steps(b, toB)];
  while (!(a.done && b.done)) {
    toB = steps(a, toA);
    toA = steps(b, toB);
  }
  return longest;
}

/** The event loop's largest delay (ms) while `body` runs, with a 1 ms timer ticking on it. */
async function loopDelayDuring(body: () => Promise<unknown> | unknown): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 1 });
  const tick = setInterval(() => undefined, 1);
  histogram.enable();
  try {
    await body();
    await new Promise((resolve) => setTimeout(resolve, 5));
  } finally {
    histogram.disable();
    clearInterval(tick);
  }
  return histogram.max / 1e6;
}

describe('key ceremonies in the presigning thread', () => {
  const t1 = createPresignThread();
  const t2 = createPresignThread();
  beforeAll(async () => {
    // Started (and the protocol code loaded) before anything is measured.
    await Promise.all([t1.count(), t2.count()]);
  });
  afterAll(async () => {
    await Promise.all([t1.close(), t2.close()]);
  });

  it('runs key generation and an OT setup without blocking the event loop, as the main-thread run does', async () => {
    // The control: the same protocols on this thread block it for their longest step.
    let longestStep = 0;
    const blocked = await loopDelayDuring(async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      const [a, b] = [keygenParty(1, context), keygenParty(2, context)];
      longestStep = runSync(a, b);
      a.abandon();
      b.abandon();
    });
    expect(longestStep).toBeGreaterThan(5);
    expect(blocked).toBeGreaterThanOrEqual(longestStep * 0.9);

    const a = threadKeygenParty(t1, 1, context);
    const b = threadKeygenParty(t2, 2, context);
    let renewedA: PartyMade | undefined;
    let renewedB: PartyMade | undefined;
    const delay = await loopDelayDuring(async () => {
      await runAsync(a, b);
      const [ma, mb] = [a.result(), b.result()];
      // An OT setup for the new shares, in the threads too.
      const oa = threadOtSetupParty(t1, { plain: Uint8Array.from(ma.share), partyId: 1, publicKey: ma.publicKey, otSetupId: ma.otSetupId });
      const ob = threadOtSetupParty(t2, { plain: Uint8Array.from(mb.share), partyId: 2, publicKey: mb.publicKey, otSetupId: mb.otSetupId });
      await runAsync(oa, ob);
      [renewedA, renewedB] = [{ ...oa.result(), share: Uint8Array.from(oa.result().share) }, { ...ob.result(), share: Uint8Array.from(ob.result().share) }];
      oa.abandon();
      ob.abandon();
    });
    expect(delay).toBeLessThan(longestStep / 2);

    const [ma, mb] = [a.result(), b.result()];
    expect(Buffer.from(ma.publicKey).equals(Buffer.from(mb.publicKey))).toBe(true);
    expect(ma.otSetupId).toBe(mb.otSetupId);
    expect(ma.offline.share.length).toBe(32);
    expect(renewedA!.otSetupId).toBe(renewedB!.otSetupId);
    expect(renewedA!.otSetupId).not.toBe(ma.otSetupId);

    // Sealed from the bytes, it opens as the share the thread made.
    const kek: Kek = { id: 'k1', key: randomBytes(32) };
    const walletId = '4f0e2c1a-0000-4000-8000-000000000002';
    const sealed = sealDklsShareBytes(kek, walletId, 'dkls-api', { plain: renewedA!.share, partyId: 1, publicKey: renewedA!.publicKey, otSetupId: renewedA!.otSetupId }, 0);
    const opened = openDklsShare({ byId: () => kek }, walletId, 'dkls-api', sealed, ma.publicKey);
    expect(opened.otSetupId).toBe(renewedA!.otSetupId);
    expect(opened.otStatusValue).toBe('ready');
    opened.wipe();

    // abandon() wipes the outcome's secret bytes; the threads hold nothing.
    a.abandon();
    b.abandon();
    expect(ma.share.every((x) => x === 0) && ma.offline.share.every((x) => x === 0)).toBe(true);
    expect(await t1.count()).toBe(0);
    expect(await t2.count()).toBe(0);
  });

  it('refreshes a share in the threads, keeping the public key', async () => {
    const a = threadKeygenParty(t1, 1, context);
    const b = threadKeygenParty(t2, 2, context);
    await runAsync(a, b);
    const refresh = new Uint8Array(Buffer.from('wallet-dkls-refresh:v1:test:1'));
    const plain = (m: PartyMade) => ({ plain: Uint8Array.from(m.share), partyId: m.partyId, publicKey: m.publicKey, otSetupId: m.otSetupId });
    const ra = threadRefreshParty(t1, plain(a.result()), refresh);
    const rb = threadRefreshParty(t2, plain(b.result()), refresh);
    await runAsync(ra, rb);
    expect(Buffer.from(ra.result().publicKey).equals(Buffer.from(a.result().publicKey))).toBe(true);
    expect(ra.result().otSetupId).toBe(rb.result().otSetupId);
    expect(ra.result().offline.delta.length).toBe(32);
    const share = KeyShare.decode(Uint8Array.from(ra.result().share));
    expect(share.otStatusValue).toBe('ready');
    share.wipe();
    for (const p of [a, b, ra, rb]) p.abandon();
    expect(ra.result().offline.delta.every((x) => x === 0)).toBe(true);
    expect(await t1.count()).toBe(0);
  });

  it('a deviating peer message aborts the step with the same code and ends the thread entry', async () => {
    const a = threadKeygenParty(t1, 1, context);
    const b = threadKeygenParty(t2, 2, context);
    // Exchange 1 carries participant 1's DKG opening; one byte of it changes, and participant 2's check of it fails.
    const run = runAsync(a, b, (toB, exchange) => {
      if (exchange === 1) toB[toB.length - 1]![5]! ^= 1;
    });
    await expect(run).rejects.toMatchObject({ name: 'ThresholdEcdsaError', code: 'ABORTED' });
    expect(await t2.count()).toBe(0);
    // The aborted party steps no more; the peer's entry goes with abandon().
    await expect(b.step([new Uint8Array(1)])).rejects.toBeInstanceOf(ThresholdEcdsaError);
    expect(await t1.count()).toBe(1);
    a.abandon();
    b.abandon();
    expect(await t1.count()).toBe(0);
  });

  it('a deviating first message ends the entry the same step opened', async () => {
    const b = threadKeygenParty(t2, 2, context);
    await expect(b.first([new Uint8Array(3)])).rejects.toMatchObject({ name: 'ThresholdEcdsaError', code: 'ABORTED' });
    expect(await t2.count()).toBe(0);
    b.abandon();
  });

  it('refuses a share that is not the one announced, wiping it and keeping no entry', async () => {
    const a = threadKeygenParty(t1, 1, context);
    const b = threadKeygenParty(t2, 2, context);
    await runAsync(a, b);
    const made = a.result();
    for (const wrong of [{ partyId: 2 as const }, { publicKey: new Uint8Array(randomBytes(33)) }, { otSetupId: 'ab'.repeat(32) }]) {
      const plain = Uint8Array.from(made.share);
      const party = threadOtSetupParty(t1, { plain, partyId: made.partyId, publicKey: made.publicKey, otSetupId: made.otSetupId, ...wrong });
      await expect(party.first()).rejects.toMatchObject({ code: 'INVALID_INPUT' });
      expect(plain.every((x) => x === 0)).toBe(true);
      party.abandon();
    }
    // A corrupted encoding too.
    const corrupt = Uint8Array.from(made.share);
    corrupt[10]! ^= 1;
    const party = threadOtSetupParty(t1, { plain: corrupt, partyId: 1, publicKey: made.publicKey, otSetupId: made.otSetupId });
    await expect(party.first()).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    a.abandon();
    b.abandon();
    expect(await t1.count()).toBe(0);
  });

  it('takes a share that is a view into a larger buffer, wiping only the view', async () => {
    const a = threadKeygenParty(t1, 1, context);
    const b = threadKeygenParty(t2, 2, context);
    await runAsync(a, b);
    const made = a.result();
    const big = new Uint8Array(made.share.length + 20).fill(7);
    big.set(made.share, 10);
    const view = big.subarray(10, 10 + made.share.length);
    const party = threadOtSetupParty(t1, { plain: view, partyId: 1, publicKey: made.publicKey, otSetupId: made.otSetupId });
    expect((await party.first()).length).toBe(1);
    expect(view.every((x) => x === 0)).toBe(true);
    expect([...big.subarray(0, 10), ...big.subarray(10 + made.share.length)].every((x) => x === 7)).toBe(true);
    for (const p of [a, b, party]) p.abandon();
    expect(await t1.count()).toBe(0);
  });

  it('an abandoned session drops its thread entry, also with a step in flight', async () => {
    const a = threadKeygenParty(t1, 1, context);
    const b = threadKeygenParty(t2, 2, context);
    const toB = await a.first();
    const toA = await b.first(toB);
    expect(await t1.count()).toBe(1);
    a.abandon();
    expect(await t1.count()).toBe(0);
    const next = a.step(toA);
    await expect(next).rejects.toMatchObject({ code: 'SESSION_CLOSED' });
    const inFlight = b.step(await threadKeygenParty(t1, 1, context).first());
    b.abandon();
    await expect(inFlight).rejects.toBeInstanceOf(ThresholdEcdsaError);
    expect(await t2.count()).toBe(0);
    await t1.close();
    // A fresh thread starts on the next call (the closed one took its entries with it).
    expect(await t1.count()).toBe(0);
  });
});
