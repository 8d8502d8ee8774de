/**
 * Errors. A failed protocol check of any kind is one {@link ThresholdEcdsaError} with code `ABORTED` and
 * the same message, whatever the cause: a peer must not learn from the way a party fails which check
 * failed (the selective-abort attack on OT-based multiplication). The local-only `diagnostic` names the
 * check for this process's logs and tests; never send it to the peer.
 * @module
 */

export type ThresholdEcdsaErrorCode =
  | 'ABORTED' // a protocol check failed; the session is dead and no signature is released
  | 'OT_UNUSABLE' // the key share's OT correlations are marked unusable (or absent): run OT setup again
  | 'PRESIGNATURE_CONSUMED' // a presignature was already used for a digest
  | 'SESSION_CLOSED' // a session method was called after the session finished or aborted, or out of order
  | 'INVALID_INPUT'; // the caller passed something malformed (not a peer's fault)

export class ThresholdEcdsaError extends Error {
  override name = 'ThresholdEcdsaError';
  declare readonly diagnostic?: string;
  constructor(
    readonly code: ThresholdEcdsaErrorCode,
    message: string,
    diagnostic?: string,
  ) {
    super(message);
    if (diagnostic !== undefined) Object.defineProperty(this, 'diagnostic', { value: diagnostic, enumerable: false });
  }
}

/** Thrown inside the protocol code by every check; sessions turn it into the one abort. */
export class CheckFailed extends Error {
  override name = 'CheckFailed';
}

export function check(condition: boolean, what: string): asserts condition {
  if (!condition) throw new CheckFailed(what);
}

export const ABORT_MESSAGE = 'threshold-ecdsa: session aborted';

export function abortError(cause: unknown): ThresholdEcdsaError {
  const diagnostic = cause instanceof CheckFailed ? cause.message : `internal: ${cause instanceof Error ? cause.message : String(cause)}`;
  return new ThresholdEcdsaError('ABORTED', ABORT_MESSAGE, diagnostic);
}

export function invalidInput(message: string): ThresholdEcdsaError {
  return new ThresholdEcdsaError('INVALID_INPUT', `threshold-ecdsa: ${message}`);
}
