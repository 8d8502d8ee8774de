import { createStores, createTestDatabase, type Database } from '@wallet/db';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPollLoop, type PollLoop } from './poll-loop.ts';

const errors: unknown[] = [];
const logger = { error: (fields: unknown) => void errors.push(fields) };
const loops: PollLoop[] = [];
const start = (options: Omit<Parameters<typeof startPollLoop>[0], 'logger' | 'name'>) => {
  const loop = startPollLoop({ name: 'test tick', logger, ...options });
  loops.push(loop);
  return loop;
};
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

afterEach(async () => {
  await Promise.all(loops.splice(0).map((l) => l.stop()));
  errors.length = 0;
});

describe('startPollLoop', () => {
  it('backs off exponentially while ticks fail, and returns to the idle pace after a success', async () => {
    const times: number[] = [];
    let calls = 0;
    start({
      idleMs: 20,
      maxErrorBackoffMs: 10_000,
      async tick() {
        times.push(performance.now());
        if (++calls <= 3) throw new Error(`down ${calls}`);
        return false;
      },
    });
    await expect.poll(() => times.length, { timeout: 2_000 }).toBeGreaterThanOrEqual(6);
    const gaps = times.slice(1).map((t, i) => t - times[i]!);
    // After failures 1, 2, 3: 40, 80, 160 ms; then successes at the idle 20 ms.
    expect(gaps[0]).toBeGreaterThanOrEqual(38);
    expect(gaps[1]).toBeGreaterThanOrEqual(78);
    expect(gaps[2]).toBeGreaterThanOrEqual(158);
    // A fourth failure would have paused 320 ms.
    expect(gaps[3]).toBeLessThan(300);
    expect(gaps[4]).toBeLessThan(300);
    expect(errors).toMatchObject([
      { failures: 1, retryInMs: 40, err: { message: 'down 1' } },
      { failures: 2, retryInMs: 80 },
      { failures: 3, retryInMs: 160 },
    ]);
  });

  it('caps the backoff at maxErrorBackoffMs', async () => {
    start({
      idleMs: 10,
      maxErrorBackoffMs: 25,
      async tick() {
        throw new Error('down');
      },
    });
    await expect.poll(() => errors.length, { timeout: 2_000 }).toBeGreaterThanOrEqual(3);
    expect(errors.map((e) => (e as { retryInMs: number }).retryInMs).slice(0, 3)).toEqual([20, 25, 25]);
  });

  it('ticks again at once while a tick says more is due, then waits the idle pause', async () => {
    let calls = 0;
    start({
      idleMs: 60_000,
      async tick() {
        calls++;
        return calls < 50;
      },
    });
    await expect.poll(() => calls, { timeout: 2_000 }).toBe(50);
    await sleep(100);
    expect(calls).toBe(50);
  });

  it('stop cuts the idle pause short but waits for the tick in flight, and starts no other', async () => {
    let release!: () => void;
    let calls = 0;
    let finished = false;
    const loop = start({
      idleMs: 60_000,
      async tick() {
        calls++;
        await new Promise<void>((resolve) => (release = resolve));
        finished = true;
        return true;
      },
    });
    await expect.poll(() => calls).toBe(1);
    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    await sleep(50);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(finished).toBe(true);
    expect(calls).toBe(1);
    expect(loop.stop()).toBe(loop.stop());

    // An idle loop stops at once, not after its 60 s pause.
    const idle = start({ idleMs: 60_000, tick: async () => false });
    await sleep(20);
    const before = performance.now();
    await idle.stop();
    expect(performance.now() - before).toBeLessThan(1_000);
  });

  it('runs `concurrency` ticks in flight at once', async () => {
    let inFlight = 0;
    let most = 0;
    start({
      idleMs: 20,
      concurrency: 3,
      async tick() {
        inFlight++;
        most = Math.max(most, inFlight);
        await sleep(100);
        inFlight--;
        return false;
      },
    });
    await expect.poll(() => most, { timeout: 2_000 }).toBe(3);
  });

  it('run() starts a task at once while every tick is busy, logs its failure, and stop waits for it', async () => {
    const loop = start({ idleMs: 20, tick: () => sleep(400).then(() => false) });
    await sleep(20);
    const ran: number[] = [];
    const asked = performance.now();
    let finished = false;
    loop.run(async () => {
      ran.push(performance.now() - asked);
      await sleep(150);
      finished = true;
    });
    loop.run(async () => {
      throw new Error('task down');
    });
    await expect.poll(() => ran.length, { timeout: 1_000 }).toBe(1);
    // Not queued behind the 400 ms tick in flight.
    expect(ran[0]).toBeLessThan(100);
    await expect.poll(() => errors.length).toBe(1);
    expect(errors[0]).toMatchObject({ err: { message: 'task down' } });
    await loop.stop();
    expect(finished).toBe(true);
    loop.run(async () => void ran.push(-1));
    await sleep(20);
    expect(ran).toHaveLength(1);
  });

  describe('with a lease in the database', () => {
    let db: Database;
    beforeAll(async () => {
      db = await createTestDatabase('pglite');
    });
    afterAll(() => db?.close());

    it('ticks in one loop at a time; the others take over when it stops, or when a dead holder\'s lease expires', async () => {
      const store = createStores(db).workerLeases;
      const ticks: string[] = [];
      const worker = (owner: string) =>
        start({
          idleMs: 20,
          lease: { store, name: 'single', owner, ms: 2_000 },
          async tick() {
            ticks.push(owner);
            return false;
          },
        });
      const a = worker('a');
      await expect.poll(() => ticks.length).toBeGreaterThan(0);
      const b = worker('b');
      await sleep(300);
      expect(new Set(ticks)).toEqual(new Set(['a']));

      await a.stop();
      const handedOver = ticks.length;
      await expect.poll(() => ticks.slice(handedOver).includes('b'), { timeout: 1_000 }).toBe(true);
      await b.stop();

      // A holder that died keeps the lease until it expires.
      expect(await store.acquire('single', 'dead', new Date(), new Date(Date.now() + 1_500))).toBe(true);
      const before = ticks.length;
      const started = Date.now();
      worker('c');
      await expect.poll(() => ticks.length > before, { timeout: 5_000 }).toBe(true);
      expect(Date.now() - started).toBeGreaterThanOrEqual(1_400);
      expect(ticks.slice(before).every((o) => o === 'c')).toBe(true);
    });
  });
});
