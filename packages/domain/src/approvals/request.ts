import { requestFingerprint } from '../idempotency/run.ts';
import type { Caller } from '../shared/caller.ts';
import { fieldError, uuidSchema } from '../shared/zod.ts';

/**
 * The one place signing and transfer bodies lose their optional top-level `initiatorUserId`
 * before the operation's schema parses them: the caller carries it (and the request's hash, which
 * approval cases bind to) to the signing pipeline. 400 when it is not a uuid.
 */
export function withApprovalRequest(caller: Caller, method: string, path: string, body: unknown): { caller: Caller; body: unknown } {
  const requestHash = requestFingerprint(method, path, body ?? null);
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('initiatorUserId' in body)) {
    return { caller: { ...caller, requestHash, initiatorUserId: null }, body };
  }
  const { initiatorUserId, ...rest } = body as Record<string, unknown>;
  if (initiatorUserId !== undefined && initiatorUserId !== null && !uuidSchema.safeParse(initiatorUserId).success) {
    throw fieldError('initiatorUserId', 'expected the id (uuid) of a user of this project');
  }
  return { caller: { ...caller, requestHash, initiatorUserId: (initiatorUserId as string | null | undefined)?.toLowerCase() ?? null }, body: rest };
}
