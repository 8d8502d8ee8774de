/**
 * The main thread's handle on a party's threshold ECDSA presigning thread (dkls-presign-thread.ts):
 * the message-independent rounds run there, and this side only relays their protocol messages; so
 * do the key ceremonies (key generation, OT setup, refresh), through `threadParty` (dkls-party-host.ts).
 * Once they are done the presignature moves here (`Presignature.import` of the thread's export,
 * the bytes wiped at once) over the share's public part only (no secret share on this thread): its
 * message-dependent round is a few scalar products and a verification, cheap enough for the event
 * loop, and never waits behind another presignature's rounds. Used by the API (participant 1) and
 * the signer (participant 2).
 *
 * Each process has two such threads (`sharedPresignThread` for signatures asked for now, at the
 * process's priority; `sharedPoolPresignThread` for the pool's refills, at nice 10), so that a
 * refill's rounds neither queue in front of an on-demand signature's nor take its core. The key
 * ceremonies run in the on-demand one: a request waits for them, and at nice 10 they would wait
 * behind every refill.
 *
 * A thread starts on first use and does not keep the process alive. A thread that dies loses its
 * entries (their keys then answer `SESSION_CLOSED`) and is started afresh on the next call.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { KeyShare, Presignature, ThresholdEcdsaError, type ThresholdEcdsaErrorCode } from '@wallet/threshold-ecdsa';
import type { PartyMade, PartySpec } from './dkls-party-host.ts';

export type PresignRequest =
  | { id: number; op: 'open'; share: Uint8Array; partyId: 1 | 2; publicKey: Uint8Array; otSetupId: string; first: boolean; messages: Uint8Array[] }
  | { id: number; op: 'party'; spec: PartySpec; first: boolean; messages: Uint8Array[] }
  | { id: number; op: 'step'; key: string; messages: Uint8Array[] }
  | { id: number; op: 'drop'; key: string }
  | { id: number; op: 'count' };

export type PresignReply = { id: number; ok: true; value: unknown } | { id: number; ok: false; code: ThresholdEcdsaErrorCode | 'INTERNAL'; message: string };

type Without<T> = T extends unknown ? Omit<T, 'id'> : never;

export interface PresignRound {
  key: string;
  messages: Uint8Array[];
  /** Set once the rounds are done (the thread's entry is gone then): single use, `discard()` it if unused. */
  presignature: Presignature | null;
}

/** A key ceremony's round: `made` (bytes the caller wipes) once it is done, the thread's entry gone then. */
export interface PartyRound {
  key: string;
  messages: Uint8Array[];
  made: PartyMade | null;
}

interface ThreadRound {
  key: string;
  messages: Uint8Array[];
  made: { presignature: Uint8Array; partyId: 1 | 2; verifyingShares: [Uint8Array, Uint8Array, Uint8Array]; publicKey: Uint8Array } | null;
}

export interface PresignThread {
  /**
   * Hands a share's plaintext encoding to the thread (the caller wipes its copy) with what it must be:
   * participant, key and OT setup; starts presigning with it and runs the peer's first messages.
   */
  open(input: { share: Uint8Array; partyId: 1 | 2; publicKey: Uint8Array; otSetupId: string; first: boolean; messages: Uint8Array[] }): Promise<PresignRound>;
  step(key: string, messages: Uint8Array[]): Promise<PresignRound>;
  /** Starts a key ceremony (use `threadParty`, dkls-party-host.ts); a share in `spec` is handed over as in `open` (the caller's copy wiped). */
  openParty(input: { spec: PartySpec; first: boolean; messages: Uint8Array[] }): Promise<PartyRound>;
  stepParty(key: string, messages: Uint8Array[]): Promise<PartyRound>;
  /** Wipes an entry (unknown keys are ignored). */
  drop(key: string): Promise<void>;
  /** Entries held (tests). */
  count(): Promise<number>;
  /** Stops the thread; its entries are wiped. */
  close(): Promise<void>;
}

/** Set by the apps' build scripts to the bundled thread's URL; undefined when running from sources. */
declare const BUNDLED_DKLS_PRESIGN_THREAD: string | undefined;

function tsxApiUrl(): string {
  const cjs = createRequire(import.meta.url).resolve('tsx/esm/api');
  return pathToFileURL(cjs.replace(/index\.cjs$/, 'index.mjs')).href;
}

/** The bundled script, or from sources a bootstrap that registers tsx first (Node 20 starts no .ts worker entry, and vitest brings no loader). */
function threadEntry(): { entry: string | URL; eval: boolean } {
  if (typeof BUNDLED_DKLS_PRESIGN_THREAD !== 'undefined') return { entry: new URL(BUNDLED_DKLS_PRESIGN_THREAD), eval: false };
  const source = new URL('./dkls-presign-thread.ts', import.meta.url).href;
  const entry = `import(${JSON.stringify(tsxApiUrl())}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); })
    .catch((e) => { require('node:worker_threads').parentPort.postMessage({ id: 0, ok: false, code: 'INTERNAL', message: String(e && e.stack || e) }); });`;
  return { entry, eval: true };
}

/**
 * The public part of a share (its participant, verifying shares and key; a zero secret and no OT
 * correlations), which is all a presignature's last round reads of it. Aborts there are the
 * caller's to record (the API stores its share unusable, the signer marks the setup unusable).
 */
const publicShares = new Map<string, KeyShare>();
function publicShareOf(made: NonNullable<ThreadRound['made']>): KeyShare {
  const id = Buffer.concat([Uint8Array.of(made.partyId), ...made.verifyingShares, made.publicKey]).toString('hex');
  let share = publicShares.get(id);
  if (!share) {
    if (publicShares.size >= 1024) publicShares.clear();
    share = new KeyShare(made.partyId, new Uint8Array(32), made.verifyingShares, made.publicKey, null);
    publicShares.set(id, share);
  }
  return share;
}

function received(round: ThreadRound): PresignRound {
  if (!round.made) return { key: round.key, messages: round.messages, presignature: null };
  try {
    return { key: round.key, messages: round.messages, presignature: Presignature.import(round.made.presignature, publicShareOf(round.made)) };
  } finally {
    round.made.presignature.fill(0);
  }
}

/**
 * Secret bytes as a view of a buffer of their own: a structured clone copies a view's whole
 * ArrayBuffer, which for a pooled Buffer (a short share's encoding) is 8 KiB of other allocations.
 */
function alone(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : Uint8Array.from(bytes);
}

/** `nice`: the thread's nice value on Linux (0: the process's priority; 10 for background presigning). */
export function createPresignThread({ nice = 0 }: { nice?: number } = {}): PresignThread {
  let worker: Worker | null = null;
  let ready: Promise<void> | null = null;
  let nextId = 1;
  const waiting = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();

  const failAll = (error: Error) => {
    for (const w of waiting.values()) w.reject(error);
    waiting.clear();
  };

  function start(): Promise<void> {
    const { entry, eval: isEval } = threadEntry();
    const w = new Worker(entry, { eval: isEval, workerData: { nice }, execArgv: process.execArgv.filter((arg) => /^--cpu-prof/.test(arg)) });
    worker = w;
    const started = new Promise<void>((resolve, reject) => {
      w.on('message', (reply: PresignReply) => {
        if (reply.id === 0) {
          if (reply.ok) resolve();
          else reject(new Error(`the presigning thread did not start: ${reply.message}`));
          return;
        }
        const w8 = waiting.get(reply.id);
        if (!w8) return;
        waiting.delete(reply.id);
        if (waiting.size === 0) w.unref();
        if (reply.ok) w8.resolve(reply.value);
        else w8.reject(reply.code === 'INTERNAL' ? new Error(reply.message) : new ThresholdEcdsaError(reply.code, reply.message));
      });
      w.on('error', (error) => reject(error));
      w.once('exit', (code) => {
        if (worker === w) {
          worker = null;
          ready = null;
        }
        reject(new Error(`the presigning thread exited (${code})`));
        failAll(new ThresholdEcdsaError('SESSION_CLOSED', 'threshold-ecdsa: the presigning thread exited; its sessions are gone'));
      });
    });
    // Held only while a request waits for it (after the listeners: adding a 'message' listener refs a worker).
    w.unref();
    return started;
  }

  async function request<T>(message: Without<PresignRequest>): Promise<T> {
    ready ??= start();
    const id = nextId++;
    const answer = new Promise<T>((resolve, reject) => waiting.set(id, { resolve: resolve as (value: unknown) => void, reject }));
    worker!.ref();
    try {
      await ready;
    } catch (error) {
      waiting.delete(id);
      throw error;
    }
    worker!.postMessage({ ...message, id });
    return answer;
  }

  return {
    async open(input) {
      const share = alone(input.share);
      try {
        return received(await request<ThreadRound>({ op: 'open', ...input, share }));
      } finally {
        // The thread got a copy (structured clone); this one goes.
        input.share.fill(0);
        share.fill(0);
      }
    },
    step: async (key, messages) => received(await request<ThreadRound>({ op: 'step', key, messages })),
    async openParty(input) {
      const { spec } = input;
      if (spec.kind === 'keygen') return request<PartyRound>({ op: 'party', ...input });
      const share = alone(spec.share);
      try {
        return await request<PartyRound>({ op: 'party', ...input, spec: { ...spec, share } });
      } finally {
        spec.share.fill(0);
        share.fill(0);
      }
    },
    stepParty: (key, messages) => request<PartyRound>({ op: 'step', key, messages }),
    drop: (key) => request({ op: 'drop', key }),
    count: () => request({ op: 'count' }),
    async close() {
      const w = worker;
      worker = null;
      ready = null;
      await w?.terminate();
    },
  };
}

let shared: PresignThread | undefined;
let sharedPool: PresignThread | undefined;

/** This process's presigning thread for the signatures asked for now (on demand), at the process's priority; started on first use. */
export function sharedPresignThread(): PresignThread {
  return (shared ??= createPresignThread());
}

/** This process's presigning thread for the pool's refills, at nice 10 (background); started on first use. */
export function sharedPoolPresignThread(): PresignThread {
  return (sharedPool ??= createPresignThread({ nice: 10 }));
}
