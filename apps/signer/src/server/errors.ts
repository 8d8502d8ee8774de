const BRAND = Symbol.for('wallet.signer.SignerError');

/**
 * An error a handler throws on purpose: its code, message, status and details are sent to the
 * client as they are, so they must never contain key material. Anything else a handler throws is
 * answered as 500 SIGNER_INTERNAL and logged without its message (see server.ts).
 */
export class SignerError extends Error {
  readonly [BRAND] = true;
  constructor(
    public code: string,
    message: string,
    public status = 400,
    public details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = 'SignerError';
  }
}

/** Also true for a SignerError of another copy of this module (a bundle next to the sources). */
export function isSignerError(error: unknown): error is SignerError {
  return error instanceof SignerError || (typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true);
}
