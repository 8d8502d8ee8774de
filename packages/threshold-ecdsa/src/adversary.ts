/** Test-only tools for crafting a deviating peer's messages (offsets of the wire format). @internal */
import { expect } from 'vitest';
import { ABORT_MESSAGE, ThresholdEcdsaError } from './errors.ts';
import { N, bigToBytes, bytesToBig } from './curve.ts';

export const HEADER = 36; // version, type, from, to, sid
export const sidOf = (msg: Uint8Array): Uint8Array => msg.slice(4, 36);

/** Expects the one abort (same code and message whatever the cause), caused by the named check. */
export function expectAbort(fn: () => unknown, diagnostic: string | RegExp): void {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(ThresholdEcdsaError);
  const err = caught as ThresholdEcdsaError;
  expect(err.code).toBe('ABORTED');
  expect(err.message).toBe(ABORT_MESSAGE);
  expect(Object.keys(err)).not.toContain('diagnostic'); // local only: not serialized with the error
  if (typeof diagnostic === 'string') expect(err.diagnostic).toBe(diagnostic);
  else expect(err.diagnostic).toMatch(diagnostic);
}

export function splice(msg: Uint8Array, offset: number, bytes: Uint8Array): Uint8Array {
  const out = Uint8Array.from(msg);
  out.set(bytes, offset);
  return out;
}

/** Adds `delta` (mod n) to the 32-byte scalar at `offset`. */
export function addToScalar(msg: Uint8Array, offset: number, delta: bigint): Uint8Array {
  const x = bytesToBig(msg.subarray(offset, offset + 32));
  return splice(msg, offset, bigToBytes((((x + delta) % N) + N) % N));
}

/** A 33-byte compressed encoding whose x has no point on the curve. */
export function offCurvePoint(isPoint: (p: Uint8Array) => boolean): Uint8Array {
  for (let x = 1; ; x++) {
    const p = new Uint8Array(33);
    p[0] = 2;
    p[32] = x;
    if (!isPoint(p)) return p;
  }
}
