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

/** The first `at ...` line of a stack: where it was thrown, without the message. */
export function firstFrame(stack: unknown): string | undefined {
  if (typeof stack !== 'string') return undefined;
  const line = stack.split('\n').find((l) => /^\s+at /.test(l));
  return line?.trim().slice(0, 300);
}

/** The part of an unexpected error that may be logged: name (an identifier) and an ERR_-style code. */
export function loggableError(error: unknown): { errorName: string; errorCode?: string; frame?: string } {
  const name = error instanceof Error && /^[A-Za-z_$][\w$.]{0,63}$/.test(error.name) ? error.name : 'non-Error value';
  const code = (error as { code?: unknown } | null)?.code;
  return {
    errorName: name,
    ...(typeof code === 'string' && /^[A-Z][A-Z0-9_]{0,63}$/.test(code) ? { errorCode: code } : {}),
    ...(error instanceof Error ? { frame: firstFrame(error.stack) } : {}),
  };
}
