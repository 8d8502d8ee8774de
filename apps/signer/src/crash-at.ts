/**
 * SIGNER_CRASH_AT (tests only; the configuration refuses it outside local mode): the signer SIGKILLs
 * itself in the middle of a FROST signature, so that a test can show what a signer killed there
 * leaves behind (nothing a retry could reuse):
 *
 * - `frost-respond`: its nonces made and its signature share computed, before the signature is
 *   logged and before the answer leaves;
 * - `frost-logged`: the signature appended to its log (on disk), before the answer leaves;
 * - `dkls-presigned`: a threshold ECDSA presignature made (in memory), before the answer that
 *   completes it on the API's side leaves;
 * - `dkls-logged`: the threshold signature appended to its log with its presignature (that line is
 *   the presignature's durable record of use), before its final message leaves;
 * - `dkls-import-dealt`: a converted wallet's key dealt into DKLs23 shares, before they leave;
 * - `dkls-import-setup`: the conversion's OT setup recorded, before participant 2's sealed share leaves;
 * - `dkls-refresh-setup`: a share refresh's new OT setup recorded, before participant 2's new share leaves.
 */
export const SIGNER_CRASH_POINTS = ['frost-respond', 'frost-logged', 'dkls-presigned', 'dkls-logged', 'dkls-import-dealt', 'dkls-import-setup', 'dkls-refresh-setup'] as const;
export type SignerCrashPoint = (typeof SIGNER_CRASH_POINTS)[number];

// Read once: the variable is fixed for the process's life.
const crashPoint = process.env.SIGNER_CRASH_AT;

export function crashAt(point: SignerCrashPoint): void {
  if (crashPoint === point) process.kill(process.pid, 'SIGKILL');
}

/** Appends a FROST signature to the log between the two crash points. */
export async function logBetweenCrashPoints<T>(append: () => Promise<T>): Promise<T> {
  crashAt('frost-respond');
  const logged = await append();
  crashAt('frost-logged');
  return logged;
}
