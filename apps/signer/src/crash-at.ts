/**
 * SIGNER_CRASH_AT (tests only; the configuration refuses it outside local mode): the signer SIGKILLs
 * itself in the middle of a FROST signature, so that a test can show what a signer killed there
 * leaves behind (nothing a retry could reuse):
 *
 * - `frost-respond`: its nonces made and its signature share computed, before the signature is
 *   logged and before the answer leaves;
 * - `frost-logged`: the signature appended to its log (on disk), before the answer leaves.
 */
export const SIGNER_CRASH_POINTS = ['frost-respond', 'frost-logged'] as const;
export type SignerCrashPoint = (typeof SIGNER_CRASH_POINTS)[number];

// Read once: the variable is fixed for the process's life.
const crashPoint = process.env.SIGNER_CRASH_AT;

function crashAt(point: SignerCrashPoint): void {
  if (crashPoint === point) process.kill(process.pid, 'SIGKILL');
}

/** Appends a FROST signature to the log between the two crash points. */
export async function logBetweenCrashPoints<T>(append: () => Promise<T>): Promise<T> {
  crashAt('frost-respond');
  const logged = await append();
  crashAt('frost-logged');
  return logged;
}
