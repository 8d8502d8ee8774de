/**
 * Sessions and message framing. Every protocol (DKG, OT setup, signing) opens with a `hello` in which
 * each party sends 32 fresh random bytes; the session id is
 * `SHA-256(tag, kind, context, id1, id2, nonce1, nonce2)`, so both parties contribute randomness to it.
 * Every later message starts with `version, type, from, to, sid`, and a party refuses any message whose
 * header is not exactly what it expects (another session's message, a wrong party id, a wrong round).
 * @module
 */
import { randomBytes } from 'node:crypto';
import { abortError, check, ThresholdEcdsaError } from './errors.ts';
import { taggedHash } from './group.ts';
import { Reader, Writer } from './codec.ts';

export const VERSION = 1;
export type PartyId = 1 | 2;
export const peerOf = (id: PartyId): PartyId => (id === 1 ? 2 : 1);

export const MSG = {
  DKG_HELLO: 0x10,
  DKG_COMMIT: 0x11,
  DKG_OPEN: 0x12,
  OT_HELLO: 0x20,
  OT_1: 0x21,
  OT_2: 0x22,
  OT_3: 0x23,
  OT_4: 0x24,
  OT_5: 0x25,
  SIGN_HELLO: 0x30,
  SIGN_1: 0x31,
  SIGN_2: 0x32,
  SIGN_3: 0x33,
  REFRESH_HELLO: 0x40,
  REFRESH_COMMIT: 0x41,
  REFRESH_OPEN: 0x42,
} as const;

export function encodeHello(type: number, from: PartyId, nonce: Uint8Array): Uint8Array {
  return new Writer().u8(VERSION).u8(type).u8(from).u8(peerOf(from)).bytes(nonce).finish();
}

/** Decodes the peer's hello; returns its nonce. */
export function decodeHello(type: number, me: PartyId, msg: Uint8Array): Uint8Array {
  const r = new Reader(msg);
  check(r.u8() === VERSION, 'version');
  check(r.u8() === type, 'message type');
  check(r.u8() === peerOf(me), 'sender id');
  check(r.u8() === me, 'recipient id');
  const nonce = r.bytes(32);
  r.end();
  return nonce;
}

export function sessionId(kind: string, context: Uint8Array, n1: Uint8Array, n2: Uint8Array): Uint8Array {
  return taggedHash('sid/' + kind, context, Uint8Array.of(1, 2), n1, n2);
}

export function header(type: number, from: PartyId, sid: Uint8Array): Writer {
  return new Writer().u8(VERSION).u8(type).u8(from).u8(peerOf(from)).bytes(sid);
}

/** Reads and checks a header; returns the reader positioned at the body. */
export function readHeader(type: number, me: PartyId, sid: Uint8Array, msg: Uint8Array): Reader {
  check(msg instanceof Uint8Array, 'message type');
  const r = new Reader(msg);
  check(r.u8() === VERSION, 'version');
  check(r.u8() === type, 'message type');
  check(r.u8() === peerOf(me), 'sender id');
  check(r.u8() === me, 'recipient id');
  const s = r.bytes(32);
  let d = 0;
  for (let i = 0; i < 32; i++) d |= s[i]! ^ sid[i]!;
  check(d === 0, 'session id');
  return r;
}

/**
 * A step machine: each step may run once, in order; any exception inside a step aborts the session for
 * good (one `ABORTED` error) and runs `onAbort` (e.g. marking the key pair's OT state unusable).
 */
export abstract class Steps {
  private stepIndex = 0;
  private dead = false;
  protected readonly ownNonce = randomBytes(32);
  protected constructor(protected readonly onAbortHook: () => void = () => {}) {}

  /** True once the session finished or aborted: no step runs any more. */
  get closed(): boolean {
    return this.dead;
  }

  protected run<T>(index: number, body: () => T): T {
    if (this.dead || this.stepIndex !== index) {
      throw new ThresholdEcdsaError('SESSION_CLOSED', 'threshold-ecdsa: session step out of order, finished or aborted');
    }
    try {
      const out = body();
      this.stepIndex++;
      return out;
    } catch (e) {
      this.dead = true;
      this.wipe();
      // A caller error (e.g. OT_UNUSABLE) ends the session too, but is not a peer's deviation.
      if (e instanceof ThresholdEcdsaError && e.code !== 'ABORTED') throw e;
      this.onAbortHook();
      throw e instanceof ThresholdEcdsaError ? e : abortError(e); // the one abort, whatever failed
    }
  }

  /** Ends the session: no further step runs. */
  protected close(): void {
    this.dead = true;
    this.wipe();
  }

  /** Overwrites the session's secret byte arrays. */
  protected wipe(): void {
    this.ownNonce.fill(0);
  }
}
